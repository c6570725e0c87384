"""Measurement fidelity: what the driver reports against a loopback server with known delays.

These assert the measurement logic (what is timed, from which point), not the machine's speed:
the server's delays are long compared to loopback and scheduling noise.

Each test separates two kinds of claims. Lower bounds and counts (a stalled request shows in latency,
service time never falls below the server's delay) hold on any machine and are checked on every
run. Upper bounds (how close to the delay, how close to the target rate) can be broken by another
process taking the CPU for a moment, so a run that breaks only those is repeated, up to
:data:`quiet.ATTEMPTS` runs; a wrong measurement breaks them on every run and still fails.
"""

from __future__ import annotations

import socket
import statistics
import time

import pytest
from driver_helpers import SEARCH_RESPONSE, StubProcess, challenge, op, task, track
from quiet import until_quiet

from esbench.driver.coordinator.run import DriverSettings, run_challenge, tasks_of
from esbench.driver.transport.client import ClientOptions
from esbench.track.model import Throughput

#: Measured against the clock: tests/run runs these alone, after the other tests.
pytestmark = pytest.mark.timing

SETTINGS = DriverSettings(workers=1, task_pause_s=0)


def run(stub: StubProcess, t):
    outcome = run_challenge(
        track=track(),
        challenge=challenge(t),
        hosts=[stub.host],
        client_options=ClientOptions(timeout=10),
        settings=SETTINGS,
        corpora=None,
    )
    assert outcome.status == "completed", outcome.error
    return tasks_of(outcome)[t.name]


def blocking_client_p50_ms(stub: StubProcess, requests: int = 100) -> float:
    """What a minimal blocking socket client measures against the stub (the machine's floor)."""
    request = b"GET /idx/_search HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}"
    times = []
    with socket.create_connection(("127.0.0.1", stub.port)) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(requests):
            start = time.perf_counter()
            s.sendall(request)
            data = b""
            while not data.endswith(SEARCH_RESPONSE):
                data += s.recv(65536)
            times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def test_service_time_matches_the_servers_delay():
    def measure():
        with StubProcess(delay=0.010) as stub:
            floor = blocking_client_p50_ms(stub)
            result = run(
                stub,
                task(op("search", body={"query": {"match_all": {}}}), warmup_iterations=10, iterations=150),
            )
        return floor, result

    def always(measured):
        _, result = measured
        assert result.sample_count == 150 and result.error_count == 0
        assert result.service_time_ms["50"] >= 10.0  # never below the server's delay
        # unthrottled: latency is service time
        assert result.latency_ms["50"] == result.service_time_ms["50"]
        # processing time adds the client's own work on top of the wire time
        assert result.processing_time_ms["50"] >= result.service_time_ms["50"]

    def when_quiet(measured):
        floor, result = measured
        # Within 1 ms of the delay - or, on a machine so busy that even a blocking socket client
        # sees more, within 0.5 ms of what that client sees.
        assert result.service_time_ms["50"] <= max(11.0, floor + 0.5)

    until_quiet(measure, always, when_quiet)


def test_latency_includes_waiting_after_a_stall_service_time_does_not():
    t = task(op("search", body={}), iterations=400, target_throughput=Throughput(value=100.0))

    def measure():
        with StubProcess(delay=0.002, stalls={60: 1.0}) as stub:  # request 60 takes one second more
            return run(stub, t)

    def always(result):
        assert result.sample_count == 400
        # After the stall the client is ~1 s behind its schedule; the requests that were due
        # meanwhile start late and their latency includes that wait (no coordinated omission).
        assert result.latency_ms["99"] >= 900.0
        assert result.latency_ms["100"] >= 1000.0
        assert result.service_time_ms["100"] >= 1000.0  # the stalled request itself
        # about a third of the requests were late
        assert result.latency_ms["90"] >= 100.0

    def when_quiet(result):
        # ...while the wire time of the others stays near the server's 2 ms
        assert result.service_time_ms["99"] <= 30.0
        assert result.latency_ms["90"] >= 10 * result.service_time_ms["90"]

    until_quiet(measure, always, when_quiet)


def test_throughput_at_a_target_of_200_ops():
    t = task(
        op("search", body={}),
        clients=2,
        warmup_time_period=0.5,
        time_period=4.0,
        target_throughput=Throughput(value=200.0),
    )

    def measure():
        with StubProcess(delay=0.001) as stub:
            return run(stub, t)

    def always(result):
        assert len(result.throughput_windows) >= 3
        # a throttled client never runs ahead of its schedule
        assert max(result.throughput_windows) <= 200.0 * 1.05

    def when_quiet(result):
        assert abs(statistics.median(result.throughput_windows) - 200.0) <= 4.0
        assert abs(result.throughput_median - 200.0) <= 4.0

    until_quiet(measure, always, when_quiet)
