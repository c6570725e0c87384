"""Thresholds (file format, validation) and the regression gate.

Races are built from real recorded HdrHistograms (tests/unit/results/racefactory.py).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from esbench.exceptions import ConfigError
from esbench.records import RaceResult
from esbench.reporting.compare import compare_races
from esbench.reporting.gate import (
    Threshold,
    default_rules,
    evaluate_gate,
    load_thresholds,
    parse_thresholds,
    tail_keys,
)

# racefactory is a helper beside the results tests, not a package module.
sys.path.append(str(Path(__file__).resolve().parents[1] / "results"))
import racefactory as rf

side = rf.side


@pytest.fixture(scope="module")
def base_races() -> list[RaceResult]:
    return rf.base_races()


def test_gate_fails_on_slower_contender_and_passes_on_repeat(base_races: list[RaceResult]) -> None:
    b = base_races[0]
    slower = rf.make_race(seed=0, slowdown=1.3, tags={"setup": "slow"})  # same noise, 30 % slower
    failing = evaluate_gate(compare_races(side("b", b), [side("slow", slower)]), fail_on_regression=10)
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
    assert evaluate_gate(compare_races(side("b", b), [side("r", repeat)]), fail_on_regression=10).passed


def test_gate_error_rate_rise_counts_even_if_small(base_races: list[RaceResult]) -> None:
    b = base_races[0]
    worse = dataclasses.replace(b, tasks=(dataclasses.replace(b.tasks[0], error_count=1), *b.tasks[1:]))
    gate = evaluate_gate(compare_races(side("b", b), [side("c", worse)]), fail_on_regression=10)
    assert [(v.row.task, v.row.key) for v in gate.violations] == [("index-append", "error_rate")]


def test_gate_tail_falls_back_below_p100_with_few_samples() -> None:
    few_b = rf.make_race(seed=1, samples=50)
    few_c = rf.make_race(seed=1, samples=50, slowdown=1.5)
    result = compare_races(side("b", few_b), [side("c", few_c)])
    assert tail_keys(result.contenders[0].rows)["term-query"] == frozenset(
        {"latency.p90", "service_time.p90"}
    )
    gate = evaluate_gate(result, fail_on_regression=10)
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
    result = compare_races(side("b", *base), [side("c", *cont)])
    rules = (Threshold(metric="throughput.median", max_relative_change=0.5, source="t"),)
    gate = evaluate_gate(result, thresholds=rules)
    assert gate.passed
    assert gate.within_noise and all("not significant (p=" in v.message for v in gate.within_noise)


def test_thresholds_last_match_wins_ignore_and_absolute(base_races: list[RaceResult]) -> None:
    b = base_races[0]
    slower = rf.make_race(seed=0, slowdown=1.3)
    result = compare_races(side("b", b), [side("c", slower)])
    rules = parse_thresholds(
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
    gate = evaluate_gate(result, thresholds=rules)
    keys = {(v.row.task, v.row.key) for v in gate.violations}
    assert all(task == "index-append" for task, _ in keys)
    assert ("index-append", "latency.p50") not in keys
    assert {("index-append", "latency.p90"), ("index-append", "latency.p99")} <= keys
    assert [r.source for r in gate.unused_rules] == ["t.yml entry 4"]
    assert "t.yml entry 1" in next(iter(gate.violations)).message


def test_thresholds_override_defaults(base_races: list[RaceResult]) -> None:
    b = base_races[0]
    slower = rf.make_race(seed=0, slowdown=1.3)
    result = compare_races(side("b", b), [side("c", slower)])
    rules = parse_thresholds(
        {
            "thresholds": [
                {"metric": "throughput.median", "max-relative-change": 50},
                {"metric": "*.tail", "ignore": True},
            ]
        },
        path=Path("t.yml"),
    )
    assert evaluate_gate(result, fail_on_regression=10, thresholds=rules).passed


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
        parse_thresholds(data, path=Path("t.yml"))


def test_load_thresholds_yaml_errors_and_example_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("thresholds:\n  - task: a\n    metric: [\n")
    with pytest.raises(ConfigError, match=r"not valid YAML at line \d+"):
        load_thresholds(bad)
    with pytest.raises(ConfigError, match="Cannot read the thresholds file"):
        load_thresholds(tmp_path / "missing.yml")
    example = Path(__file__).resolve().parents[3] / "examples" / "ci" / "thresholds.yml"
    rules = load_thresholds(example)
    assert rules and all(r.source.startswith("thresholds.yml entry") for r in rules)


def test_default_rules_reject_negative() -> None:
    with pytest.raises(ConfigError, match="--fail-on-regression"):
        default_rules(-1)


def _emptied(race: RaceResult, task: str) -> RaceResult:
    """``race`` with ``task`` as a bulk task that ended inside its warmup: no measurement at all."""
    tasks = tuple(
        dataclasses.replace(
            t,
            throughput_min=None,
            throughput_mean=None,
            throughput_median=None,
            throughput_max=None,
            throughput_windows=(),
            latency_ms={},
            service_time_ms={},
            processing_time_ms={},
            histograms={},
            sample_count=0,
            error_count=0,
            errors_by_type={},
            warmup_sample_count=20,
        )
        if t.task == task
        else t
        for t in race.tasks
    )
    return dataclasses.replace(race, race_id=race.race_id[:-4] + "beef", tasks=tasks)


def test_gate_cannot_pass_what_the_contender_did_not_measure(base_races: list[RaceResult]) -> None:
    from esbench.reporting.gate import MISSING_EXIT_CODE

    base = base_races[0]
    empty = _emptied(base_races[1], "index-append")
    result = compare_races(side("b", base), [side("c", empty)])
    gate = evaluate_gate(result, fail_on_regression=5)
    assert not gate.passed and gate.exit_code == MISSING_EXIT_CODE
    missing = {(v.row.task, v.row.key) for v in gate.missing if v.row is not None}
    # Median throughput, the tail latency and service time, and the error rate: nothing to judge.
    assert {("index-append", "throughput.median"), ("index-append", "error_rate")} <= missing
    assert any(k.startswith("latency.p") for _, k in missing)
    allowed = evaluate_gate(result, fail_on_regression=5, allow_missing=True)
    assert allowed.passed and allowed.exit_code == 0 and allowed.missing

    # Nothing measured on either side: there is nothing to judge, which is not a pass either.
    both = compare_races(side("b", _emptied(base, "index-append")), [side("c", empty)])
    only_index = evaluate_gate(
        both, thresholds=(Threshold(task="index-append", metric="throughput.median", max_relative_change=5),)
    )
    assert [v.message for v in only_index.missing] == [
        "no gated metric was measured on both sides: there is nothing to judge"
    ]


def test_a_tail_shown_on_both_sides_is_judged_not_missing(base_races: list[RaceResult]) -> None:
    # Fewer contender samples show percentiles only up to p90: the tail is p90 on both sides, and the
    # baseline's p99 is not "missing".
    def without_p99(race: RaceResult) -> RaceResult:
        def keep(p: dict[str, float]) -> dict[str, float]:
            return {k: v for k, v in p.items() if float(k) < 99}

        tasks = tuple(
            dataclasses.replace(t, latency_ms=keep(t.latency_ms), service_time_ms=keep(t.service_time_ms))
            for t in race.tasks
        )
        return dataclasses.replace(race, tasks=tasks)

    result = compare_races(side("b", base_races[0]), [side("c", without_p99(base_races[1]))])
    gate = evaluate_gate(result, fail_on_regression=50)
    assert gate.passed and not gate.missing, [v.message for v in gate.missing]
