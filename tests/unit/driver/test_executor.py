"""The per-client loop with a simulated clock and static responses (no sockets, no real time)."""

from __future__ import annotations

from typing import Any

import elastic_transport
import pytest
from driver_helpers import BULK_OK, SEARCH_RESPONSE, FakeClock, op, static_es, task, track

from esbench.driver.plan import ClientAllocation, ClientPlan
from esbench.driver.worker.context import RaceContext
from esbench.driver.worker.executor import ClientExecutor, StepControl
from esbench.driver.worker.looplimits import loop_limits, unbounded
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.taskrun import TaskRun
from esbench.exceptions import ConfigError, ConnectionFailed, DriverError, RaceAborted
from esbench.metrics.recorder import METRICS, RecorderState
from esbench.metrics.stats import task_result
from esbench.track.model import Throughput

START = 1000.0


def make_run(t, *, registry=None, on_error="continue", corpora=None) -> TaskRun:
    registry = registry or default_registry()
    run = TaskRun(
        task=t,
        runner=registry.runner(t.operation.operation_type),
        source=registry.param_source(t, track(), corpora=corpora),
        schedulers=registry.schedulers,
        on_error=on_error,
    )
    run.start(START)
    return run


def allocation(t, index: int = 0, total: int | None = None) -> ClientAllocation:
    return ClientAllocation(
        task=t, client_index_in_task=index, global_client_index=index, total_clients=total or t.clients
    )


async def drive(t, responder, *, clock=None, run=None, control=None, index=0, on_end=None) -> TaskRun:
    clock = clock or FakeClock(START)
    run = run or make_run(t)
    control = control or StepControl(START)
    executor = ClientExecutor(
        plan=ClientPlan(client_id=index, allocations=(allocation(t, index),)),
        es=static_es(responder, clock),
        runs={t.name: run},
        control=control,
        context=RaceContext(),
        clock=clock,
        on_natural_end=on_end,
    )
    await executor.run()
    return run


def values_ms(state: RecorderState, metric: str) -> list[float]:
    hist = state.histogram(metric)
    return [
        item.value_iterated_to / 1000
        for item in hist.get_recorded_iterator()
        for _ in range(item.count_at_value_iterated_to)
    ]


def responding(
    clock: FakeClock, service_s: float, body: bytes = SEARCH_RESPONSE, stalls: dict[int, float] | None = None
):
    count = {"n": 0}

    def responder(method: str, target: str, body_in: Any) -> tuple[int, bytes]:
        count["n"] += 1
        clock.advance(service_s + (stalls or {}).get(count["n"], 0.0))
        return 200, body

    return responder, count


async def test_unthrottled_latency_equals_service_time_and_iterations_split_warmup():
    clock = FakeClock(START)
    responder, count = responding(clock, 0.004)
    t = task(op("search", body={"query": {"match_all": {}}}), warmup_iterations=3, iterations=7)
    run = await drive(t, responder, clock=clock)
    state = run.recorder.state()
    assert count["n"] == 10
    assert state.warmup_sample_count == 3 and state.sample_count == 7
    for metric in METRICS:
        assert values_ms(state, metric) == pytest.approx([4.0] * 7, abs=0.01)


async def test_throttled_latency_includes_waiting_after_a_stall():
    clock = FakeClock(START)
    # 10 requests/s, 10 ms service, request 3 stalls for 1 s
    responder, _ = responding(clock, 0.010, stalls={3: 1.0})
    t = task(op("search"), iterations=20, target_throughput=Throughput(value=10.0))
    run = await drive(t, responder, clock=clock)
    state = run.recorder.state()
    service = values_ms(state, "service_time")
    latency = values_ms(state, "latency")
    assert sorted(service) == pytest.approx([10.0] * 19 + [1010.0], rel=1e-3, abs=0.05)
    # request 3 was due at 0.2 s and ended at 1.21 s; request k > 3 (due at 0.1 * (k - 1)) then
    # starts at 1.21 + 0.01 * (k - 4): its latency 1.28 - 0.09 * k s includes the wait, which
    # is above 100 ms up to k = 13.
    assert max(latency) == pytest.approx(1010.0, rel=1e-3, abs=0.05)
    assert sorted(latency)[-11:] == pytest.approx(
        sorted([1010.0] + [1280.0 - 90.0 * k for k in range(4, 14)]), rel=1e-3, abs=0.05
    )
    assert sum(1 for v in latency if v > 100) == 11
    assert min(latency) == pytest.approx(10.0, rel=1e-3, abs=0.05)


