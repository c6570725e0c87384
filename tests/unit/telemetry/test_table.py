"""The bounded sample table: memory bound, even coverage of the whole race, exact summary statistics."""

from __future__ import annotations

import math

import pytest

from esbench.telemetry.table import SampleTable


def _feed(table: SampleTable, samples: int, *, node: str = "n") -> None:
    for i in range(samples):
        table.add(1000.0 + i, {("cpu", node): float(i)}, {("cpu", node): "%"})


def test_rows_stay_bounded_and_span_the_whole_race() -> None:
    table = SampleTable("dev", capacity=8)
    _feed(table, 1000)
    assert table.rows < 8
    (series,) = table.series()
    # First and last sample are always there, whatever was thinned in between.
    assert series.timestamps[0] == 1000.0 and series.timestamps[-1] == 1999.0
    assert series.values[-1] == 999.0
    # The kept rows are evenly spaced by the current stride.
    gaps = {b - a for a, b in zip(series.timestamps[:-1], series.timestamps[1:-1], strict=False)}
    assert gaps == {float(table.stride)}
    assert list(series.timestamps) == sorted(series.timestamps)


def test_summary_statistics_cover_every_sample_not_only_kept_rows() -> None:
    table = SampleTable("dev", capacity=4)
    values = [5.0, 1.0, 99.0, 3.0, 7.0, 2.0, 4.0, 6.0, 8.0, 0.5, 9.0]
    for i, v in enumerate(values):
        table.add(float(i), {("m", ""): v}, {})
    stats = table.stats("m")
    assert stats is not None
    assert (stats.minimum, stats.maximum, stats.count) == (0.5, 99.0, len(values))
    assert stats.mean == pytest.approx(sum(values) / len(values))
    assert (stats.first, stats.last, stats.delta) == (5.0, 9.0, 4.0)
    # 99.0 was thinned away from the kept rows, but the peak is exact.
    assert 99.0 not in table.series()[0].values


def test_metrics_appearing_late_or_missing_are_aligned() -> None:
    table = SampleTable("dev", capacity=64)
    table.add(1.0, {("a", ""): 1.0}, {("a", ""): "ms"})
    table.add(2.0, {("a", ""): 2.0, ("b", "x"): 20.0}, {("b", "x"): "bytes"})
    table.add(3.0, {("b", "x"): 30.0}, {})
    table.add(4.0, {("a", ""): math.nan, ("b", "x"): math.inf}, {})
    a, b = table.series()
    assert (a.metric, a.unit, a.timestamps, a.values) == ("a", "ms", (1.0, 2.0), (1.0, 2.0))
    assert (b.metric, b.node, b.unit, b.timestamps, b.values) == ("b", "x", "bytes", (2.0, 3.0), (20.0, 30.0))


def test_a_metric_first_seen_in_the_tail_sample_keeps_its_timestamp() -> None:
    table = SampleTable("dev", capacity=4)
    _feed(table, 5)  # thinned once: stride 2, the 5th sample (index 4) is kept as a row
    table.add(1005.0, {("cpu", "n"): 5.0, ("late", ""): 42.0}, {})  # index 5: only the tail
    late = next(s for s in table.series() if s.metric == "late")
    assert late.timestamps == (1005.0,) and late.values == (42.0,)


def test_columns_beyond_the_limit_are_dropped_and_counted() -> None:
    table = SampleTable("dev", capacity=8, max_columns=2)
    table.add(1.0, {("a", ""): 1.0, ("b", ""): 2.0, ("c", ""): 3.0}, {})
    assert [s.metric for s in table.series()] == ["a", "b"]
    assert table.dropped_columns == 1


def test_memory_is_bounded_by_capacity_times_columns() -> None:
    table = SampleTable("dev", capacity=16)
    for i in range(10_000):
        table.add(float(i), {(f"m{k}", ""): float(i) for k in range(5)}, {})
    assert all(len(col) < 16 for col in table._columns.values())
    assert len(table._times) < 16


def test_capacity_must_allow_thinning() -> None:
    with pytest.raises(ValueError, match="at least 4"):
        SampleTable("dev", capacity=3)
