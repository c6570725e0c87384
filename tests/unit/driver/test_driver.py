"""run_challenge end to end: in-process workers with static responses, worker processes with the stub."""

from __future__ import annotations

import os

import pytest
from driver_helpers import SEARCH_RESPONSE, challenge, op, task, track

from esbench.driver.coordinator.run import DriverSettings, Progress, run_challenge, tasks_of
from esbench.driver.transport.client import ClientOptions
from esbench.driver.transport.http import StaticTransport
from esbench.driver.worker.registry import default_registry
from esbench.exceptions import ConfigError, DriverError, RaceAborted
from esbench.track.model import Parallel, Throughput

FAST = DriverSettings(workers=0, task_pause_s=0, progress_interval_s=0.05)


def static(responder=None):
    def factory(client_id: int) -> StaticTransport:
        return StaticTransport(responder or (lambda m, t, b: (200, SEARCH_RESPONSE)), record=False)

    return {"http_factory": factory}


def run(ch, *, settings=FAST, responder=None, registry=None, progress=None, trk=None):
    return run_challenge(
        track=trk or track(),
        challenge=ch,
        hosts=["127.0.0.1:9"],
        client_options=ClientOptions(),
        settings=settings,
        corpora=None,
        registry=registry,
        progress=progress,
        _thread_runtime=static(responder),
    )


def test_results_for_every_task_in_schedule_order():
    admin = task(op("refresh"))
    admin = type(admin)(
        name="refresh",
        operation=type(admin.operation)(name="refresh", operation_type="refresh", include_in_reporting=False),
    )
    outcome = run(
        challenge(
            admin,
            task(op("search", "s1", body={}), clients=3, warmup_iterations=2, iterations=5),
            task(op("search", "s2", body={}), iterations=1),
        )
    )
    assert outcome.status == "completed" and outcome.error is None
    assert [t.task for t in outcome.tasks] == ["refresh", "s1", "s2"]
    s1 = tasks_of(outcome)["s1"]
    assert s1.sample_count == 15 and s1.warmup_sample_count == 6 and s1.error_count == 0
    assert s1.operation_type == "search" and s1.throughput_unit == "ops/s"
    assert set(s1.service_time_ms) == {"50", "90", "100"}
    assert tasks_of(outcome)["refresh"].include_in_reporting is False


def test_completed_by_named_task_stops_the_others():
    leader = task(
        op("search", "leader", body={}),
        iterations=5,
        target_throughput=Throughput(value=50.0),
        completes_parent=True,
    )
    follower = task(
        op("search", "follower", body={}), iterations=1000, target_throughput=Throughput(value=20.0)
    )
    outcome = run(challenge(Parallel(tasks=(leader, follower))))
    results = tasks_of(outcome)
    assert results["leader"].sample_count == 5
    assert 1 <= results["follower"].sample_count < 10


def test_completed_by_any_stops_everybody():
    quick = task(op("search", "quick", body={}), iterations=2, any_completes_parent=True)
    slow = task(
        op("search", "slow", body={}),
        clients=2,
        iterations=1000,
        target_throughput=Throughput(value=20.0),
        any_completes_parent=True,
    )
    outcome = run(challenge(Parallel(tasks=(quick, slow))))
    results = tasks_of(outcome)
    assert results["quick"].sample_count == 2
    assert results["slow"].sample_count < 10


def test_on_error_abort_fails_the_race_with_partial_results():
    outcome = run(
        challenge(
            task(op("search", "ok", body={}), iterations=3),
            task(op("search", "bad", body={}), iterations=50),
            task(op("search", "never", body={})),
        ),
        settings=DriverSettings(workers=0, task_pause_s=0, on_error="abort"),
        responder=lambda m, t, b: (500, b'{"error":{"type":"boom","reason":"x"}}'),
    )
    assert outcome.status == "failed"
    assert isinstance(outcome.exception, RaceAborted)
    assert "Task 'ok' aborted" in outcome.error
    assert [t.task for t in outcome.tasks] == ["ok"]
    assert outcome.tasks[0].error_count == 1


def test_errors_are_counted_with_on_error_continue():
    outcome = run(
        challenge(task(op("search", "bad", body={}), iterations=4)),
        responder=lambda m, t, b: (404, b"{}"),
    )
    assert outcome.status == "completed"
    assert tasks_of(outcome)["bad"].errors_by_type == {"404": 4}


