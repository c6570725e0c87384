"""The chart data of the HTML/PNG reports, built from synthetic races (plotfactory.py beside this file)."""

from __future__ import annotations

import dataclasses
import itertools
import sys
from pathlib import Path

import pytest

from esbench.metrics.recorder import decode_histogram, new_histogram
from esbench.metrics.stats import percentile_values
from esbench.reporting.numbers import shown
from esbench.reporting.plot_data import (
    Line,
    SideRaces,
    race_sides,
    spectrum_from_histogram,
    task_series,
    task_spans,
    time_range,
    time_zero,
)
from esbench.reporting.plot_telemetry import telemetry_view

sys.path.append(str(Path(__file__).resolve().parent))
import plotfactory as pf


@pytest.fixture(scope="module")
def race():
    return pf.race(seed=3)


def test_time_zero_is_the_first_sample_of_the_race(race) -> None:
    assert time_zero(race) == pf.T0  # telemetry starts 2 s before the first task
    no_telemetry = dataclasses.replace(race, telemetry=())
    assert time_zero(no_telemetry) == pf.T0 + 2
    old = pf.race(aligned=False)
    assert time_zero(dataclasses.replace(old, timestamp="not a time")) is None


def test_race_timestamp_is_the_fallback_zero() -> None:
    old = pf.race(aligned=False)
    assert time_zero(old) == pf.T0 - 5  # its timestamp, 2026-09-21T14:13:15Z


def test_throughput_windows_at_their_midpoints_on_the_race_axis(race) -> None:
    bulk = task_series(race_sides(race), "index-append")
    (line,) = bulk.throughput
    assert line.y == tuple(shown(v) for v in race.task("index-append").throughput_windows)
    assert line.x[0] == pytest.approx(2.5) and line.x[-1] == pytest.approx(21.5)
    assert bulk.throughput_unit == "docs/s" and bulk.aligned
    search = task_series(race_sides(race), "term")
    assert search.throughput[0].x[0] == pytest.approx(23.5)
    assert line.name == "throughput"  # one race: no race label in the legend


def test_latency_and_service_time_window_lines(race) -> None:
    ts = task_series(race_sides(race), "index-append")
    stored = race.task("index-append")
    assert [ln.style for ln in ts.latency] == ["50", "90", "99", "100"]
    assert [ln.name for ln in ts.service_time] == ["p50", "p90", "p99", "p100"]
    for line in ts.latency:
        assert line.y == tuple(shown(v) for v in stored.latency_windows_ms[line.style])
        assert line.x == ts.throughput[0].x
    for line in ts.service_time:
        assert line.y == tuple(shown(v) for v in stored.service_time_windows_ms[line.style])


def test_spectrum_follows_the_stored_histogram(race) -> None:
    encoded = race.task("index-append").histograms["latency"]
    x, values, pcts = spectrum_from_histogram(encoded)
    hist = decode_histogram(encoded)
    count = hist.get_total_count()
    assert count == 2000
    # 10 points per decade below the sample count (k = 0..33: 10^3.3 < 2000), then the maximum at x = count.
    assert len(x) == 35 and x[-1] == count and pcts[-1] == 100.0
    assert all(b > a for a, b in itertools.pairwise(x))
    assert all(b >= a for a, b in itertools.pairwise(values))
    assert pcts[10] == pytest.approx(90.0) and pcts[20] == pytest.approx(99.0)
    p90, p99, p100 = percentile_values(hist, [90.0, 99.0, 100.0])
    # values are rounded as the page shows them (3 significant digits, whole from 100 on)
    assert values[10] == shown(p90 / 1000)
    assert values[20] == shown(p99 / 1000)
    assert values[-1] == shown(p100 / 1000)
    for xi, p in zip(x[:-1], pcts[:-1], strict=True):
        assert p == pytest.approx(100 * (1 - 1 / xi), abs=0.5)  # x rounded to 3 significant digits
    assert min(values) > 0


