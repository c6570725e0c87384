"""results.json round trip and error handling (esbench/results/files.py; kept here, beside the
metrics that produce the TaskResults it stores)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from esbench.exceptions import NotFound, StoreError
from esbench.metrics.recorder import TaskRecorder
from esbench.metrics.stats import task_result
from esbench.records import RESULTS_FORMAT_VERSION, ClusterMetric, RaceResult
from esbench.results.files import read_results_file, write_results_file


def _race() -> RaceResult:
    r = TaskRecorder(
        task="bulk", operation="bulk", operation_type="bulk", throughput_unit="docs/s", origin=0.0
    )
    for i in range(300):
        r.record(
            warmup=i < 30,
            end=i * 0.01,
            service_time=0.001 * (1 + i % 7),
            latency=0.002 * (1 + i % 7),
            processing_time=0.0015 * (1 + i % 7),
            weight=500,
            success=i % 50 != 1,
            error_type="429",
        )
    task = task_result(r.state(), task_start=0.0, task_end=3.2)
    return RaceResult(
        race_id="0b8f5a0e-1111-4222-8333-444455556666",
        timestamp="2026-11-21T20:10:18Z",
        track="tiny",
        challenge="default",
        track_params={"bulk_size": 500, "nested": {"a": [1, 2]}},
        user_tags={"ü": "ünïcode"},
        tasks=(task,),
        cluster_metrics=(ClusterMetric(name="Segment count", value=3, unit=""),),
    )


def test_round_trip_keeps_every_field(tmp_path: Path) -> None:
    race = _race()
    path = tmp_path / "sub" / "dir" / "results.json"
    write_results_file(race, path)
    assert read_results_file(path) == race
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format_version"] == RESULTS_FORMAT_VERSION
    assert data["tasks"][0]["throughput_windows"] == list(race.tasks[0].throughput_windows)
    assert race.tasks[0].errors_by_type == {"429": 5}


def test_write_replaces_atomically_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text("old", encoding="utf-8")
    write_results_file(_race(), path)
    assert os.listdir(tmp_path) == ["results.json"]
    assert read_results_file(path).track == "tiny"


def test_unwritable_location_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="Cannot write the results file"):
        write_results_file(_race(), blocker / "results.json")


def test_missing_file_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFound, match="does not exist"):
        read_results_file(tmp_path / "nope.json")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"race_id": "x", "tracks', "not valid JSON"),
        ("[1, 2]", "does not contain an esbench race result"),
        (json.dumps({"race_id": "x", "format_version": RESULTS_FORMAT_VERSION + 1}), "Upgrade esbench"),
        (json.dumps({"race_id": "x"}), "not a valid race result"),
    ],
)
def test_broken_files_are_store_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "results.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(StoreError, match=message):
        read_results_file(path)