def test_ctrl_c_returns_interrupted_with_the_running_task():
    reports: list[Progress] = []

    def progress(report: Progress) -> None:
        reports.append(report)
        if len(reports) >= 2:
            raise KeyboardInterrupt

    long = task(op("search", "long", body={}), iterations=100000, target_throughput=Throughput(value=200.0))
    outcome = run(challenge(task(op("search", "first", body={}), iterations=2), long), progress=progress)
    assert outcome.status == "interrupted"
    assert [t.task for t in outcome.tasks] == ["first", "long"]
    assert 0 < tasks_of(outcome)["long"].sample_count < 100000
    assert reports[0].task == "long" and reports[0].unit == "ops/s" and reports[0].percent_done is not None


def test_progress_reports_throughput():
    reports: list[Progress] = []
    t = task(op("search", "paced", body={}), time_period=0.6, target_throughput=Throughput(value=100.0))
    run(challenge(t), progress=reports.append)
    assert reports and all(r.task == "paced" for r in reports)
    late = [r for r in reports if r.elapsed_s > 0.2 and r.throughput]
    assert late and all(50 < r.throughput < 150 for r in late)
    assert all(0 <= (r.percent_done or 0) <= 100 for r in reports)


def test_filters_and_settings_are_checked():
    ch = challenge(
        task(op("search", "a", body={}), iterations=1), task(op("search", "b", body={}), iterations=1)
    )
    outcome = run(ch, settings=DriverSettings(workers=0, task_pause_s=0, include_tasks=("b",)))
    assert [t.task for t in outcome.tasks] == ["b"]
    with pytest.raises(ConfigError, match="--on-error"):
        run(ch, settings=DriverSettings(on_error="panic"))
    with pytest.raises(ConfigError, match="No runner is registered"):
        run(challenge(task(op("no-such-op"))))
    with pytest.raises(ConfigError, match="needs 'index'"):
        run(challenge(task(op("search", body={}))), trk=track(indices=()))


# ---------------------------------------------------------------------------- worker processes


async def counting_runner(es, params):
    """A plugin runner (module level, so the registry pickles into worker processes)."""
    return {"weight": 2, "unit": "widgets", "pid": os.getpid()}


async def dying_runner(es, params):
    os._exit(3)


def test_worker_processes_merge_results_and_receive_plugin_runners(es_stub):
    registry = default_registry()
    registry.register_runner("count", counting_runner, async_runner=True)
    ch = challenge(
        task(op("search", "search", body={"query": {"match_all": {}}}), clients=4, iterations=25),
        task(op("count"), clients=3, iterations=10),
    )
    outcome = run_challenge(
        track=track(),
        challenge=ch,
        hosts=[es_stub.host],
        client_options=ClientOptions(),
        settings=DriverSettings(workers=2, task_pause_s=0),
        corpora=None,
        registry=registry,
    )
    assert outcome.status == "completed", outcome.error
    results = tasks_of(outcome)
    assert results["search"].sample_count == 100 and results["search"].error_count == 0
    assert es_stub.requests == 100
    assert {target for _, target in es_stub.log} == {"/idx/_search"}
    assert results["count"].sample_count == 30 and results["count"].total_weight == 60
    assert results["count"].throughput_unit == "widgets/s"


def test_a_dying_worker_fails_the_race(es_stub):
    registry = default_registry()
    registry.register_runner("die", dying_runner, async_runner=True)
    outcome = run_challenge(
        track=track(),
        challenge=challenge(task(op("search", "ok", body={}), iterations=2), task(op("die"))),
        hosts=[es_stub.host],
        client_options=ClientOptions(),
        settings=DriverSettings(workers=1, task_pause_s=0),
        corpora=None,
        registry=registry,
    )
    assert outcome.status == "failed"
    assert isinstance(outcome.exception, DriverError)
    assert "exited unexpectedly (exit code 3)" in outcome.error
    assert [t.task for t in outcome.tasks] == ["ok", "die"]


TRACK_PY = """
import os


async def echo(es, params):
    return {"weight": params["w"], "unit": "things", "pid": os.getpid()}


class Three:
    def __init__(self, track, params, **kwargs):
        self.left = 3
        self.w = params.get("w", 1)

    def partition(self, index, total):
        return Three(None, {"w": self.w})

    infinite = False

    def params(self):
        if not self.left:
            raise StopIteration
        self.left -= 1
        return {"w": self.w}


class Every:
    def __init__(self, task, target_throughput):
        self.gap = 1 / target_throughput

    def next(self, current):
        return current + self.gap


def register(registry):
    registry.register_runner("echo", echo, async_runner=True)
    registry.register_param_source("three", Three)
    registry.register_scheduler("every", Every)
"""