def test_spectrum_of_ten_known_values() -> None:
    h = new_histogram()
    for ms in range(1, 11):
        h.record_value(ms * 1000)
    x, values, pcts = spectrum_from_histogram(h.encode().decode())
    assert values[0] == pytest.approx(1.0, rel=1e-3)  # p0 = the minimum
    assert values[-1] == pytest.approx(10.0, rel=1e-3)  # the maximum
    assert x[-1] == 10 and len(x) == 11
    # p50 of 1..10 ms is 5.5 ms (Rally's interpolated rank); x = 2 lies between the 3rd and 4th point
    assert values[3] == shown(percentile_values(h, [pcts[3]])[0] / 1000)


def test_empty_and_damaged_histograms() -> None:
    assert spectrum_from_histogram(new_histogram().encode().decode()) == ((), (), ())
    with pytest.raises(ValueError):
        spectrum_from_histogram("not base64 hdr")


def test_damaged_histogram_leaves_out_only_that_spectrum(race) -> None:
    bulk = race.task("index-append")
    broken = dataclasses.replace(bulk, histograms={**bulk.histograms, "latency": "garbage"})
    damaged = dataclasses.replace(race, tasks=(broken, race.tasks[1]))
    ts = task_series(race_sides(damaged), "index-append")
    assert ts.latency_spectrum == () and len(ts.service_time_spectrum) == 1


def test_task_spans_and_time_range(race) -> None:
    assert task_spans(race) == [("index-append", 2.0, 22.0), ("term", 23.0, 33.0)]
    series = [task_series(race_sides(race), n) for n in ("index-append", "term")]
    panels = telemetry_view(race_sides(race)).panels
    assert time_range(series, panels) == (0.0, 34.0)
    assert time_range(series, []) == (0.0, 33.0)
    assert time_range([], []) is None


def test_old_race_without_start_epoch_or_window_percentiles() -> None:
    old = pf.race(aligned=False)
    ts = task_series(race_sides(old), "index-append")
    assert not ts.aligned
    assert ts.throughput[0].x[0] == 0.5  # seconds since the task's measurement start
    assert ts.latency == () and ts.service_time == ()
    assert len(ts.latency_spectrum) == 1  # histograms are there in old races too
    assert telemetry_view(race_sides(old)).panels == ()
    assert task_spans(old) == []
    assert time_range([ts], []) is None


def test_compare_sides_overlay() -> None:
    base, fast = pf.race(seed=1), pf.race(seed=2, speed=1.5)
    sides = [SideRaces(label="tag:setup:a", races=(base,)), SideRaces(label="tag:setup:b", races=(fast,))]
    ts = task_series(sides, "term")
    assert [(ln.name, ln.side) for ln in ts.throughput] == [("tag:setup:a", 0), ("tag:setup:b", 1)]
    assert [ln.source for ln in ts.latency_spectrum] == ["tag:setup:a", "tag:setup:b"]
    assert ts.latency[4].name == "tag:setup:b p50"
    # each race on its own time zero: both start their search task 23 s after their first sample
    assert ts.throughput[0].x == ts.throughput[1].x
    assert max(ts.throughput[1].y) > max(ts.throughput[0].y)
    panels = telemetry_view(sides).panels
    assert panels[0].lines[0].name.startswith("tag:setup:a: ")
    assert {ln.side for p in panels for ln in p.lines} == {0, 1}


def test_side_with_several_races_numbers_them() -> None:
    side = SideRaces(label="tag:x:y", races=(pf.race(seed=1), pf.race(seed=4)))
    ts = task_series([side], "term")
    assert [ln.name for ln in ts.throughput] == ["tag:x:y #1", "tag:x:y #2"]


def test_task_missing_in_a_race_is_skipped() -> None:
    race = pf.race(seed=1)
    only_bulk = dataclasses.replace(pf.race(seed=2), tasks=pf.race(seed=2).tasks[:1])
    sides = [SideRaces(label="a", races=(race,)), SideRaces(label="b", races=(only_bulk,))]
    assert [ln.side for ln in task_series(sides, "term").throughput] == [0]


def test_line_lengths_must_match() -> None:
    with pytest.raises(ValueError, match="2 x values but 1 y values"):
        Line(name="x", x=(1.0, 2.0), y=(1.0,))