async def test_throttled_requests_follow_the_deterministic_grid():
    clock = FakeClock(START)
    starts = []

    def responder(method, target, body):
        starts.append(clock.now())
        clock.advance(0.001)
        return 200, SEARCH_RESPONSE

    t = task(op("search"), iterations=5, clients=2, target_throughput=Throughput(value=20.0))
    await drive(t, responder, clock=clock)
    # 20 ops/s over 2 clients: every 100 ms, first request at once
    assert [round(s - START, 6) for s in starts] == [0.0, 0.1, 0.2, 0.3, 0.4]


async def test_time_period_bounds_and_warmup_by_time():
    clock = FakeClock(START)
    responder, count = responding(clock, 0.1)
    t = task(op("search"), warmup_time_period=1.0, time_period=2.0)
    run = await drive(t, responder, clock=clock)
    state = run.recorder.state()
    # requests start at 0.0, 0.1, ... ; those starting before 1.0 s are warmup; none starts at or after 3.0 s
    assert state.warmup_sample_count == 10
    assert state.sample_count == 20
    assert count["n"] == 30


async def test_ramp_up_delays_the_client_origin():
    clock = FakeClock(START)
    starts = []

    def responder(method, target, body):
        starts.append(clock.now())
        clock.advance(0.5)
        return 200, SEARCH_RESPONSE

    t = task(op("search"), clients=4, ramp_up_time_period=2.0, warmup_time_period=2.0, time_period=1.0)
    await drive(t, responder, clock=clock, index=3)
    # client 3 of 4 starts 1.5 s late; the task ends at 3.0 s for everybody
    assert [round(s - START, 6) for s in starts] == [1.5, 2.0, 2.5]


async def test_param_source_exhaustion_ends_the_task():
    class Three:
        def __init__(self, track, params, **kwargs):
            self.left = 3

        def partition(self, index, total):
            return self

        infinite = False

        def params(self):
            if not self.left:
                raise StopIteration
            self.left -= 1
            return {"body": {}, "index": "x"}

    registry = default_registry()
    registry.register_param_source("three", Three)
    t = task(op("search"))
    t = task(type(t.operation)(name="s", operation_type="search", param_source="three"), name="s")
    clock = FakeClock(START)
    responder, count = responding(clock, 0.01)
    ended = []
    run = make_run(t, registry=registry)
    await drive(t, responder, clock=clock, run=run, on_end=lambda name, cid: ended.append((name, cid)))
    assert count["n"] == 3
    assert ended == [("s", 0)]


async def test_endless_source_without_limits_runs_once():
    clock = FakeClock(START)
    responder, count = responding(clock, 0.01)
    await drive(task(op("search")), responder, clock=clock)
    assert count["n"] == 1


def test_warmup_period_without_time_period_has_no_deadline_as_in_rally():
    # Rally's TimePeriodBased(warmup, None): the block's completed-by task (or Ctrl-C) ends it.
    registry = default_registry()
    t = task(op("search"), warmup_time_period=5.0)
    run = make_run(t, registry=registry)
    assert loop_limits(t, run.runner, run.source) == (True, None, 0)
    assert unbounded(t, run.runner, run.source)
    assert not unbounded(task(op("search"), warmup_time_period=5.0, time_period=1.0), run.runner, run.source)
    with pytest.raises(ConfigError, match="at least one iteration"):
        loop_limits(task(op("search"), iterations=0), run.runner, run.source)


async def test_failed_requests_are_recorded_and_abort_on_request():
    clock = FakeClock(START)

    def responder(method, target, body):
        clock.advance(0.002)
        return 503, b'{"error":{"type":"x","reason":"busy"},"status":503}'

    t = task(op("search"), iterations=4)
    run = await drive(t, responder, clock=clock)
    state = run.recorder.state()
    assert state.sample_count == 4 and state.error_count == 4
    assert state.errors_by_type == {"503": 4}

    aborting = make_run(t, on_error="abort")
    with pytest.raises(RaceAborted, match=r"Task 'search' aborted.*503: HTTP 503: x: busy"):
        await drive(t, responder, clock=clock, run=aborting)
    assert aborting.recorder.state().error_count == 1