def test_track_plugins_reach_the_worker_processes(tmp_path, es_stub):
    from esbench.compat import RallyPluginHost
    from esbench.track.model import Operation, Track

    (tmp_path / "track.py").write_text(TRACK_PY)
    trk = Track(name="plugged", root=tmp_path, challenges=())
    operation = Operation(name="echo", operation_type="echo", param_source="three", params={"w": 5})
    t = task(operation, clients=4, schedule="every", target_throughput=Throughput(value=400.0))
    outcome = run_challenge(
        track=trk,
        challenge=challenge(t),
        hosts=[es_stub.host],
        client_options=ClientOptions(),
        settings=DriverSettings(workers=2, task_pause_s=0, plugins=RallyPluginHost()),
        corpora=None,
    )
    assert outcome.status == "completed", outcome.error
    result = tasks_of(outcome)["echo"]
    assert result.sample_count == 12 and result.total_weight == 60
    assert result.throughput_unit == "things/s"


def test_unpicklable_registrations_are_reported():
    registry = default_registry()

    class Local:
        async def __call__(self, es, params):
            return None

    registry.register_runner("local", Local(), async_runner=True)
    with pytest.raises(ConfigError, match="cannot be sent to the worker processes"):
        run_challenge(
            track=track(),
            challenge=challenge(task(op("local"))),
            hosts=["127.0.0.1:9"],
            client_options=ClientOptions(),
            settings=DriverSettings(workers=1),
            corpora=None,
            registry=registry,
        )


# ------------------------------------------------------------------------------- race seed

DRAWS: list[float] = []


class RecordingRandom:
    """A simple scheduler that notes the first number its seeded generator draws."""

    accepts_rng = True

    def __init__(self, task, target_throughput, *, rng):
        DRAWS.append(rng.random())
        self.gap = 1 / target_throughput

    def next(self, current):
        return current + self.gap


def test_race_seed_is_logged_returned_and_seeds_random_schedules(caplog):
    import logging
    from dataclasses import replace

    registry = default_registry()
    registry.register_scheduler("recording", RecordingRandom)
    t = task(
        op("search", "s", body={}),
        iterations=1,
        schedule="recording",
        target_throughput=Throughput(value=1e6),
    )
    caplog.set_level(logging.INFO, logger="esbench.driver.coordinator.run")

    def draws(settings):
        DRAWS.clear()
        outcome = run(challenge(t), settings=settings, registry=registry)
        assert outcome.status == "completed", outcome.error
        return outcome, list(DRAWS)

    first, drawn = draws(FAST)
    assert isinstance(first.seed, int)
    assert f"Race seed for random schedules: {first.seed}" in caplog.text
    again, redrawn = draws(replace(FAST, seed=first.seed))
    assert again.seed == first.seed and redrawn == drawn
    _, other = draws(replace(FAST, seed=first.seed + 1))
    assert other != drawn


def test_target_unit_mismatch_of_a_builtin_operation_fails_before_the_race():
    t = task(
        op("search", "s", body={}), iterations=1, target_throughput=Throughput(value=10.0, unit="docs/s")
    )
    with pytest.raises(ConfigError, match=r"target-throughput in docs/s .* measures throughput in ops/s"):
        run(challenge(t), responder=lambda m, t, b: pytest.fail("a request was sent"))


# ------------------------------------------------------------------- per-task spans in a step


def test_each_task_of_a_parallel_block_is_measured_over_its_own_span():
    from esbench.driver.coordinator.allocator import plan_step
    from esbench.driver.coordinator.run import step_results
    from esbench.driver.worker.process import StepDone
    from esbench.metrics.recorder import TaskRecorder

    start = 1000.0
    short = task(op("search", "short", body={}), target_throughput=Throughput(value=100.0), time_period=10.0)
    long = task(op("search", "long", body={}), target_throughput=Throughput(value=100.0), time_period=60.0)
    late = task(op("search", "late", body={}), target_throughput=Throughput(value=100.0), time_period=29.5)
    step = plan_step(Parallel(tasks=(short, long, late)), index=0, max_workers=1)
    states = {}
    for t, begin, seconds in ((short, 0.0, 10), (long, 0.0, 60), (late, 30.5, 29.5)):
        recorder = TaskRecorder(task=t.name, operation=t.name, operation_type="search", origin=start)
        for k in range(int(100 * seconds)):
            end = start + begin + 0.005 + k / 100
            recorder.record(warmup=False, end=end, service_time=0.005, latency=0.005, processing_time=0.005)
        states[t.name] = recorder.state()
    done = StepDone(
        worker_id=0,
        step=0,
        end=start + 60.01,
        states=states,
        item_errors={},
        context_changes={},
        spans={
            "short": (start, start + 10.0),
            "long": (start, start + 60.01),
            "late": (start + 30.5, start + 60.0),
        },
    )
    results = {r.task: r for r in step_results(step, [done], start_at=start, end=start + 60.01)}
    # the short task is not given its sibling's 50 idle seconds
    assert results["short"].duration_s == pytest.approx(10.0)
    assert results["short"].throughput_windows == pytest.approx((100.0,) * 10)
    assert results["short"].throughput_min == pytest.approx(100.0)
    assert results["short"].throughput_median == pytest.approx(100.0)
    assert results["long"].duration_s == pytest.approx(60.01)
    assert len(results["long"].throughput_windows) == 60
    # started at 30.5 s (a clients cap): no leading zero windows, the partial window [30, 31) left out
    assert results["late"].duration_s == pytest.approx(29.5)
    assert results["late"].throughput_windows == pytest.approx((100.0,) * 29)


