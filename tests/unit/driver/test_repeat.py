"""The connection repeats a client's prepared request (esbench.driver.transport.repeat): it records
each whole response and sends the request again as the executor's loop would, and hands the
request back to the client's task at every limit and on every response the executor must see.

These run on the core in use (C when built); the last test runs them once more on the Python core
(``ESBENCH_PURE_PYTHON=1``), as ``test_connection_equivalence.py`` does for the transport's tests.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import elastic_transport
import pytest
from driver_helpers import SEARCH_RESPONSE, op, task, track
from harness import core_env
from scripted_http import ok

from esbench.driver.plan import ClientAllocation, ClientPlan
from esbench.driver.transport import connectioncore
from esbench.driver.transport.rawhttp import RawHttpTransport
from esbench.driver.transport.repeat import Repeat, current_repeat
from esbench.driver.transport.timing import RequestTiming, current_timing
from esbench.driver.worker.context import RaceContext
from esbench.driver.worker.executor import ClientExecutor, StepControl
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.runners.search import Search
from esbench.driver.worker.taskrun import TaskRun
from esbench.metrics.recorder import PROCESSING_TIME
from esbench.track.model import Throughput

TARGET = "/i/_search"
BODY = b'{"query":{"match_all":{}}}'
HEADERS = {"content-type": "application/json"}
ANSWER = ok(b'{"hits":1}')
INF = float("inf")


class Flags:
    """The step's stop flags, as a StepControl has them."""

    cancelled = False
    completed = False


class Samples:
    """A recorder's ``record``: keeps every sample it is given."""

    def __init__(self, on_record: Any = None) -> None:
        self.rows: list[dict[str, Any]] = []
        self.on_record = on_record

    def record(self, **sample: Any) -> None:
        self.rows.append(sample)
        if self.on_record is not None:
            self.on_record(len(self.rows))


def _repeat(samples: Samples, flags: Any = None, **limits: Any) -> Any:
    fields = {"total": -1, "deadline": INF, "time_based": False, "warmup_end": 0.0, "warmup_iterations": 0}
    return Repeat(samples.record, flags or Flags(), **{**fields, **limits})


async def _send(transport: RawHttpTransport) -> Any:
    return await transport.request("POST", TARGET, body=BODY, headers=HEADERS)


async def _primed(serve: Any, handler: Any, **options: Any) -> tuple[Any, RawHttpTransport, RequestTiming]:
    """A server, a transport whose previous request is ours (sent by the general path), a timing."""
    server = await serve(handler)
    transport = RawHttpTransport([server.url], {}, **options)
    timing = RequestTiming()
    current_timing.set(timing)
    await _send(transport)
    timing.reset()
    return server, transport, timing


async def test_the_connection_repeats_up_to_the_iteration_limit_and_hands_back_the_last(serve):
    server, transport, timing = await _primed(serve, lambda req: ANSWER)
    samples = Samples()
    repeat = _repeat(samples, total=10, warmup_iterations=4)
    current_repeat.set(repeat)
    repeat.iterations = 1  # the first request went through the executor
    response = await _send(transport)
    assert response.status == 200 and response.body == b'{"hits":1}'
    # Requests 2..9 were recorded by the connection; the 10th is the caller's to account.
    assert len(server.requests) == 10 and server.connections == 1
    assert repeat.iterations == 9 and len(samples.rows) == 8
    assert [row["warmup"] for row in samples.rows] == [True] * 3 + [False] * 5  # iterations 1-3 < 4
    wire = server.requests[0]
    assert all(r == wire for r in server.requests)
    for row in samples.rows:
        assert row["success"] is True and row["weight"] == 1.0 and row["error_type"] is None
        assert row["sent"] == len(wire) and row["received"] == len(ANSWER)
        assert row["latency"] == row["service_time"] > 0.0
        assert row["processing_time"] >= row["service_time"]
    ends = [row["end"] for row in samples.rows]
    assert ends == sorted(ends) and len(set(ends)) == len(ends)
    # The handed-back request is the only one in the client's timing, and it started last.
    assert timing.sent == len(wire) and timing.received == len(ANSWER)
    assert timing.start == repeat.last_start > ends[-1]
    assert len(transport._idle[0]) == 1 and transport._idle[0][0]._repeat is None
    await transport.close()