async def test_ignore_response_error_level_non_fatal_keeps_going():
    clock = FakeClock(START)

    def responder(method, target, body):
        return 404, b"{}"

    t = task(op("search"), iterations=3, params={"ignore-response-error-level": "non-fatal"})
    run = await drive(t, responder, clock=clock, run=make_run(t, on_error="abort"))
    assert run.recorder.state().error_count == 3


@pytest.mark.parametrize("going_on", ["continue", "continue-on-network"])
async def test_connection_errors_are_recorded_and_the_schedule_goes_on(going_on):
    # A node that resets connections for a while (issue #26): requests 3-5 fail, the client records
    # them with their reason and carries on with the rest of its iterations. Rally's spelling
    # continue-on-network means the same here.
    clock = FakeClock(START)
    calls = {"n": 0}

    def flaky(method, target, body):
        calls["n"] += 1
        clock.advance(0.01)
        if 3 <= calls["n"] <= 5:
            raise elastic_transport.ConnectionError("Connection lost: [Errno 104] Connection reset by peer")
        return 200, SEARCH_RESPONSE

    t = task(op("search"), iterations=8)
    run = await drive(t, flaky, clock=clock, run=make_run(t, on_error=going_on))
    state = run.recorder.state()
    assert calls["n"] == 8
    assert state.sample_count == 8 and state.error_count == 3
    assert state.errors_by_type == {"connection": 3}
    (described,) = state.error_descriptions
    assert described.count == 3
    assert "Connection reset by peer" in described.reason

    calls["n"] = 0
    aborting = make_run(t, on_error="abort")
    with pytest.raises(
        RaceAborted, match=r"Task 'search' aborted.*connection: connection error: Connection lost"
    ):
        await drive(t, flaky, clock=clock, run=aborting)
    assert calls["n"] == 3


async def test_tls_failures_end_the_race_whatever_on_error_says_timeouts_do_not():
    clock = FakeClock(START)

    def tls(method, target, body):
        raise elastic_transport.TlsError("certificate verify failed")

    t = task(op("search"), iterations=3)
    with pytest.raises(ConnectionFailed, match=r"TLS error: certificate verify failed.*ca_certs"):
        await drive(t, tls, clock=clock)

    def timeout(method, target, body):
        clock.advance(1.0)
        raise elastic_transport.ConnectionTimeout("timed out")

    run = await drive(t, timeout, clock=clock)
    state = run.recorder.state()
    assert state.errors_by_type == {"timeout": 3}
    assert values_ms(state, "service_time") == pytest.approx([1000.0] * 3, rel=1e-3, abs=0.5)


async def test_runner_bugs_fail_the_race_with_the_task_name():
    registry = default_registry()

    async def broken(es, params):
        raise KeyError("missing")

    registry.register_runner("broken", broken, async_runner=True)
    t = task(op("broken"))
    with pytest.raises(DriverError, match=r"Task 'broken' failed.*KeyError"):
        await drive(t, lambda *a: (200, b"{}"), run=make_run(t, registry=registry))


async def test_completion_stops_other_tasks_but_not_the_completing_one():
    clock = FakeClock(START)
    control = StepControl(START, completing_task="leader")
    responder, count = responding(clock, 0.01)
    follower = task(op("search", "follower"), iterations=100)

    calls = {"n": 0}

    def completing(method, target, body):
        calls["n"] += 1
        clock.advance(0.01)
        if calls["n"] == 5:
            control.complete()
        return 200, SEARCH_RESPONSE

    await drive(follower, completing, clock=clock, control=control)
    assert calls["n"] == 5  # stopped after its current request
    leader = task(op("search", "leader"), iterations=7)
    await drive(leader, responder, clock=clock, control=control)
    assert count["n"] == 7  # the completing task's clients finish their own work