async def test_workers_report_when_each_task_started_and_ended():
    import multiprocessing

    from driver_helpers import FakeClock

    from esbench.driver.coordinator.allocator import plan_step
    from esbench.driver.transport.client import ConnectionSettings
    from esbench.driver.worker.process import (
        InitWorker,
        PrepareStep,
        Ready,
        StartStep,
        StepDone,
        WorkerRuntime,
    )

    clock = FakeClock(1000.0)

    def responder(method, target, body):
        clock.advance(0.01)
        return 200, SEARCH_RESPONSE

    first = task(op("search", "first", body={}), iterations=3, target_throughput=Throughput(value=10.0))
    second = task(op("search", "second", body={}), iterations=2)
    # one client for the block: "second" starts when that client is done with "first"
    step = plan_step(Parallel(tasks=(first, second), clients=1), index=0, max_workers=1)
    parent, child = multiprocessing.Pipe()
    init = InitWorker(
        worker_id=0,
        track=track(),
        corpora=None,
        registry_blob=None,
        connection=ConnectionSettings.create(["127.0.0.1:9"], ClientOptions()),
        on_error="continue",
    )
    runtime = WorkerRuntime(
        child,
        init,
        clock=clock,
        http_factory=lambda cid: StaticTransport(responder, clock=clock.now),
        registry=default_registry(),
    )
    runtime._prepare(
        PrepareStep(
            step=0, clients=step.workers[0].clients, context={}, completing_task=None, completed_by_any=False
        )
    )
    runtime._start(StartStep(step=0, start_at=1000.0))
    await runtime.step.runner
    assert isinstance(parent.recv(), Ready)
    done = parent.recv()
    assert isinstance(done, StepDone)
    # "first": requests due at 0.0, 0.1, 0.2, 10 ms each; "second": two requests right after
    assert done.spans["first"] == pytest.approx((1000.0, 1000.21))
    assert done.spans["second"] == pytest.approx((1000.21, 1000.23))
    for client in runtime.clients.values():
        await client.close()


# --------------------------------------------------------------------------- bulk item errors


class FourDocBulks:
    def __init__(self, track, params, **kwargs):
        self.left = 5

    def partition(self, index, total):
        return FourDocBulks(None, {})

    infinite = False

    def params(self):
        if not self.left:
            raise StopIteration
        self.left -= 1
        return {"body": b"{}\n{}\n" * 4, "bulk-size": 4, "unit": "docs"}


def test_failed_documents_are_counted_apart_from_failed_requests():
    registry = default_registry()
    registry.register_param_source("four-doc-bulks", FourDocBulks)
    operation = type(op("bulk"))(name="bulk", operation_type="bulk", param_source="four-doc-bulks")
    conflict = b'{"index":{"status":409,"error":{"type":"version_conflict_engine_exception","reason":"x"}}}'
    created = b'{"index":{"status":201}}'
    answer = b'{"errors":true,"took":1,"items":[' + b",".join([conflict, conflict, conflict, created]) + b"]}"
    outcome = run(
        challenge(task(operation, clients=2)), registry=registry, responder=lambda m, t, b: (200, answer)
    )
    result = tasks_of(outcome)["bulk"]
    # 10 bulk requests of 4 documents, each with 3 conflicts
    assert (result.sample_count, result.error_count) == (10, 10)
    assert result.errors_by_type == {"bulk": 10}  # requests: adds up to error_count
    assert result.item_errors_by_status == {"409": 30}  # documents
