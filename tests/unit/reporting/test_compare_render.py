"""Renderers of a comparison: text, markdown, csv, json, the seed table, colour and the gate verdict.

Races are built from real recorded HdrHistograms (tests/unit/results/racefactory.py).
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import click
import pytest

from esbench.exceptions import ConfigError
from esbench.records import RaceResult
from esbench.reporting.compare import Comparison, compare_races
from esbench.reporting.compare_render import HEADERS, SEED_HEADERS, STAT_HEADERS, render_comparison
from esbench.reporting.gate import evaluate_gate

# racefactory is a helper beside the results tests, not a package module.
sys.path.append(str(Path(__file__).resolve().parents[1] / "results"))
import racefactory as rf

side = rf.side


@pytest.fixture(scope="module")
def base_races() -> list[RaceResult]:
    return rf.base_races()


@pytest.fixture(scope="module")
def slow_races() -> list[RaceResult]:
    return rf.slow_races()


@pytest.fixture(scope="module")
def two_contenders(base_races: list[RaceResult], slow_races: list[RaceResult]) -> Comparison:
    return compare_races(
        side("tag:setup:base", *base_races),
        [side("tag:setup:slow", *slow_races), side("abcd1234", base_races[0])],
    )


def test_render_text_rally_columns_and_blocks(two_contenders: Comparison) -> None:
    gate = evaluate_gate(two_contenders, fail_on_regression=10)
    text = render_comparison(two_contenders, gate=gate)
    header = next(line for line in text.splitlines() if line.startswith("|") and "Metric" in line)
    assert [c.strip() for c in header.strip("|").split("|")] == [*HEADERS, *STAT_HEADERS]
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


def test_render_text_color(two_contenders: Comparison) -> None:
    text = render_comparison(two_contenders, color=True)
    assert click.unstyle(text) == render_comparison(two_contenders, color=False)
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
    faster = compare_races(two_contenders.contenders[0].contender, [two_contenders.baseline])
    fast_text = render_comparison(faster, color=True)
    line = next(
        line for line in fast_text.splitlines() if "Median Throughput" in line and "term-query" in line
    )
    assert "\x1b[32m" in line
    assert "\x1b[" not in render_comparison(faster, fmt="markdown", color=True)


def test_render_markdown(two_contenders: Comparison) -> None:
    md = render_comparison(
        two_contenders, fmt="markdown", gate=evaluate_gate(two_contenders, fail_on_regression=10)
    )
    assert md.startswith("**Baseline: tag:setup:base")
    assert "### Contender 1 of 2: tag:setup:slow" in md
    assert "|:--" in md or "--:|" in md
    assert "**Regression gate: FAILED" in md


def test_render_csv_single_and_several_contenders(
    base_races: list[RaceResult], two_contenders: Comparison
) -> None:
    single = compare_races(side("b", base_races[0]), [side("c", base_races[1])])
    rows = list(csv.reader(io.StringIO(render_comparison(single, fmt="csv"))))
    assert rows[0] == list(HEADERS)
    med = next(r for r in rows if r[:2] == ["Median Throughput", "index-append"])
    assert float(med[2]) == pytest.approx(base_races[0].tasks[0].throughput_median, abs=0.005)
    assert med[5] == "docs/s" and med[6].endswith("%")
    several = list(csv.reader(io.StringIO(render_comparison(two_contenders, fmt="csv"))))
    assert several[0] == [*HEADERS, *STAT_HEADERS, "Contender race(s)"]
    assert {r[-1] for r in several[1:]} == {"tag:setup:slow", "abcd1234"}


def test_render_json(two_contenders: Comparison) -> None:
    gate = evaluate_gate(two_contenders, fail_on_regression=10)
    data = json.loads(render_comparison(two_contenders, fmt="json", gate=gate))
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


def test_render_seed_table(two_contenders: Comparison, base_races: list[RaceResult]) -> None:
    text = render_comparison(two_contenders, table="seed")
    lines = [line for line in text.splitlines() if line.startswith("|")]
    assert [c.strip() for c in lines[0].strip("|").split("|")] == list(SEED_HEADERS)
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
    csv_rows = list(csv.reader(io.StringIO(render_comparison(two_contenders, table="seed", fmt="csv"))))
    assert csv_rows[0] == list(SEED_HEADERS) and len(csv_rows) == 7


def test_render_rejects_unknown_format_and_table(two_contenders: Comparison) -> None:
    with pytest.raises(ConfigError, match="--report-format"):
        render_comparison(two_contenders, fmt="xml")
    with pytest.raises(ConfigError, match="--table"):
        render_comparison(two_contenders, table="wide")
