"""Rally itself as the oracle of a short task's throughput: the same requests go through Rally
2.13's ``ThroughputCalculator`` (in Rally's own virtualenv) and through esbench's recorder.

Each request is (client start, request start, response end). Rally's sample carries the request's
processing start as ``absolute_time`` and ``response end - client start`` as ``time_period``
(esrally/driver/driver.py ``AsyncExecutor``); Rally reports the mean of its measurement-type
throughput samples (esrally/metrics.py ``GlobalStatsCalculator.summary_stats``).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from esbench.metrics.recorder import RecorderState, TaskRecorder
from esbench.metrics.stats import task_result

RALLY_PYTHON = Path(os.environ.get("ESBENCH_RALLY_PYTHON", "/work/venvs/rally/bin/python"))

pytestmark = pytest.mark.skipif(
    not RALLY_PYTHON.exists(), reason=f"Rally 2.13's Python is not at {RALLY_PYTHON} (ESBENCH_RALLY_PYTHON)"
)

# Runs in Rally's virtualenv: reads a list of cases, each [[client, abs_start, end, time_period,
# warmup], ...], on stdin and prints per case the mean of Rally's measurement-type throughput samples.
_RALLY_SIDE = """
import json, sys
from esrally import metrics
from esrally.driver.driver import Sample, ThroughputCalculator
means = []
for rows in json.load(sys.stdin):
    samples = [
        Sample(client, start, start, 0.0, "task",
               metrics.SampleType.Warmup if warmup else metrics.SampleType.Normal,
               {}, end - start, end - start, end - start, None, 1, "ops", period, None)
        for client, start, end, period, warmup in rows
    ]
    out = ThroughputCalculator().calculate(samples)["task"]
    values = [v for _, _, t, v, _ in out if t == metrics.SampleType.Normal]
    means.append(sum(values) / len(values))
print(json.dumps(means))
"""

Rows = list[tuple[int, float, float, float, bool]]


def _rally(cases: list[Rows]) -> list[float]:
    proc = subprocess.run(
        [str(RALLY_PYTHON), "-c", _RALLY_SIDE],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    means: list[float] = json.loads(proc.stdout)
    return means


def _case(clients: int, warmup: int, measured: int, seed: int) -> tuple[float, Rows]:
    """esbench's throughput of one simulated task, and its requests for Rally."""
    rng = random.Random(seed)
    workers = [
        TaskRecorder(task="t", operation="t", operation_type="fieldstats", origin=100.0) for _ in (0, 1)
    ]
    rows: Rows = []
    for client in range(clients):
        # Clients do not start together (Rally's start one after the other in one event loop), and
        # their requests overlap on a busy node: durations vary 2x, so the first request's
        # duration and the last one's do not cancel.
        client_start = 100.0 + rng.uniform(0.0, 0.006)
        now = client_start + rng.uniform(0.0001, 0.002)  # the client's set-up before its first request
        first: tuple[float, float] | None = None
        for i in range(warmup + measured):
            duration = rng.uniform(0.015, 0.030)
            start, end = now, now + duration
            is_warmup = i < warmup
            workers[client % 2].record(
                warmup=is_warmup, end=end, service_time=duration, latency=duration, processing_time=duration
            )
            rows.append((client, start, end, end - client_start, is_warmup))
            first = first or (start, end)
            now = end + rng.uniform(0.0001, 0.001)
        assert first is not None
        workers[client % 2].note_client(
            client_start=client_start, first_start=first[0], first_end=first[1], last_start=start
        )
    state = RecorderState.merge([w.state() for w in workers])
    last_end = max(r[2] for r in rows)
    ours = task_result(state, task_start=100.0, task_end=last_end + 0.001).throughput_mean
    assert ours is not None
    return ours, rows


SHAPES = [
    (15, 15, 1),  # combined-indexing-and-querying with bulk_indexing_clients:1
    (4, 0, 1),  # elasticlogs-querying, query-searchable-snapshot
    (1, 0, 1),  # tier-comparison, frozen
    (7, 0, 1),  # daily-log-volume-index-and-query (1 bulk + 3 x 2 search clients)
    (2, 30, 3),  # a warmup of most of a second, then a short measurement phase
]


def test_esbench_computes_rallys_throughput_calculator_exactly() -> None:
    cases = [(shape, seed, *_case(*shape, seed)) for shape in SHAPES for seed in range(5)]
    rally = _rally([rows for *_, rows in cases])
    for (shape, seed, ours, _), theirs in zip(cases, rally, strict=True):
        assert ours == pytest.approx(theirs, rel=1e-9), (shape, seed, ours, theirs)