async def test_a_response_of_400_or_more_goes_back_to_the_client(serve):
    statuses = iter([200, 200, 200, 200, 429, 200])

    def handler(req: bytes) -> bytes:
        status = next(statuses)
        return ANSWER if status == 200 else b"HTTP/1.1 429 Too Many Requests\r\ncontent-length: 2\r\n\r\n{}"

    server, transport, _ = await _primed(serve, handler)
    samples = Samples()
    current_repeat.set(_repeat(samples))
    response = await _send(transport)
    assert response.status == 429
    assert len(samples.rows) == 3 and len(server.requests) == 5  # 2-4 recorded, the 5th returned
    await transport.close()


@pytest.mark.parametrize("flag", ["cancelled", "completed"])
async def test_a_stop_flag_hands_the_next_response_back(serve, flag):
    server, transport, _ = await _primed(serve, lambda req: ANSWER)
    flags = Flags()
    samples = Samples(on_record=lambda n: setattr(flags, flag, n >= 5))
    current_repeat.set(_repeat(samples, flags))
    assert (await _send(transport)).status == 200
    assert len(samples.rows) == 5 and len(server.requests) == 7  # 1 + 5 recorded + the handed-back one
    await transport.close()


async def test_no_request_starts_once_the_deadline_is_seen_and_warmup_is_by_start_time(serve):
    # The clocks move at points of a request's life, so the outcome does not depend on the
    # machine's speed: the warmup end while the server holds request 4 (after its start, before
    # its end), the deadline from inside record(), which runs after the check of the response it
    # records and before the next request starts. As in the executor's loop, the deadline is
    # checked when a response is whole; the request the check let through may start just after it,
    # and is the one handed back.
    repeat: Any = None
    served = {"n": 0}

    def answer(req: bytes) -> bytes:
        served["n"] += 1
        if served["n"] == 4:
            repeat.warmup_end = time.perf_counter()
        # A repeat that ignored the deadline would go on for ever: end it with an error instead.
        return ANSWER if served["n"] < 20 else b"HTTP/1.1 503 Busy\r\ncontent-length: 2\r\n\r\n{}"

    def move_deadline(rows: int) -> None:
        if rows == 4:
            repeat.deadline = time.perf_counter()

    server, transport, _ = await _primed(serve, answer)
    samples = Samples(on_record=move_deadline)
    repeat = _repeat(samples, time_based=True, warmup_end=INF, deadline=INF)
    current_repeat.set(repeat)
    await _send(transport)
    starts = [row["end"] - row["service_time"] for row in samples.rows]
    ends = [row["end"] for row in samples.rows]
    assert len(samples.rows) == 4 and len(server.requests) == 6  # primed + 4 recorded + handed back
    # Request 4 (the third recorded) started before the warmup end and ended after it.
    assert starts[2] < repeat.warmup_end < ends[2]
    assert [row["warmup"] for row in samples.rows] == [True, True, True, False]
    assert all(start < repeat.deadline for start in starts) and repeat.last_start > repeat.deadline
    await transport.close()


async def test_responses_the_python_parser_completes_are_repeated_too(serve):
    chunked = b'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n7\r\n{"c":1}\r\n0\r\n\r\n'
    server, transport, _ = await _primed(serve, lambda req: chunked)
    samples = Samples()
    repeat = _repeat(samples, total=5)
    current_repeat.set(repeat)
    repeat.iterations = 1
    assert (await _send(transport)).body == b'{"c":1}'
    assert len(samples.rows) == 3 and len(server.requests) == 5
    assert all(row["received"] == len(chunked) for row in samples.rows)
    await transport.close()


