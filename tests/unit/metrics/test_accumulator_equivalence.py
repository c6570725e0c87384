"""The C recorder core (``_accumulator.c``) and the Python one (``accumulator.py``) record alike.

The same seeded stream of samples goes through a TaskRecorder in two subprocesses, one with the
compiled core and one with ``ESBENCH_PURE_PYTHON=1``; their states must be equal field by field
(histograms, windows, per-second buckets, errors, bytes, live counters). The stream covers the
edges of the arithmetic: values on bucket and histogram boundaries, negative and out-of-range
durations, requests that span windows or end before the origin, warmup, int and float weights,
failures with and without an error type, enough distinct values to flush the pending dicts.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import pytest
from harness import core_env

from esbench.metrics import accumulator
from esbench.metrics.state import UNKNOWN_ERROR

_SCRIPT = textwrap.dedent(
    """
    import dataclasses, math, pickle, random, sys
    from esbench.metrics import accumulator
    from esbench.metrics.recorder import MAX_RECORDABLE_US, TaskRecorder

    rng = random.Random(20261124)
    edges_us = [0, 1, 63, 64, 65, 127, 128, 4095, 4096, 1 << 20, MAX_RECORDABLE_US,
                MAX_RECORDABLE_US + 1, 10**13]
    r = TaskRecorder(task="t", operation="op", operation_type="search", origin=1000.0)
    # Keep every request too (as with a metrics store): keep_sample in _record.c and its twin.
    r.samples, r.sample_errors = bytearray(), {}
    outcomes = []
    for i in range(60_000):
        kind = rng.random()
        if kind < 0.05:
            service = rng.choice(edges_us) / 1e6
        elif kind < 0.08:
            service = -rng.random() / 1e3  # a clock that went backwards
        elif kind < 0.5:
            service = rng.randrange(50, 20_000) / 1e6  # many distinct values: pending flushes
        else:
            service = round(rng.uniform(0.0001, 0.002), 6)
        end = 1000.0 + i * 0.0004 + rng.choice([0.0, 0.0, 0.3, -3.5 if i < 50 or 5_000 <= i < 5_050 else 0.0])
        if rng.random() < 0.01:
            service = rng.uniform(0.5, 3.0)  # spans windows
        latency = service + rng.choice([0.0, 0.0, rng.random() * 0.01, -0.002])
        kwargs = dict(
            warmup=i < 5_000,
            end=end,
            service_time=service,
            latency=latency,
            processing_time=service * 1.07,
            weight=rng.choice([1, 1.0, 500, 0, 2.5]),
            success=rng.random() > 0.03,
            error_type=rng.choice([None, "", "500", "ConnectionTimeout"]),
            sent=rng.randrange(0, 5000),
            received=rng.randrange(0, 50_000),
        )
        if i % 7 == 0:
            del kwargs["sent"], kwargs["received"], kwargs["weight"]
        if i % 11 == 0:
            del kwargs["success"], kwargs["error_type"]
        r.record(**kwargs)
    for bad in (dict(latency=math.nan), dict(latency=math.inf), dict(service_time=-math.inf)):
        kwargs = dict(warmup=False, end=1001.0, service_time=0.001, latency=0.001,
                      processing_time=0.001)
        kwargs.update(bad)
        try:
            r.record(**kwargs)
        except Exception as exc:
            outcomes.append(type(exc).__name__)
    for call in (lambda: r.record(False, 1.0, 1.0, 1.0, 1.0),
                 lambda: r.record(warmup=False, end=1.0, service_time=1.0, latency=1.0),
                 lambda: r.record(warmup=False, end=1.0, service_time=1.0, latency=1.0,
                                  processing_time=1.0, colour="red")):
        try:
            call()
        except TypeError:
            outcomes.append("TypeError")
    state = dataclasses.replace(r.state(), origin_epoch=None)
    live = (r.count, r.error_count, r.total_weight)
    kept = (bytes(r.samples), r.sample_errors)
    sys.stdout.buffer.write(pickle.dumps((accumulator.COMPILED, state, live, outcomes, kept)))
    """
)


def _run(pure: bool) -> tuple[bool, object, tuple[int, int, float], list[str], tuple[bytes, dict[int, str]]]:
    env = core_env(pure)
    out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, check=False)
    assert out.returncode == 0, out.stderr.decode()[-3000:]
    return pickle.loads(out.stdout)


def test_compiled_and_python_recorders_produce_identical_states() -> None:
    if not accumulator.COMPILED:
        pytest.skip("the C extension esbench.metrics._accumulator is not built here (no C compiler)")
    compiled, c_state, c_live, c_outcomes, c_kept = _run(pure=False)
    pure, py_state, py_live, py_outcomes, py_kept = _run(pure=True)
    assert (compiled, pure) == (True, False)
    assert c_live == py_live
    # The same bytes for every request kept, and the same failed positions and error types.
    assert c_kept == py_kept
    # Every request of the stream; not the three that raised (NaN, inf) part-way through record.
    assert len(py_kept[0]) == accumulator.SAMPLE.size * 60_000 and UNKNOWN_ERROR in py_kept[1].values()
    assert c_outcomes == py_outcomes == ["ValueError", "OverflowError", "OverflowError"] + ["TypeError"] * 3
    # Field by field, so that a difference names its field.
    c_fields, py_fields = vars(c_state), vars(py_state)
    for name in py_fields:
        assert c_fields[name] == py_fields[name], name
    # The stream did reach the edges it was written for.
    assert py_state.overflow_count > 0 and py_state.warmup_overflow_count > 0
    assert sum(py_state.errors_by_type.values()) == py_state.error_count > 0
    assert UNKNOWN_ERROR in py_state.errors_by_type  # error_type None or ""
