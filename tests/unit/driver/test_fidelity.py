"""Measurement fidelity: what the driver reports against a loopback server with known delays.

These assert the measurement logic (what is timed, from which point), not the machine's speed:
the server's delays are long compared to loopback and scheduling noise.
"""

from __future__ import annotations

import socket
import statistics
import time

from driver_helpers import SEARCH_RESPONSE, StubProcess, challenge, op, task, track

from esbench.driver.client import ClientOptions
from esbench.driver.driver import DriverSettings, run_challenge, tasks_of
from esbench.track.model import Throughput

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
    with StubProcess(delay=0.010) as stub:
        floor = blocking_client_p50_ms(stub)
        result = run(
            stub, task(op("search", body={"query": {"match_all": {}}}), warmup_iterations=10, iterations=150)
        )
    assert result.sample_count == 150 and result.error_count == 0
    # Never below the server's delay; within 1 ms of it - or, on a machine so busy that even a
    # blocking socket client sees more, within 0.5 ms of what that client sees.
    assert 10.0 <= result.service_time_ms["50"] <= max(11.0, floor + 0.5)
    # unthrottled: latency is service time
    assert result.latency_ms["50"] == result.service_time_ms["50"]
    # processing time adds the client's own work on top of the wire time
    assert result.processing_time_ms["50"] >= result.service_time_ms["50"]


def test_latency_includes_waiting_after_a_stall_service_time_does_not():
    t = task(op("search", body={}), iterations=400, target_throughput=Throughput(value=100.0))
    with StubProcess(delay=0.002, stalls={60: 1.0}) as stub:  # request 60 takes one second more
        result = run(stub, t)
    assert result.sample_count == 400
    # After the stall the client is ~1 s behind its schedule; the requests that were due
    # meanwhile start late and their latency includes that wait (no coordinated omission).
    assert result.latency_ms["99"] >= 900.0
    assert result.latency_ms["100"] >= 1000.0
    assert result.service_time_ms["100"] >= 1000.0  # the stalled request itself
    assert result.service_time_ms["99"] <= 30.0
    # about a third of the requests were late: p90 latency is far above p90 service time
    assert result.latency_ms["90"] >= 100.0 >= 10 * result.service_time_ms["90"]


def test_throughput_at_a_target_of_200_ops():
    t = task(
        op("search", body={}),
        clients=2,
        warmup_time_period=0.5,
        time_period=4.0,
        target_throughput=Throughput(value=200.0),
    )
    with StubProcess(delay=0.001) as stub:
        result = run(stub, t)
    assert len(result.throughput_windows) >= 3
    assert abs(statistics.median(result.throughput_windows) - 200.0) <= 4.0
    assert abs(result.throughput_median - 200.0) <= 4.0
