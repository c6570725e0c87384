"""Comparison model, statistics columns, renderers, thresholds and the regression gate.

Races are built from real recorded HdrHistograms (tests/unit/results/racefactory.py).
"""

from __future__ import annotations

import csv
import dataclasses
import importlib.util
import io
import json
from pathlib import Path

import click
import pytest

from esbench.exceptions import ConfigError
from esbench.reporting import compare as cmp
from esbench.results.model import RaceResult

_spec = importlib.util.spec_from_file_location(
    "_results_racefactory", Path(__file__).resolve().parents[1] / "results" / "racefactory.py"
)
assert _spec is not None and _spec.loader is not None
rf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rf)


def side(label: str, *races: RaceResult) -> cmp.Side:
    return cmp.Side(label=label, races=tuple(races))


def rows_by(comp: cmp.ContenderComparison) -> dict[tuple[str, str], cmp.Row]:
    return {(r.task, r.key): r for r in comp.rows}


@pytest.fixture(scope="module")
def base_races() -> list[RaceResult]:
    return [rf.make_race(seed=i, tags={"setup": "base"}) for i in range(3)]


@pytest.fixture(scope="module")
def slow_races() -> list[RaceResult]:
    return [rf.make_race(seed=100 + i, slowdown=1.25, tags={"setup": "slow"}) for i in range(3)]


# ---------------------------------------------------------------------------------- model


def test_single_races_rally_rows_and_directions(base_races: list[RaceResult]) -> None:
    b = base_races[0]
    c = rf.make_race(seed=7, slowdown=1.25)
    result = cmp.compare_races(side("b", b), [side("c", c)])
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
    result = cmp.compare_races(side("b", *races), [side("c", base_races[0])])
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
    assert p99.value == merged.get_value_at_percentile(99.0) / 1000.0
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
    result = cmp.compare_races(side("b", *stripped), [side("c", base_races[0])])
    p99 = rows_by(result.contenders[0])[("term-query", "latency.p99")].baseline
    assert p99.method == "mean"
    assert p99.value == pytest.approx(sum(r.tasks[1].latency_ms["99"] for r in base_races) / 3)


def test_significance_slow_vs_noise(base_races: list[RaceResult], slow_races: list[RaceResult]) -> None:
    repeat = [rf.make_race(seed=200 + i, tags={"setup": "base"}) for i in range(3)]
    result = cmp.compare_races(
        side("base", *base_races), [side("slow", *slow_races), side("repeat", *repeat)]
    )
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
    result = cmp.compare_races(side("b", base_races[0]), [side("c", other)])
    comp = result.contenders[0]
    assert comp.tasks == ("term-query",)
    assert comp.only_in_baseline == ("index-append",) and comp.only_in_contender == ("new-task",)
    warnings = " ".join(cmp.all_warnings(result))
    assert "Tasks only in the baseline (b), not compared: index-append" in warnings
    assert "Tasks only in the contender (c), not compared: new-task" in warnings
    assert "ran track compare-tiny but the contender (c) ran other-track" in warnings


def test_failed_race_is_reported(base_races: list[RaceResult]) -> None:
    failed = rf.make_race(seed=11, status="failed", tasks=("index-append",))
    result = cmp.compare_races(side("b", base_races[0]), [side("c", failed)])
    warnings = cmp.all_warnings(result)
    assert any(f"contender race {failed.race_id} (c) failed: boom: node left" in w for w in warnings)
    gate = cmp.evaluate_gate(result, fail_on_regression=50)
    messages = [v.message for v in gate.violations]
    assert f"contender race {failed.race_id} failed" in messages
    assert "term-query: no result in the contender" in messages


def test_task_missing_in_some_races_of_a_side(base_races: list[RaceResult]) -> None:
    partial = rf.make_race(seed=12, tasks=("index-append",), status="interrupted")
    result = cmp.compare_races(side("b", base_races[0], partial), [side("c", base_races[1])])
    assert any(
        "Task 'term-query' is missing in 1 of the 2 baseline races" in w for w in cmp.all_warnings(result)
    )
    assert any("baseline race" in w and "interrupted" in w for w in cmp.all_warnings(result))


