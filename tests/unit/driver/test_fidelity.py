"""Measurement fidelity: what the driver reports against a loopback server with known delays.

These assert the measurement logic (what is timed, from which point), not the machine's speed:
the server's delays are long compared to loopback and scheduling noise.
"""

from __future__ import annotations

import statistics

from driver_helpers import EsStub, challenge, op, task, track

from esbench.driver.client import ClientOptions
from esbench.driver.driver import DriverSettings, run_challenge, tasks_of
from esbench.track.model import Throughput

SETTINGS = DriverSettings(workers=1, task_pause_s=0)


def run(stub: EsStub, t):
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


def test_service_time_matches_the_servers_delay(es_stub):
    es_stub.delay = 0.010
    result = run(
        es_stub, task(op("search", body={"query": {"match_all": {}}}), warmup_iterations=10, iterations=150)
    )
    assert result.sample_count == 150 and result.error_count == 0
    assert 10.0 <= result.service_time_ms["50"] <= 11.0
    # unthrottled: latency is service time
    assert result.latency_ms["50"] == result.service_time_ms["50"]
    # processing time adds the client's own work on top of the wire time
    assert result.processing_time_ms["50"] >= result.service_time_ms["50"]


def test_latency_includes_waiting_after_a_stall_service_time_does_not(es_stub):
    es_stub.delay = 0.002
    es_stub.stalls = {60: 1.0}  # request 60 takes one second more
    t = task(op("search", body={}), iterations=400, target_throughput=Throughput(value=100.0))
    result = run(es_stub, t)
    assert result.sample_count == 400
    # After the stall the client is ~1 s behind its schedule; the requests that were due
    # meanwhile start late and their latency includes that wait (no coordinated omission).
    assert result.latency_ms["99"] >= 900.0
    assert result.latency_ms["100"] >= 1000.0
    assert result.service_time_ms["100"] >= 1000.0  # the stalled request itself
    assert result.service_time_ms["99"] <= 30.0
    # about a third of the requests were late: p90 latency is far above p90 service time
    assert result.latency_ms["90"] >= 100.0 >= 10 * result.service_time_ms["90"]


def test_throughput_at_a_target_of_200_ops(es_stub):
    es_stub.delay = 0.001
    t = task(
        op("search", body={}),
        clients=2,
        warmup_time_period=0.5,
        time_period=4.0,
        target_throughput=Throughput(value=200.0),
    )
    result = run(es_stub, t)
    assert len(result.throughput_windows) >= 3
    assert abs(statistics.median(result.throughput_windows) - 200.0) <= 4.0
    assert abs(result.throughput_median - 200.0) <= 4.0
