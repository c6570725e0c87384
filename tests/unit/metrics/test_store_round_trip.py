"""The new TaskResult fields survive the results store (kept in its ``extra`` column)."""

from __future__ import annotations

from esbench.metrics.recorder import TaskRecorder
from esbench.metrics.stats import task_result
from esbench.records import RaceResult
from esbench.results.store import ResultsStore


def test_descriptions_epoch_and_window_series_round_trip_through_the_store(tmp_path) -> None:
    r = TaskRecorder(task="t", operation="o", operation_type="search", origin=0.0)
    for i in range(20):
        ok = i % 4 != 0
        r.record(
            warmup=False,
            end=i * 0.1,
            service_time=0.002,
            latency=0.003 * (1 + i % 3),
            processing_time=0.002,
            success=ok,
            error_type=None if ok else "400",
        )
        if not ok:
            r.describe_error(
                warmup=False,
                error_type="400",
                http_status=400,
                es_type="parsing_exception",
                reason="bad query",
            )
    r.record(warmup=False, end=2.5, service_time=0.002, latency=0.003, processing_time=0.002)  # window 2
    task = task_result(r.state(), task_start=0.0, task_end=4.0)
    assert task.latency_windows_ms["50"][3] is None  # nothing ended in window 3
    race = RaceResult(
        race_id="abc123", timestamp="2026-01-01T00:00:00Z", track="tr", challenge="c", tasks=(task,)
    )
    with ResultsStore.open(tmp_path / "results.db") as store:
        store.save(race)
        loaded = store.get("abc123").tasks[0]
    assert loaded.error_descriptions == task.error_descriptions
    assert loaded.error_descriptions[0].count == 5
    assert loaded.start_epoch == task.start_epoch
    assert loaded.latency_windows_ms == task.latency_windows_ms
    assert loaded.service_time_windows_ms == task.service_time_windows_ms