async def test_a_response_that_closes_the_connection_goes_back_to_the_client(serve):
    closing = b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\n{}"
    answers = iter([ANSWER, ANSWER, ANSWER, (closing, "close"), ANSWER])
    server, transport, _ = await _primed(serve, lambda req: next(answers))
    samples = Samples()
    current_repeat.set(_repeat(samples))
    assert (await _send(transport)).body == b"{}"
    assert len(samples.rows) == 2 and transport._idle[0] == [] and len(server.requests) == 4
    await transport.close()


async def test_nothing_is_repeated_without_a_repeat_or_with_several_nodes(serve):
    server, transport, _ = await _primed(serve, lambda req: ANSWER)
    current_repeat.set(None)
    for _ in range(5):
        await _send(transport)
    assert len(server.requests) == 6
    a = await serve(lambda req: ok(b"a"))
    b = await serve(lambda req: ok(b"b"))
    two = RawHttpTransport([a.url, b.url], {})
    samples = Samples()
    current_repeat.set(_repeat(samples))
    bodies = [(await _send(two)).body for _ in range(8)]
    assert bodies == [b"a", b"b"] * 4 and samples.rows == []
    await transport.close()
    await two.close()


async def test_a_failing_record_fails_the_request_and_drops_the_connection(serve):
    server, transport, _ = await _primed(serve, lambda req: ANSWER)

    def broken(n: int) -> None:
        if n == 3:
            raise RuntimeError("the recorder broke")

    current_repeat.set(_repeat(Samples(on_record=broken)))
    with pytest.raises(RuntimeError, match="the recorder broke"):
        await _send(transport)
    assert transport._idle[0] == [] and len(server.requests) == 4  # nothing sent after the failure
    await transport.close()


