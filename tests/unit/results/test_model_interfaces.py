"""The result model's time-series fields survive results.json and the results store unchanged."""

from __future__ import annotations

import json

import pytest

from esbench.records import RaceResult, TaskResult, TelemetrySeries
from esbench.results.store import ResultsStore


def _race() -> RaceResult:
    task = TaskResult(
        task="search",
        operation="search",
        operation_type="search",
        throughput_windows=(10.0, 12.0),
        start_epoch=1_700_000_000.25,
        latency_windows_ms={"50": (1.5, 1.75), "99": (3.0, 4.5)},
        service_time_windows_ms={"50": (1.25, 1.5)},
    )
    series = TelemetrySeries(
        device="node-stats",
        metric="os.cpu.percent",
        unit="%",
        node="n1",
        timestamps=(1.0, 2.0),
        values=(7.0, 9.0),
    )
    return RaceResult(
        race_id="r-1",
        timestamp="2026-11-23T20:00:00Z",
        track="t",
        challenge="c",
        tasks=(task,),
        telemetry=(series,),
    )


def test_json_round_trip_keeps_windows_and_telemetry() -> None:
    race = _race()
    assert RaceResult.from_dict(json.loads(json.dumps(race.to_dict()))) == race


def test_store_round_trip_keeps_windows_and_telemetry(tmp_path) -> None:
    race = _race()
    store = ResultsStore.open(tmp_path / "results.db")
    store.save(race)
    loaded = store.get("r-1")
    assert loaded.tasks[0].latency_windows_ms == {"50": (1.5, 1.75), "99": (3.0, 4.5)}
    assert loaded.tasks[0].start_epoch == 1_700_000_000.25
    assert loaded.telemetry == race.telemetry


def test_series_rejects_unequal_lengths() -> None:
    with pytest.raises(ValueError, match="1 timestamps but 0 values"):
        TelemetrySeries(device="os", metric="cpu", unit="%", timestamps=(1.0,), values=())


def test_to_dict_with_fields_keeps_their_order_and_only_them() -> None:
    race = _race()
    header = race.to_dict(("track", "race_id", "user_tags"))
    assert list(header) == ["track", "race_id", "user_tags"]
    assert header == {"track": "t", "race_id": "r-1", "user_tags": {}}
    with pytest.raises(KeyError):
        race.to_dict(("no_such_field",))