async def test_bulk_item_errors_counted_by_status_outside_warmup():
    clock = FakeClock(START)
    failing = (
        b'{"errors":true,"took":2,"items":['
        b'{"index":{"status":201,"_shards":{"total":1,"successful":1,"failed":0}}},'
        b'{"index":{"status":409,"error":{"type":"version_conflict_engine_exception","reason":"conflict"}}},'
        b'{"index":{"status":409,"error":{"type":"version_conflict_engine_exception","reason":"conflict"}}},'
        b'{"index":{"status":400,"error":{"type":"mapper_parsing_exception","reason":"bad"}}}]}'
    )
    bodies = iter([failing, BULK_OK, failing])

    def responder(method, target, body):
        clock.advance(0.005)
        return 200, next(bodies)

    class Bodies:
        def __init__(self, track, params, **kwargs):
            self.n = 0

        def partition(self, index, total):
            return self

        infinite = False

        def params(self):
            self.n += 1
            if self.n > 3:
                raise StopIteration
            return {"body": b"{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n", "bulk-size": 4, "unit": "docs"}

    registry = default_registry()
    registry.register_param_source("bodies", Bodies)
    operation = type(op("bulk"))(name="bulk", operation_type="bulk", param_source="bodies")
    t = task(operation, warmup_iterations=1, iterations=2)
    run = make_run(t, registry=registry)
    await drive(t, responder, clock=clock, run=run)
    state = run.recorder.state()
    assert state.sample_count == 2 and state.error_count == 1
    assert state.total_weight == 8  # docs of both measured requests, the failed one included
    assert state.throughput_unit == "docs/s"
    assert run.item_errors == {"409": 2, "400": 1}  # the warmup bulk is not counted


async def test_sleep_without_request_uses_processing_time():
    clock = FakeClock(START)
    registry = default_registry()

    async def local_work(es, params):
        clock.advance(0.25)
        return 3, "widgets"

    registry.register_runner("local", local_work, async_runner=True)
    t = task(op("local"), iterations=2)
    run = make_run(t, registry=registry)
    await drive(t, lambda *a: (200, b"{}"), clock=clock, run=run)
    state = run.recorder.state()
    assert values_ms(state, "service_time") == pytest.approx([250.0, 250.0], rel=1e-3)
    assert state.total_weight == 6 and state.throughput_unit == "widgets/s"


# ------------------------------------------------------------------ throttling and time periods


def _guard(count: dict[str, int], limit: int = 5000) -> None:
    # Without a working stop rule the loop would never end: fail the test instead of hanging.
    if count["n"] > limit:
        raise RuntimeError("the client did not stop")


def _starts(clock: FakeClock, status: int, service_s: float, body: bytes = b"{}"):
    starts: list[float] = []
    count = {"n": 0}

    def responder(method, target, body_in):
        count["n"] += 1
        _guard(count)
        starts.append(clock.now() - START)
        clock.advance(service_s)
        return status, body

    return responder, starts


async def test_ops_target_throttles_failed_requests_and_ends_on_time():
    clock = FakeClock(START)
    responder, starts = _starts(clock, 503, 0.001, b'{"error":"busy"}')
    t = task(op("search"), time_period=1.0, target_throughput=Throughput(value=10.0))
    run = await drive(t, responder, clock=clock)
    state = run.recorder.state()
    # every request failed (weight 0) and still follows the 10 ops/s grid
    assert [round(s, 6) for s in starts] == [round(0.1 * k, 6) for k in range(10)]
    assert state.error_count == 10
    assert values_ms(state, "latency") == pytest.approx([1.0] * 10, abs=0.01)


async def test_unit_target_runs_unthrottled_until_a_weight_and_ends_on_time():
    clock = FakeClock(START)
    service = 2**-10  # exact in binary: 1024 back-to-back requests fill the second exactly
    responder, starts = _starts(clock, 429, service, b'{"error":"too many"}')
    t = _bulk_task(time_period=1.0, target_throughput=Throughput(value=1000.0, unit="docs/s"))
    run = make_run(t, registry=_bulk_registry())
    await drive(t, responder, clock=clock, run=run)
    state = run.recorder.state()
    # no response ever reported a weight: unthrottled (back to back) until the time period ends
    assert len(starts) == 1024 and state.error_count == 1024
    assert clock.now() == START + 1.0
    # latency = service time while unthrottled, it does not grow
    assert max(values_ms(state, "latency")) == pytest.approx(service * 1000, abs=0.01)


async def test_unit_target_throttles_from_the_first_weight_without_a_catch_up_burst():
    clock = FakeClock(START)
    starts: list[float] = []
    calls = {"n": 0}

    def responder(method, target, body_in):
        calls["n"] += 1
        _guard(calls)
        starts.append(clock.now() - START)
        clock.advance(0.001)
        if calls["n"] <= 300:  # 0.3 s of rejected bulks, then accepted ones
            return 429, b'{"error":"too many"}'
        return 200, BULK_OK

    # 1000 docs/s with bulks of 4 docs: 250 bulks/s, one every 4 ms
    t = _bulk_task(iterations=310, target_throughput=Throughput(value=1000.0, unit="docs/s"))
    run = make_run(t, registry=_bulk_registry())
    await drive(t, responder, clock=clock, run=run)
    state = run.recorder.state()
    first_ok = starts[300]
    assert first_ok == pytest.approx(0.3)
    # from the first accepted bulk on, requests are 4 ms apart, counted from that bulk
    assert starts[301:] == pytest.approx([first_ok + 0.004 * k for k in range(1, 10)])
    assert max(values_ms(state, "latency")) == pytest.approx(1.0, abs=0.01)


