"""Telemetry series in the results store: exact round trip, size, fast listing, older races."""

from __future__ import annotations

import json
import math
import random
import sqlite3
from pathlib import Path

from esbench.records import RaceResult, TelemetrySeries
from esbench.results import migrations
from esbench.results.store import ResultsStore
from esbench.results.telemetry_store import decode_floats, encode_floats


def _race(race_id: str, series: tuple[TelemetrySeries, ...]) -> RaceResult:
    return RaceResult(
        race_id=race_id, timestamp="2026-11-23T20:00:00Z", track="t", challenge="c", telemetry=series
    )


def _big_series(count: int, points: int) -> tuple[TelemetrySeries, ...]:
    rng = random.Random(7)
    start = 1_763_900_000.123456
    return tuple(
        TelemetrySeries(
            device="node-stats",
            metric=f"thread_pool.pool{i}.rejected",
            unit="",
            node=f"node-{i % 3}",
            timestamps=tuple(start + k * 1.000123 for k in range(points)),
            values=tuple(rng.random() * 10 ** rng.randint(0, 12) for _ in range(points)),
        )
        for i in range(count)
    )


def test_floats_round_trip_bit_for_bit() -> None:
    values = (0.0, -0.0, 1e-300, 1.7976931348623157e308, math.pi, 1_763_900_000.123456, float(2**53 + 1))
    assert decode_floats(encode_floats(values)) == values
    assert decode_floats(encode_floats(())) == ()


def test_large_series_round_trip_and_stay_out_of_the_race_row(tmp_path: Path) -> None:
    # 350 series (a node-stats node) x 2049 samples (the sample table's bound plus its tail).
    series = _big_series(350, 2049)
    path = tmp_path / "results.db"
    with ResultsStore.open(path) as store:
        store.save(_race("r-big", series))
        loaded = store.get("r-big")
        listed = store.find(load_tasks=False)
    assert loaded.telemetry == series
    # Listing does not decode telemetry.
    assert listed[0].telemetry == ()
    conn = sqlite3.connect(path)
    extra = conn.execute("SELECT extra FROM races WHERE race_id = 'r-big'").fetchone()[0]
    assert "telemetry" not in json.loads(extra)
    sizes = "SELECT sum(length(timestamps) + length(samples)) FROM telemetry_series"
    stored = conn.execute(sizes).fetchone()[0]
    conn.close()
    # Binary float64s: at most the raw 16 bytes per sample (JSON text would need about 36).
    assert stored <= 350 * 2049 * 16


def test_saving_again_replaces_and_deleting_removes_series(tmp_path: Path) -> None:
    with ResultsStore.open(tmp_path / "results.db") as store:
        store.save(_race("r-1", _big_series(3, 5)))
        store.save(_race("r-1", _big_series(2, 4)))
        assert len(store.get("r-1").telemetry) == 2
        store.delete("r-1")
        assert store._conn.execute("SELECT count(*) FROM telemetry_series").fetchone()[0] == 0


def test_races_stored_with_telemetry_in_extra_still_load(tmp_path: Path) -> None:
    # Schema 2 kept new model fields, telemetry included, in races.extra.
    path = tmp_path / "v2.db"
    conn = sqlite3.connect(path, isolation_level=None)
    migrations.migrate(conn, target=2)
    series = {
        "device": "os",
        "metric": "process.rss",
        "unit": "bytes",
        "node": "node-0",
        "timestamps": [1.0, 2.0],
        "values": [3.0, 4.0],
    }
    conn.execute(
        "INSERT INTO races (race_id, timestamp, track, challenge, track_params, car, car_params, pipeline, "
        "esbench_version, test_mode, status, duration_s, format_version, extra) "
        "VALUES ('r-v2', '2026-01-01T00:00:00Z', 't', 'c', '{}', 'external', '{}', 'benchmark-only', '', 0, "
        "'completed', 1.0, 1, ?)",
        (json.dumps({"telemetry": [series]}),),
    )
    conn.close()
    with ResultsStore.open(path) as store:
        assert store.schema_version == 3
        race = store.get("r-v2")
    assert race.telemetry == (TelemetrySeries.from_dict(series),)