def test_zero_baseline_diff_pct() -> None:
    zero = cmp.Stat(value=0.0, values=(0.0,), method="value")
    one = cmp.Stat(value=1.0, values=(1.0,), method="value")
    row = cmp.Row(
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


# ---------------------------------------------------------------------------------- gate


def test_gate_fails_on_slower_contender_and_passes_on_repeat(base_races: list[RaceResult]) -> None:
    b = base_races[0]
    slower = rf.make_race(seed=0, slowdown=1.3, tags={"setup": "slow"})  # same noise, 30 % slower
    failing = cmp.evaluate_gate(
        cmp.compare_races(side("b", b), [side("slow", slower)]), fail_on_regression=10
    )
    assert not failing.passed
    by_task_metric = {(v.row.task, v.row.key) for v in failing.violations}
    assert by_task_metric == {
        (task, key)
        for task in ("index-append", "term-query")
        for key in ("throughput.median", "latency.p99", "service_time.p99")
    }
    msg = next(
        v.message
        for v in failing.violations
        if v.row.key == "throughput.median" and v.row.task == "term-query"
    )
    assert (
        msg.startswith("term-query: Median Throughput fell 23.")
        and "more than the 10 % allowed by --fail-on-regression=10" in msg
    )
    repeat = dataclasses.replace(b, race_id="repeat-of-baseline")
    assert cmp.evaluate_gate(
        cmp.compare_races(side("b", b), [side("r", repeat)]), fail_on_regression=10
    ).passed


def test_gate_error_rate_rise_counts_even_if_small(base_races: list[RaceResult]) -> None:
    b = base_races[0]
    worse = dataclasses.replace(b, tasks=(dataclasses.replace(b.tasks[0], error_count=1), *b.tasks[1:]))
    gate = cmp.evaluate_gate(cmp.compare_races(side("b", b), [side("c", worse)]), fail_on_regression=10)
    assert [(v.row.task, v.row.key) for v in gate.violations] == [("index-append", "error_rate")]


def test_gate_tail_falls_back_below_p100_with_few_samples() -> None:
    few_b = rf.make_race(seed=1, samples=50)
    few_c = rf.make_race(seed=1, samples=50, slowdown=1.5)
    result = cmp.compare_races(side("b", few_b), [side("c", few_c)])
    assert cmp.tail_keys(result.contenders[0].rows)["term-query"] == frozenset(
        {"latency.p90", "service_time.p90"}
    )
    gate = cmp.evaluate_gate(result, fail_on_regression=10)
    assert {v.row.key for v in gate.violations} == {"throughput.median", "latency.p90", "service_time.p90"}


def test_gate_ignores_differences_within_noise(base_races: list[RaceResult]) -> None:
    # Contenders 3 % slower with 10 % race-to-race noise: beyond a 0.5 % limit but not significant.
    def noisy(seed: int, scale: float) -> RaceResult:
        r = rf.make_race(seed=seed)
        return dataclasses.replace(
            r,
            tasks=tuple(dataclasses.replace(t, throughput_median=1000.0 / scale) for t in r.tasks),
        )

    base = [noisy(i, f) for i, f in enumerate((0.9, 1.0, 1.1))]
    cont = [noisy(i, f * 1.03) for i, f in enumerate((0.9, 1.0, 1.1))]
    result = cmp.compare_races(side("b", *base), [side("c", *cont)])
    rules = (cmp.Threshold(metric="throughput.median", max_relative_change=0.5, source="t"),)
    gate = cmp.evaluate_gate(result, thresholds=rules)
    assert gate.passed
    assert gate.within_noise and all("not significant (p=" in v.message for v in gate.within_noise)


def test_thresholds_last_match_wins_ignore_and_absolute(base_races: list[RaceResult]) -> None:
    b = base_races[0]
    slower = rf.make_race(seed=0, slowdown=1.3)
    result = cmp.compare_races(side("b", b), [side("c", slower)])
    rules = cmp.parse_thresholds(
        [
            {"task": "*", "metric": "latency.*", "max-relative-change": 5},
            {"task": "term-query", "metric": "latency.*", "ignore": True},
            # both limits: must exceed 5 % AND 1000 ms -> never here
            {
                "task": "index-append",
                "metric": "latency.p50",
                "max-relative-change": 5,
                "max-absolute-change": 1000,
            },
            {"task": "nonexistent", "metric": "error_rate", "max-absolute-change": 0},
        ],
        path=Path("t.yml"),
    )
    gate = cmp.evaluate_gate(result, thresholds=rules)
    keys = {(v.row.task, v.row.key) for v in gate.violations}
    assert all(task == "index-append" for task, _ in keys)
    assert ("index-append", "latency.p50") not in keys
    assert {("index-append", "latency.p90"), ("index-append", "latency.p99")} <= keys
    assert [r.source for r in gate.unused_rules] == ["t.yml entry 4"]
    assert "t.yml entry 1" in next(iter(gate.violations)).message


def test_thresholds_override_defaults(base_races: list[RaceResult]) -> None:
    b = base_races[0]
    slower = rf.make_race(seed=0, slowdown=1.3)
    result = cmp.compare_races(side("b", b), [side("c", slower)])
    rules = cmp.parse_thresholds(
        {
            "thresholds": [
                {"metric": "throughput.median", "max-relative-change": 50},
                {"metric": "*.tail", "ignore": True},
            ]
        },
        path=Path("t.yml"),
    )
    assert cmp.evaluate_gate(result, fail_on_regression=10, thresholds=rules).passed


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"x": 1}, "expected a list of entries"),
        ([1], "entry 1: expected a mapping"),
        ([{"metric": "throughput.median"}], "entry 1: give 'max-relative-change'"),
        (
            [{"task": "bulk", "metric": "latncy.p99", "max-relative-change": 5}],
            r"entry 1 \(task 'bulk', metric 'latncy.p99'\): unknown metric",
        ),
        ([{"metric": "latncy.*", "max-relative-change": 5}], "matches no metric"),
        ([{"metric": "error_rate", "max-absolute-change": -1}], "must be a number >= 0"),
        ([{"metric": "error_rate", "max-relative-change": "5%"}], "must be a number >= 0"),
        ([{"metric": "error_rate", "max_relative_change": 5}], "unknown key.*'max_relative_change'"),
        ([{"metric": "error_rate", "ignore": "yes"}], "'ignore' must be true or false"),
        (
            [{"metric": "error_rate", "ignore": True}, {"task": "", "metric": "error_rate", "ignore": True}],
            "entry 2",
        ),
    ],
)
def test_thresholds_validation_names_the_entry(data: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        cmp.parse_thresholds(data, path=Path("t.yml"))


def test_load_thresholds_yaml_errors_and_example_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("thresholds:\n  - task: a\n    metric: [\n")
    with pytest.raises(ConfigError, match=r"not valid YAML at line \d+"):
        cmp.load_thresholds(bad)
    with pytest.raises(ConfigError, match="Cannot read the thresholds file"):
        cmp.load_thresholds(tmp_path / "missing.yml")
    example = Path(__file__).resolve().parents[3] / "examples" / "ci" / "thresholds.yml"
    rules = cmp.load_thresholds(example)
    assert rules and all(r.source.startswith("thresholds.yml entry") for r in rules)


def test_default_rules_reject_negative() -> None:
    with pytest.raises(ConfigError, match="--fail-on-regression"):
        cmp.default_rules(-1)


# ---------------------------------------------------------------------------------- rendering


@pytest.fixture(scope="module")
def two_contenders(base_races: list[RaceResult], slow_races: list[RaceResult]) -> cmp.Comparison:
    return cmp.compare_races(
        side("tag:setup:base", *base_races),
        [side("tag:setup:slow", *slow_races), side("abcd1234", base_races[0])],
    )


def test_render_text_rally_columns_and_blocks(two_contenders: cmp.Comparison) -> None:
    gate = cmp.evaluate_gate(two_contenders, fail_on_regression=10)
    text = cmp.render_comparison(two_contenders, gate=gate)
    header = next(line for line in text.splitlines() if line.startswith("|") and "Metric" in line)
    assert [c.strip() for c in header.strip("|").split("|")] == [*cmp.HEADERS, *cmp.STAT_HEADERS]
    assert (
        "Contender 1 of 2: tag:setup:slow (3 races" in text and "Contender 2 of 2: abcd1234 (1 race" in text
    )
    assert "Baseline: tag:setup:base (3 races of track compare-tiny" in text
    assert "Welch's t-test" in text
    assert (
        "Regression gate: FAILED" in text and "[tag:setup:slow] index-append: Median Throughput fell" in text
    )
    median = next(
        line for line in text.splitlines() if "| Median Throughput | index-append" in line.replace("  ", "")
    )
    cells = [c.strip() for c in median.strip("|").split("|")]
    assert cells[4].startswith("-") and cells[6].endswith("%") and cells[10] == "yes"
    assert "\x1b[" not in text


def test_render_text_color(two_contenders: cmp.Comparison) -> None:
    text = cmp.render_comparison(two_contenders, color=True)
    assert click.unstyle(text) == cmp.render_comparison(two_contenders, color=False)
    slow_block = text.split("Contender 2 of 2")[0]
    median_line = next(
        line for line in slow_block.splitlines() if "Median Throughput" in line and "term-query" in line
    )
    assert "\x1b[31m" in median_line  # throughput fell significantly: red
    p50_line = next(
        line for line in slow_block.splitlines() if "50th percentile latency" in line and "term-query" in line
    )
    assert "\x1b[31m" in p50_line  # latency rose: red too
    # A higher throughput is green.
    faster = cmp.compare_races(two_contenders.contenders[0].contender, [two_contenders.baseline])
    fast_text = cmp.render_comparison(faster, color=True)
    line = next(
        line for line in fast_text.splitlines() if "Median Throughput" in line and "term-query" in line
    )
    assert "\x1b[32m" in line
    assert "\x1b[" not in cmp.render_comparison(faster, fmt="markdown", color=True)


def test_render_markdown(two_contenders: cmp.Comparison) -> None:
    md = cmp.render_comparison(
        two_contenders, fmt="markdown", gate=cmp.evaluate_gate(two_contenders, fail_on_regression=10)
    )
    assert md.startswith("**Baseline: tag:setup:base")
    assert "### Contender 1 of 2: tag:setup:slow" in md
    assert "|:--" in md or "--:|" in md
    assert "**Regression gate: FAILED" in md


def test_render_csv_single_and_several_contenders(
    base_races: list[RaceResult], two_contenders: cmp.Comparison
) -> None:
    single = cmp.compare_races(side("b", base_races[0]), [side("c", base_races[1])])
    rows = list(csv.reader(io.StringIO(cmp.render_comparison(single, fmt="csv"))))
    assert rows[0] == list(cmp.HEADERS)
    med = next(r for r in rows if r[:2] == ["Median Throughput", "index-append"])
    assert float(med[2]) == pytest.approx(base_races[0].tasks[0].throughput_median, abs=0.005)
    assert med[5] == "docs/s" and med[6].endswith("%")
    several = list(csv.reader(io.StringIO(cmp.render_comparison(two_contenders, fmt="csv"))))
    assert several[0] == [*cmp.HEADERS, *cmp.STAT_HEADERS, "Contender race(s)"]
    assert {r[-1] for r in several[1:]} == {"tag:setup:slow", "abcd1234"}


def test_render_json(two_contenders: cmp.Comparison) -> None:
    gate = cmp.evaluate_gate(two_contenders, fail_on_regression=10)
    data = json.loads(cmp.render_comparison(two_contenders, fmt="json", gate=gate))
    assert data["baseline"]["label"] == "tag:setup:base" and len(data["baseline"]["races"]) == 3
    assert [c["label"] for c in data["contenders"]] == ["tag:setup:slow", "abcd1234"]
    row = next(
        r for r in data["contenders"][0]["rows"] if r["key"] == "latency.p99" and r["task"] == "term-query"
    )
    assert row["baseline"]["method"] == "merged-histogram" and len(row["baseline"]["values"]) == 3
    assert row["significant"] is True and row["improvement"] is False and 0 <= row["p_value"] < 0.05
    assert (
        data["gate"]["passed"] is False and data["gate"]["violations"][0]["rule"] == "--fail-on-regression=10"
    )


def test_render_seed_table(two_contenders: cmp.Comparison, base_races: list[RaceResult]) -> None:
    text = cmp.render_comparison(two_contenders, table="seed")
    lines = [line for line in text.splitlines() if line.startswith("|")]
    assert [c.strip() for c in lines[0].strip("|").split("|")] == list(cmp.SEED_HEADERS)
    body = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    assert [r[:3] for r in body] == [
        ["index-append", "tag:setup:base (baseline)", "3"],
        ["index-append", "tag:setup:slow", "3"],
        ["index-append", "abcd1234", "1"],
        ["term-query", "tag:setup:base (baseline)", "3"],
        ["term-query", "tag:setup:slow", "3"],
        ["term-query", "abcd1234", "1"],
    ]
    expected_median = sum(r.tasks[0].throughput_median for r in base_races) / 3
    assert float(body[0][4]) == pytest.approx(expected_median, abs=0.005)
    assert body[0][9] == "" and body[1][9].startswith("-") and body[1][10].startswith("+")
    csv_rows = list(csv.reader(io.StringIO(cmp.render_comparison(two_contenders, table="seed", fmt="csv"))))
    assert csv_rows[0] == list(cmp.SEED_HEADERS) and len(csv_rows) == 7


def test_render_rejects_unknown_format_and_table(two_contenders: cmp.Comparison) -> None:
    with pytest.raises(ConfigError, match="--report-format"):
        cmp.render_comparison(two_contenders, fmt="xml")
    with pytest.raises(ConfigError, match="--table"):
        cmp.render_comparison(two_contenders, table="wide")