async def test_a_throttled_client_that_falls_behind_stops_at_the_end_of_the_time_period():
    clock = FakeClock(START)
    responder, starts = _starts(clock, 200, 0.5, SEARCH_RESPONSE)
    t = task(op("search"), time_period=1.0, target_throughput=Throughput(value=10.0))
    await drive(t, responder, clock=clock)
    # due at 0.0 and 0.1, started at 0.0 and 0.5; at 1.0 the period is over although the next
    # request (due 0.2) is late
    assert starts == pytest.approx([0.0, 0.5])
    assert clock.now() == pytest.approx(START + 1.0)


class _SlowParams:
    """Params that take 30 ms (simulated) to build, like a large bulk body."""

    clock: FakeClock | None = None
    limit = 5

    def __init__(self, track, params, **kwargs):
        self.n = 0

    def partition(self, index, total):
        return self

    infinite = False

    def params(self):
        self.n += 1
        if self.n > self.limit:
            raise StopIteration
        self.clock.advance(0.03)
        return {"body": b"{}\n{}\n", "bulk-size": 1, "unit": "docs"}


def _bulk_registry(source: Any = None):
    registry = default_registry()
    registry.register_param_source("bodies", source or _FourDocs)
    return registry


class _FourDocs:
    def __init__(self, track, params, **kwargs):
        pass

    def partition(self, index, total):
        return self

    infinite = True

    def params(self):
        return {"body": b"{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n", "bulk-size": 4, "unit": "docs"}


def _bulk_task(**fields):
    operation = type(op("bulk"))(name="bulk", operation_type="bulk", param_source="bodies")
    return task(operation, **fields)


async def test_params_are_built_before_the_schedule_wait():
    clock = FakeClock(START)
    _SlowParams.clock = clock
    _SlowParams.limit = 5
    responder, starts = _starts(clock, 200, 0.01, BULK_OK)
    t = _bulk_task(target_throughput=Throughput(value=10.0))
    run = make_run(t, registry=_bulk_registry(_SlowParams))
    await drive(t, responder, clock=clock, run=run)
    # the first request waits for its params; the next ones start on the 10 ops/s grid because
    # their params were built while the client waited
    assert starts == pytest.approx([0.03, 0.1, 0.2, 0.3, 0.4])
    latencies = values_ms(run.recorder.state(), "latency")
    assert latencies == pytest.approx([10.0] * 5, abs=0.01)


async def test_param_source_end_before_the_wait_ends_the_allocation_at_once():
    clock = FakeClock(START)
    _SlowParams.clock = clock
    _SlowParams.limit = 2
    responder, starts = _starts(clock, 200, 0.01, BULK_OK)
    t = _bulk_task(target_throughput=Throughput(value=10.0))
    run = make_run(t, registry=_bulk_registry(_SlowParams))
    ended = []
    await drive(t, responder, clock=clock, run=run, on_end=lambda name, cid: ended.append(name))
    assert starts == pytest.approx([0.03, 0.1])
    # the third request (due at 0.2) never waited: the source ended right after the second one
    assert clock.now() == pytest.approx(START + 0.11)
    assert ended == ["bulk"]


def test_task_run_reuses_its_unused_recorder():
    registry = default_registry()
    t = task(op("search"), iterations=1)
    run = TaskRun(
        task=t,
        runner=registry.runner("search"),
        source=registry.param_source(t, track()),
        schedulers=registry.schedulers,
    )
    unused = run.recorder
    run.start(START)
    assert run.recorder is unused and run.recorder.state().origin == START
    run.recorder.record(warmup=False, end=START + 0.5, service_time=0.1, latency=0.1, processing_time=0.1)
    run.start(START + 10)  # a recorder with samples is never reused
    assert run.recorder is not unused and run.recorder.count == 0