async def test_a_repeated_head_request_expects_no_body_each_time(serve):
    # The answer announces a length but HEAD responses carry no body: a repeat that forgot the
    # request was a HEAD would wait for 10 bytes that never come.
    server = await serve(lambda req: b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n")
    transport = RawHttpTransport([server.url], {}, timeout=2.0)
    await transport.request("HEAD", "/i")
    samples = Samples()
    repeat = _repeat(samples, total=5)
    current_repeat.set(repeat)
    repeat.iterations = 1
    response = await transport.request("HEAD", "/i")
    assert response.status == 200 and response.body == b""
    assert len(samples.rows) == 3 and len(server.requests) == 5
    await transport.close()


async def test_a_stop_flag_that_cannot_be_read_fails_the_request(serve):
    server, transport, _ = await _primed(serve, lambda req: ANSWER)

    class Unreadable:
        completed = False

        @property
        def cancelled(self) -> bool:
            raise LookupError("no flag here")

    current_repeat.set(_repeat(Samples(), Unreadable()))
    with pytest.raises(LookupError, match="no flag here"):
        await _send(transport)
    assert transport._idle[0] == [] and len(server.requests) == 2
    await transport.close()


async def test_a_request_cancelled_while_repeating_does_not_return_its_connection(serve):
    answers = iter([ANSWER] * 5 + [[b""]])  # the 6th request hangs
    server, transport, _ = await _primed(serve, lambda req: next(answers))
    samples = Samples()
    current_repeat.set(_repeat(samples))
    pending = asyncio.ensure_future(_send(transport))
    while len(server.requests) < 6:
        await asyncio.sleep(0.001)
    pending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await pending
    assert len(samples.rows) == 4 and transport._idle[0] == []
    await transport.close()


async def test_a_repeated_request_times_out_at_its_own_deadline(serve):
    answers = iter([ANSWER] * 4 + [[b""]])  # the 5th request hangs
    server, transport, timing = await _primed(serve, lambda req: next(answers), timeout=0.3)
    samples = Samples()
    repeat = _repeat(samples)
    current_repeat.set(repeat)
    with pytest.raises(elastic_transport.ConnectionTimeout):
        await _send(transport)
    assert len(samples.rows) == 3 and len(server.requests) == 5
    assert timing.start == repeat.last_start  # the hung request, not the first of the call
    assert 0.3 <= timing.end - timing.start < 0.5
    assert transport._idle[0] == []
    await transport.close()


# ------------------------------------------------------------------------------ the executor


def _run(t: Any) -> TaskRun:
    registry = default_registry()
    run = TaskRun(
        task=t,
        runner=registry.runner(t.operation.operation_type),
        source=registry.param_source(t, track()),
        schedulers=registry.schedulers,
    )
    return run


async def _drive(t: Any, server: Any, *, control: StepControl | None = None) -> tuple[TaskRun, list[bool]]:
    run = _run(t)
    control = control or StepControl(time.perf_counter())
    run.start(control.start_at)
    ends: list[bool] = []
    es = SimpleNamespace(http=RawHttpTransport([server.url], {}))
    executor = ClientExecutor(
        plan=ClientPlan(
            client_id=0,
            allocations=(
                ClientAllocation(task=t, client_index_in_task=0, global_client_index=0, total_clients=1),
            ),
        ),
        es=es,
        runs={t.name: run},
        control=control,
        context=RaceContext(),
        on_natural_end=lambda name, client: ends.append(True),
    )
    await executor.run()
    await es.http.close()
    return run, ends


@pytest.fixture
def runner_calls(monkeypatch):
    """Counts the calls of the built-in search runner."""
    calls = {"n": 0}
    original = Search.__call__

    async def counted(self, es, params):
        calls["n"] += 1
        return await original(self, es, params)

    monkeypatch.setattr(Search, "__call__", counted)
    return calls


async def test_the_executor_records_every_request_of_an_iteration_based_task(serve, runner_calls):
    server = await serve(lambda req: ANSWER)
    t = task(op("search", body={"query": {"match_all": {}}}), warmup_iterations=3, iterations=40)
    run, ends = await _drive(t, server)
    state = run.recorder.state()
    assert state.warmup_sample_count == 3 and state.sample_count == 40
    assert len(server.requests) == 43 and ends == [True]
    # The first call builds the request (general path); the second carries all the others.
    assert runner_calls["n"] == 2


async def test_with_a_repeat_the_span_still_runs_from_the_first_request_to_the_last(serve, runner_calls):
    # The first request goes through the executor's loop, the repeat sends the rest; Rally's
    # interval (TaskRecorder.note_client) needs the first one's end and the last one's start.
    server = await serve(lambda req: ANSWER)
    control = StepControl(time.perf_counter())
    t = task(op("search", body={"query": {"match_all": {}}}), iterations=30)
    run, _ = await _drive(t, server, control=control)
    state = run.recorder.state()
    span = state.request_span
    assert span is not None and runner_calls["n"] == 2
    longest_s = state.histogram(PROCESSING_TIME).get_max_value() / 1e6 + 1e-6
    assert control.start_at <= span.first_start < span.last_start < state.last_end
    # the last start is the 30th request's, not the first call's: its response ends within one request
    assert state.last_end - span.last_start <= longest_s
    # the first request's time since its client's start: one request and the loop's set-up
    assert 0 < span.first_lead_s <= longest_s + (span.first_start - control.start_at)


async def test_the_executor_records_every_request_of_a_time_based_task(serve, runner_calls):
    server = await serve(lambda req: ANSWER)
    t = task(op("search"), warmup_time_period=0.1, time_period=0.2)
    run, _ = await _drive(t, server)
    state = run.recorder.state()
    assert state.warmup_sample_count > 0 and state.sample_count > 0
    assert state.warmup_sample_count + state.sample_count == len(server.requests)
    assert runner_calls["n"] < len(server.requests) / 10


async def test_failed_requests_between_repeats_are_accounted_by_the_executor(serve, runner_calls):
    count = {"n": 0}

    def handler(req: bytes) -> bytes:
        count["n"] += 1
        if count["n"] in (10, 20):
            return b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 2\r\n\r\n{}"
        return ANSWER

    server = await serve(handler)
    t = task(op("search"), iterations=30)
    run, _ = await _drive(t, server)
    state = run.recorder.state()
    assert state.sample_count == 30 and state.error_count == 2
    assert len(server.requests) == 30 and runner_calls["n"] == 4  # first, up to 10, up to 20, rest


async def test_completion_by_another_task_stops_a_repeating_client(serve):
    server = await serve(lambda req: ANSWER)
    control = StepControl(time.perf_counter(), completing_task="other")
    asyncio.get_running_loop().call_later(0.1, control.complete)
    t = task(op("search"), time_period=30.0)
    run, ends = await _drive(t, server, control=control)
    state = run.recorder.state()
    assert ends == []  # stopped by completion, not by its own limit
    assert state.sample_count == len(server.requests) > 1


@pytest.mark.parametrize(
    "operation, fields",
    [
        (op("search", detailed_results=True), {}),
        (op("search"), {"target_throughput": Throughput(value=2000.0)}),
    ],
    ids=["detailed-results", "throttled"],
)
async def test_requests_the_executor_must_see_are_not_repeated(serve, runner_calls, operation, fields):
    server = await serve(lambda req: ok(SEARCH_RESPONSE))
    t = task(operation, iterations=12, **fields)
    run, _ = await _drive(t, server)
    assert run.recorder.state().sample_count == 12
    assert runner_calls["n"] == len(server.requests) == 12


# --------------------------------------------------------------------------- who gets a repeat


def _repeat_of(t: Any, registry: Any = None, clock: Any = None) -> Any:
    from esbench.driver.worker.clock import SystemClock
    from esbench.driver.worker.loopsetup import loop_setup
    from esbench.driver.worker.repeating import repeat_for

    registry = registry or default_registry()
    run = TaskRun(
        task=t,
        runner=registry.runner(t.operation.operation_type),
        source=registry.param_source(t, track()),
        schedulers=registry.schedulers,
    )
    alloc = ClientAllocation(task=t, client_index_in_task=0, global_client_index=0, total_clients=1)
    setup = loop_setup(alloc, run, start_at=100.0)
    return repeat_for(setup, run.runner, Samples().record, Flags(), clock or SystemClock())


def test_a_plain_search_gets_a_repeat_with_the_allocations_limits():
    repeat = _repeat_of(task(op("search"), warmup_iterations=5, iterations=50))
    # The loop's limit counts the warmup iterations too.
    assert (repeat.total, repeat.warmup_iterations, repeat.deadline, repeat.time_based) == (55, 5, INF, False)
    timed = _repeat_of(task(op("search"), warmup_time_period=2.0, time_period=10.0))
    assert (timed.total, timed.time_based, timed.warmup_end, timed.deadline) == (-1, True, 102.0, 112.0)


def test_no_repeat_for_a_plugins_param_source_or_runner_or_a_simulated_clock():
    from driver_helpers import FakeClock

    def params(track: Any, params: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {"index": "idx", "body": {"query": {"match_all": {}}}}

    plugin_source = default_registry()
    plugin_source.register_param_source("mine", params)
    from esbench.track.model import Operation

    sourced = Operation(
        name="s", operation_type="search", params={}, param_source="mine", include_in_reporting=True
    )
    assert _repeat_of(task(sourced, iterations=5), plugin_source) is None

    class MySearch(Search):
        pass

    plugin_runner = default_registry()
    plugin_runner.register_runner("search", MySearch(), async_runner=True)
    assert _repeat_of(task(op("search"), iterations=5), plugin_runner) is None
    assert _repeat_of(task(op("search"), iterations=5), clock=FakeClock()) is None
    assert _repeat_of(task(op("search", pages=2), iterations=5)) is None


# ------------------------------------------------------------------------------- both cores


def test_these_tests_pass_on_the_python_core() -> None:
    if not connectioncore.COMPILED:
        pytest.skip("the C extension is not built here: this run is already the Python core's")
    env = core_env(pure=True)
    env.pop("COV_CORE_SOURCE", None)  # no coverage collection in the child
    here = Path(__file__).resolve()
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-cov", here.name],
        cwd=here.parent,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout
