"""Selection (status, track, challenge, user tags, since, limit), race order and series building."""

from __future__ import annotations

import pytest
from trendraces import race, task

from esbench.exceptions import ConfigError
from esbench.trend import TrendSelection, build_series, parse_metric, select_races
from esbench.trend.select import matches


def test_only_completed_races_that_pass_every_filter() -> None:
    base = race(1, tags={"env": "ci", "setup": "a"})
    assert matches(base, TrendSelection())
    assert not matches(race(1, status="failed"), TrendSelection())
    assert not matches(race(1, status="interrupted"), TrendSelection())
    assert matches(base, TrendSelection(track="t", challenge="c"))
    assert not matches(base, TrendSelection(track="other"))
    assert not matches(base, TrendSelection(challenge="other"))
    # The user tag filter of `list races --user-tag`: every key, one of its values.
    assert matches(base, TrendSelection(user_tags={"env": ("ci",), "setup": ("b", "a")}))
    assert not matches(base, TrendSelection(user_tags={"env": ("ci",), "setup": ("b",)}))
    assert not matches(base, TrendSelection(user_tags={"missing": ("x",)}))
    assert matches(base, TrendSelection(since="2026-11-01T00:01:00Z"))
    assert not matches(base, TrendSelection(since="2026-11-01T00:01:01Z"))
    assert matches(base, TrendSelection(since="2026-11-01"))


def test_races_are_ordered_by_time_then_first_task_start_then_id() -> None:
    late, early = race(5), race(2)
    # Two races started within the same second: the wall clock of their first task decides.
    second = race(90, task(start_epoch=200.0), timestamp="2026-11-01T03:00:00Z")
    first = race(91, task(start_epoch=100.0), timestamp="2026-11-01T03:00:00Z")
    ordered = select_races([late, second, early, first], TrendSelection())
    assert [r.race_id for r in ordered] == [early.race_id, late.race_id, first.race_id, second.race_id]


def test_limit_keeps_the_newest() -> None:
    races = [race(n) for n in (3, 1, 2, 4)]
    assert [r.timestamp[-6:-4] for r in select_races(races, TrendSelection(limit=2))] == ["03", "04"]
    assert select_races(races, TrendSelection(limit=0)) == []


def test_series_per_task_in_first_run_order() -> None:
    races = [
        race(1, task("index", throughput=500.0), task("search", latency_p50=10.0)),
        race(
            2,
            task("search", latency_p50=11.0),
            task("hidden", reported=False),
            task("index", latency_p50=None),
        ),
        race(3, task("search", latency_p50=12.0), task("new", latency_p50=5.0)),
    ]
    series = build_series(races, TrendSelection(), parse_metric("latency-p50"))
    # `index` measured latency only in race 1; `hidden` is not reported; `new` appears last.
    assert [(s.task, [p.value for p in s.points]) for s in series] == [
        ("index", [10.0]),
        ("search", [10.0, 11.0, 12.0]),
        ("new", [5.0]),
    ]
    assert series[1].points[2].race_id == races[2].race_id and series[1].unit == "ms"


def test_task_filter_and_unknown_task() -> None:
    races = [race(1, task("a"), task("b")), race(2, task("a"))]
    series = build_series(races, TrendSelection(tasks=("b",)), parse_metric("throughput-median"))
    assert [(s.task, len(s.points)) for s in series] == [("b", 1)]
    with pytest.raises(ConfigError, match=r"'nope' \(--task\).*ran: a, b"):
        build_series(races, TrendSelection(tasks=("a", "nope")), parse_metric("throughput-median"))


def test_a_task_without_any_value_has_no_series() -> None:
    races = [race(1, task("a", throughput=None)), race(2, task("a", throughput=None), task("b"))]
    series = build_series(races, TrendSelection(), parse_metric("throughput-median"))
    assert [s.task for s in series] == ["b"]