async def test_a_short_throttled_task_spans_its_whole_period_and_counts_both_windows():
    # Issue #26: 2 s at 80 ops/s; request 60 (due at 0.7375 s) stalls for 0.5 s, past the first
    # second, and the client catches up in the second one. The client waits for the end of the
    # period after its last request, so both 1-second windows are complete and the task reports
    # what it sent (160 requests in 2 s), not its first second alone (~60 ops/s).
    clock = FakeClock(START)
    calls = {"n": 0}

    def responder(method, target, body_in):
        calls["n"] += 1
        clock.advance(0.5 if calls["n"] == 60 else 0.001)
        return 200, SEARCH_RESPONSE

    t = task(op("search"), time_period=2.0, target_throughput=Throughput(value=80.0))
    run = await drive(t, responder, clock=clock)
    assert calls["n"] == 160
    assert (run.first_start, run.last_end) == (START, START + 2.0)
    result = task_result(run.recorder.state(), task_start=run.first_start, task_end=run.last_end)
    assert len(result.throughput_windows) == 2
    assert result.throughput_windows[0] < 61  # the stall
    assert result.throughput_median == pytest.approx(80.0)


async def test_a_client_that_wakes_late_still_starts_its_task_at_the_step_start():
    # A busy machine let the worker begin 0.3 s after the step start: the task's span (and so its
    # first window) still begins at the step start, where its schedule is anchored, and the
    # requests it owes are sent at once (their latency includes the wait).
    clock = FakeClock(START + 0.3)
    responder, starts = _starts(clock, 200, 0.001, SEARCH_RESPONSE)
    t = task(op("search"), time_period=2.0, target_throughput=Throughput(value=10.0))
    run = await drive(t, responder, clock=clock)
    assert run.first_start == START and run.last_end == START + 2.0
    assert len(starts) == 20
    result = task_result(run.recorder.state(), task_start=run.first_start, task_end=run.last_end)
    assert result.throughput_windows == pytest.approx((10.0, 10.0))


async def test_each_client_notes_the_span_of_its_requests_rally_measures_a_short_task_by():
    # Rally's AsyncExecutor takes its client's start before the ramp-up wait; its throughput
    # interval is made of the first request's start and end and the last request's start.
    clock = FakeClock(START)
    responder, starts = _starts(clock, 200, 0.25, SEARCH_RESPONSE)
    t = task(op("search"), clients=4, ramp_up_time_period=2.0, warmup_iterations=1, iterations=2)
    run = await drive(t, responder, clock=clock, index=2)  # client 2 of 4 starts 1 s late
    span = run.recorder.state().request_span
    assert starts == [1.0, 1.25, 1.5]
    assert span is not None
    assert (span.first_start, span.first_lead_s, span.last_start) == (START + 1.0, 1.25, START + 1.5)
    result = task_result(run.recorder.state(), task_start=START, task_end=clock.now())
    assert result.throughput_windows == (pytest.approx(3 / (0.5 + 1.25)),)


async def test_a_client_that_sends_nothing_notes_no_span():
    clock = FakeClock(START)
    control = StepControl(START)
    control.cancel()
    run = await drive(
        task(op("search"), iterations=3), lambda *a: (200, SEARCH_RESPONSE), clock=clock, control=control
    )
    assert run.recorder.state().request_span is None


async def test_a_later_allocation_starts_its_client_when_the_previous_one_ends():
    # A client capped by ``clients`` runs one allocation after the other: the second begins when
    # the first ends (3 s in), however short the ramp-up wait it would have had from the step start.
    clock = FakeClock(START)
    responder, starts = _starts(clock, 200, 0.25, SEARCH_RESPONSE)
    first = task(op("search"), name="first", iterations=12)
    later = task(op("search"), name="later", clients=4, ramp_up_time_period=2.0, iterations=2)
    runs = {t.name: make_run(t) for t in (first, later)}
    executor = ClientExecutor(
        plan=ClientPlan(client_id=2, allocations=(allocation(first, 0), allocation(later, 2))),
        es=static_es(responder, clock),
        runs=runs,
        control=StepControl(START),
        context=RaceContext(),
        clock=clock,
    )
    await executor.run()
    assert starts[12:] == [3.0, 3.25]
    span = runs["later"].recorder.state().request_span
    assert span is not None
    assert (span.first_start, span.first_lead_s, span.last_start) == (START + 3.0, 0.25, START + 3.25)
