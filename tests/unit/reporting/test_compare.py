"""The comparison model: rows, aggregation of several races, statistics columns, warnings.

Races are built from real recorded HdrHistograms (tests/unit/results/racefactory.py).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from esbench.metrics.stats import percentile_values
from esbench.records import RaceResult
from esbench.reporting.compare import ContenderComparison, Row, Stat, all_warnings, compare_races
from esbench.reporting.gate import MISSING_EXIT_CODE, evaluate_gate

# racefactory is a helper beside the results tests, not a package module.
sys.path.append(str(Path(__file__).resolve().parents[1] / "results"))
import racefactory as rf

side = rf.side


def rows_by(comp: ContenderComparison) -> dict[tuple[str, str], Row]:
    return {(r.task, r.key): r for r in comp.rows}


@pytest.fixture(scope="module")
def base_races() -> list[RaceResult]:
    return rf.base_races()


@pytest.fixture(scope="module")
def slow_races() -> list[RaceResult]:
    return rf.slow_races()


def test_single_races_rally_rows_and_directions(base_races: list[RaceResult]) -> None:
    b = base_races[0]
    c = rf.make_race(seed=7, slowdown=1.25)
    result = compare_races(side("b", b), [side("c", c)])
    rows = rows_by(result.contenders[0])
    median = rows[("index-append", "throughput.median")]
    assert median.metric == "Median Throughput" and median.unit == "docs/s" and median.higher_is_better
    assert median.baseline.value == b.tasks[0].throughput_median
    assert median.diff == pytest.approx(c.tasks[0].throughput_median - b.tasks[0].throughput_median)
    assert median.diff_pct == pytest.approx(median.diff / b.tasks[0].throughput_median * 100)
    assert median.improvement(0.05) is False  # throughput fell
    p99 = rows[("term-query", "latency.p99")]
    assert p99.metric == "99th percentile latency" and p99.unit == "ms" and not p99.higher_is_better
    assert p99.baseline.value == b.tasks[1].latency_ms["99"]  # one race: the stored value, exactly
    assert p99.improvement(0.05) is False  # latency rose
    assert p99.welch is None and p99.significant(0.05) is None
    assert rows[("", "cluster.store_size")].metric == "Store size"
    # Rally's order: throughput, latency, service time, error rate (processing time only on request)
    keys = [r.key for r in result.contenders[0].rows if r.task == "index-append"]
    assert keys[:4] == ["throughput.min", "throughput.mean", "throughput.median", "throughput.max"]
    assert keys[-1] == "error_rate" and not any(k.startswith("processing_time") for k in keys)
    assert (
        keys.index("latency.p50")
        < keys.index("latency.p99")
        < keys.index("latency.p100")
        < keys.index("service_time.p50")
    )
    assert not result.has_statistics


def test_several_races_aggregate_mean_merged_histograms_pooled_errors(base_races: list[RaceResult]) -> None:
    # Errors on one race only: pooled error rate = all failures / all requests.
    races = [*base_races[:2], rf.make_race(seed=3, error_rate=0.05)]
    result = compare_races(side("b", *races), [side("c", base_races[0])])
    rows = rows_by(result.contenders[0])
    median = rows[("index-append", "throughput.median")].baseline
    assert median.method == "mean"
    assert median.value == pytest.approx(sum(r.tasks[0].throughput_median for r in races) / 3)
    assert median.values == tuple(r.tasks[0].throughput_median for r in races)
    # Percentile of the merged histograms = percentile over all requests of the three races.
    merged = rf.record([])
    for r in races:
        merged.add(rf.HdrHistogram.decode(r.tasks[1].histograms["latency"]))
    p99 = rows[("term-query", "latency.p99")].baseline
    assert p99.method == "merged-histogram"
    # Recomputed from the merged histogram with the race report's rule (Rally's interpolated ranks).
    assert p99.value == percentile_values(merged, [99.0])[0] / 1000.0
    assert p99.values == tuple(r.tasks[1].latency_ms["99"] for r in races)
    errors = rows[("index-append", "error_rate")].baseline
    assert errors.method == "pooled"
    assert errors.value == pytest.approx(20 / 1200 * 100)
    assert errors.values == (0.0, 0.0, 5.0)
    assert result.has_statistics


def test_merging_without_histograms_falls_back_to_mean(base_races: list[RaceResult]) -> None:
    stripped = [
        dataclasses.replace(r, tasks=tuple(dataclasses.replace(t, histograms={}) for t in r.tasks))
        for r in base_races
    ]
    result = compare_races(side("b", *stripped), [side("c", base_races[0])])
    p99 = rows_by(result.contenders[0])[("term-query", "latency.p99")].baseline
    assert p99.method == "mean"
    assert p99.value == pytest.approx(sum(r.tasks[1].latency_ms["99"] for r in base_races) / 3)


def test_significance_slow_vs_noise(base_races: list[RaceResult], slow_races: list[RaceResult]) -> None:
    repeat = [rf.make_race(seed=200 + i, tags={"setup": "base"}) for i in range(3)]
    result = compare_races(side("base", *base_races), [side("slow", *slow_races), side("repeat", *repeat)])
    slow, again = (rows_by(c) for c in result.contenders)
    assert slow[("index-append", "throughput.median")].significant(0.05) is True
    assert slow[("index-append", "throughput.median")].welch.p_value < 1e-3
    noise = again[("index-append", "throughput.median")]
    assert noise.significant(0.05) is False
    assert noise.improvement(0.05) is None  # not significant: neither better nor worse
    assert noise.baseline.rsd == pytest.approx(
        __import__("statistics").stdev(noise.baseline.values)
        / __import__("statistics").fmean(noise.baseline.values)
        * 100
    )


def test_tasks_on_one_side_and_different_tracks_are_listed(base_races: list[RaceResult]) -> None:
    other = rf.make_race(seed=9, track="other-track", tasks=("term-query", "new-task"))
    result = compare_races(side("b", base_races[0]), [side("c", other)])
    comp = result.contenders[0]
    assert comp.tasks == ("term-query",)
    assert comp.only_in_baseline == ("index-append",) and comp.only_in_contender == ("new-task",)
    warnings = " ".join(all_warnings(result))
    assert "Tasks only in the baseline (b), not compared: index-append" in warnings
    assert "Tasks only in the contender (c), not compared: new-task" in warnings
    assert "ran track compare-tiny but the contender (c) ran other-track" in warnings


def test_failed_race_is_reported(base_races: list[RaceResult]) -> None:
    failed = rf.make_race(seed=11, status="failed", tasks=("index-append",))
    result = compare_races(side("b", base_races[0]), [side("c", failed)])
    warnings = all_warnings(result)
    assert any(f"contender race {failed.race_id} (c) failed: boom: node left" in w for w in warnings)
    gate = evaluate_gate(result, fail_on_regression=50)
    # Not a regression: the gate could not judge, which has its own exit status.
    assert not gate.violations and not gate.passed and gate.exit_code == MISSING_EXIT_CODE
    messages = [v.message for v in gate.missing]
    assert any(m.startswith(f"contender race {failed.race_id} failed (boom: node left)") for m in messages)
    assert "term-query: no result in the contender" in messages


def test_contender_sharing_races_with_the_baseline_is_reported(base_races: list[RaceResult]) -> None:
    same = compare_races(side("b", *base_races), [side("c", *reversed(base_races))])
    assert "The contender (c) is the same races as the baseline: every difference is 0." in " ".join(
        all_warnings(same)
    )
    overlap = compare_races(side("b", *base_races[:2]), [side("c", *base_races[1:])])
    assert any(
        f"1 of the 2 contender races (c) is in the baseline too ({base_races[1].race_id[:8]})" in w
        for w in all_warnings(overlap)
    )
    subset = compare_races(side("b", *base_races), [side("c", base_races[2])])
    assert any(
        f"The contender race (c) is in the baseline too ({base_races[2].race_id[:8]})" in w
        for w in all_warnings(subset)
    )
    apart = compare_races(side("b", base_races[0]), [side("c", base_races[1])])
    assert not any("baseline too" in w or "same race" in w for w in all_warnings(apart))


def test_task_missing_in_some_races_of_a_side(base_races: list[RaceResult]) -> None:
    partial = rf.make_race(seed=12, tasks=("index-append",), status="interrupted")
    result = compare_races(side("b", base_races[0], partial), [side("c", base_races[1])])
    assert any("Task 'term-query' is missing in 1 of the 2 baseline races" in w for w in all_warnings(result))
    assert any("baseline race" in w and "interrupted" in w for w in all_warnings(result))


def test_zero_baseline_diff_pct() -> None:
    zero = Stat(value=0.0, values=(0.0,), method="value")
    one = Stat(value=1.0, values=(1.0,), method="value")
    row = Row(
        key="error_rate",
        metric="error rate",
        task="t",
        unit="%",
        baseline=zero,
        contender=one,
        higher_is_better=False,
    )
    assert row.diff == 1.0 and row.diff_pct is None
    same = dataclasses.replace(row, contender=zero)
    assert same.diff_pct == 0.0 and same.improvement(0.05) is None
