"""Renderers of a :class:`~esbench.reporting.compare.Comparison` and of the gate verdict.

Formats (:func:`render_comparison`): ``text``, ``markdown``, ``csv`` and ``json``; tables
(:data:`TABLES`): ``rally`` (Rally's compare columns, :data:`HEADERS`, plus :data:`STAT_HEADERS`
when a side has several races) and ``seed`` (one compact row per task and setup,
:data:`SEED_HEADERS`). Diff and Diff % can be coloured green/red by improvement.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import NotRequired, TypedDict

import click

from esbench.console import tabulate
from esbench.exceptions import ConfigError
from esbench.reporting.compare import (
    Comparison,
    ContenderComparison,
    Row,
    Side,
    Stat,
    all_warnings,
    format_value,
)
from esbench.reporting.compare_header import rally_header_lines, side_description, single_races
from esbench.reporting.formats import NumbersAlign, check_format, csv_table, dump_json, is_number_text
from esbench.reporting.gate import GateResult, Violation


class CompareTable(StrEnum):
    """``--table`` of ``esbench compare``."""

    #: Rally's compare columns (:data:`HEADERS`, plus :data:`STAT_HEADERS`).
    RALLY = "rally"
    #: One compact row per task and setup (:func:`seed_rows`).
    SEED = "seed"


TABLES: tuple[str, ...] = tuple(t.value for t in CompareTable)
HEADERS: tuple[str, ...] = ("Metric", "Task", "Baseline", "Contender", "Diff", "Unit", "Diff %")
STAT_HEADERS: tuple[str, ...] = ("Baseline RSD %", "Contender RSD %", "p-value", "Significant")


def _signed(v: float | None, unit: str) -> str:
    if v is None:
        return ""
    if unit == "%" or unit.endswith("/s"):
        return f"{v:+.2f}"
    return f"{v:+.6g}"


def _pct(v: float | None) -> str:
    return "" if v is None else f"{v:+.2f}%"


def _diff_pct_cell(row: Row) -> str:
    if row.diff is None:
        return ""
    return _pct(row.diff_pct) or "n/a"  # n/a: a zero baseline has no relative change


def _style(text: str, improvement: bool | None, color: bool) -> str:
    if not color or improvement is None or not text:
        return text
    return click.style(text, fg="green" if improvement else "red")


def _stat_cells(row: Row, alpha: float) -> list[str]:
    def rsd(s: Stat | None) -> str:
        r = s.rsd if s is not None else None
        return "" if r is None else f"{r:.2f}"

    if row.welch is None:
        return [rsd(row.baseline), rsd(row.contender), "", ""]
    return [
        rsd(row.baseline),
        rsd(row.contender),
        f"{row.welch.p_value:.3g}",
        "yes" if row.welch.significant(alpha) else "no",
    ]


def rally_rows(comparison: Comparison, comp: ContenderComparison, *, color: bool = False) -> list[list[str]]:
    """The rows of one contender block: Rally's 7 columns (+ the 4 statistics columns if any)."""
    out = []
    for row in comp.rows:
        better = row.improvement(comparison.alpha)
        cells = [
            row.metric,
            row.task,
            format_value(row.baseline.value if row.baseline else None, row.unit),
            format_value(row.contender.value if row.contender else None, row.unit),
            _style(_signed(row.diff, row.unit), better, color),
            row.unit,
            _style(_diff_pct_cell(row), better, color),
        ]
        if comparison.has_statistics:
            cells += _stat_cells(row, comparison.alpha)
        out.append(cells)
    return out


def _headers(comparison: Comparison) -> list[str]:
    return [*HEADERS, *(STAT_HEADERS if comparison.has_statistics else ())]


def _pipe(headers: Sequence[str], rows: Sequence[Sequence[str]], numalign: NumbersAlign | None = None) -> str:
    # Numbers are pre-formatted strings; numparse stays off so signs ("+1.20") and colours survive.
    # Rally's --report-numbers-align aligns the columns whose cells are all numbers.
    colalign = None
    if numalign is not None and rows:
        colalign = [
            str(numalign) if all(is_number_text(r[i]) for r in rows) else "right" for i in range(len(headers))
        ]
    return tabulate(
        [list(r) for r in rows],
        headers=list(headers),
        tablefmt="pipe",
        stralign="right",
        disable_numparse=True,
        colalign=colalign,
    )


SEED_HEADERS: tuple[str, ...] = (
    "Task",
    "Setup",
    "Races",
    "Min Throughput",
    "Median Throughput",
    "Max Throughput",
    "Unit",
    "P90 latency (ms)",
    "P99 latency (ms)",
    "Median Throughput Diff %",
    "P99 latency Diff %",
)


def seed_rows(comparison: Comparison, *, color: bool = False) -> list[list[str]]:
    """The compact side-by-side table (``--table=seed``): per task, one row per setup (baseline first),
    with Min/Median/Max throughput, P90/P99 latency and the contender's change of median throughput
    and P99 latency against the baseline."""
    tasks: list[str] = []
    for comp in comparison.contenders:
        tasks += [t for t in comp.tasks if t not in tasks]
    out: list[list[str]] = []
    for task in tasks:
        base_done = False
        for comp in comparison.contenders:
            rows = {r.key: r for r in comp.rows if r.task == task and not r.key.startswith("cluster.")}
            if not rows:
                continue
            unit = rows["throughput.median"].unit if "throughput.median" in rows else ""

            def cell(key: str, side: str, rows: dict[str, Row] = rows) -> str:
                r = rows.get(key)
                s = getattr(r, side) if r is not None else None
                return format_value(s.value if s else None, r.unit if r else "")

            def change(key: str, rows: dict[str, Row] = rows) -> str:
                r = rows.get(key)
                if r is None or r.diff is None:
                    return ""
                return _style(_diff_pct_cell(r), r.improvement(comparison.alpha), color)

            if not base_done:
                out.append(
                    [
                        task,
                        comparison.baseline.label + " (baseline)",
                        str(len(comparison.baseline.races)),
                        *(cell(f"throughput.{k}", "baseline") for k in ("min", "median", "max")),
                        unit,
                        cell("latency.p90", "baseline"),
                        cell("latency.p99", "baseline"),
                        "",
                        "",
                    ]
                )
                base_done = True
            out.append(
                [
                    task,
                    comp.contender.label,
                    str(len(comp.contender.races)),
                    *(cell(f"throughput.{k}", "contender") for k in ("min", "median", "max")),
                    unit,
                    cell("latency.p90", "contender"),
                    cell("latency.p99", "contender"),
                    change("throughput.median"),
                    change("latency.p99"),
                ]
            )
    return out


def gate_lines(gate: GateResult) -> list[str]:
    """The gate verdict as lines: passed/FAILED, each violation, rows within the noise, unused rules."""
    lines = []
    if gate.passed:
        lines.append(
            "Regression gate: passed" + (" (with missing measurements allowed)." if gate.missing else ".")
        )
    elif gate.violations:
        n = len(gate.violations)
        lines.append(f"Regression gate: FAILED ({n} violation{'s' if n != 1 else ''}):")
        lines += [f"  - [{v.contender}] {v.message}" for v in gate.violations]
    else:
        n = len(gate.missing)
        lines.append(
            f"Regression gate: FAILED, not measured on both sides ({n} item{'s' if n != 1 else ''}; "
            "--allow-missing accepts this):"
        )
    if gate.missing:
        if gate.violations or gate.passed:
            verb = "allowed by --allow-missing" if gate.allow_missing else "also failing the gate"
            lines.append(f"Not measured on both sides ({verb}):")
        lines += [f"  - [{v.contender}] {v.message}" for v in gate.missing]
    if gate.within_noise:
        lines.append("Beyond a limit but within the noise (not counted):")
        lines += [f"  - [{v.contender}] {v.message}" for v in gate.within_noise]
    for rule in gate.unused_rules:
        lines.append(
            f"Note: threshold {rule.source} (task {rule.task!r}, metric {rule.metric!r}) matched no row."
        )
    return lines


class ViolationJson(TypedDict):
    """One violation of :func:`gate_json`; task, metric and rule are None when it has no row/rule."""

    contender: str
    message: str
    task: str | None
    metric: str | None
    rule: str | None


class GateJson(TypedDict):
    """:func:`gate_json`: the fields of :class:`GateResult`, rules by their ``source``."""

    passed: bool
    violations: list[ViolationJson]
    missing: list[ViolationJson]
    allow_missing: bool
    exit_code: int
    within_noise: list[ViolationJson]
    unused_rules: list[str]


class StatJson(TypedDict):
    """One side's :class:`Stat` of a row (``rsd_pct`` in %, None for fewer than 2 races)."""

    value: float
    values: list[float]
    rsd_pct: float | None
    method: str


class RaceJson(TypedDict):
    """A race of a side, as listed in :func:`comparison_json`."""

    race_id: str
    timestamp: str
    track: str
    status: str


class SideJson(TypedDict):
    """A side's label and races."""

    label: str
    races: list[RaceJson]


class RowJson(TypedDict):
    """One :class:`Row` with its derived values at the comparison's alpha."""

    metric: str
    key: str
    task: str
    unit: str
    baseline: StatJson | None
    contender: StatJson | None
    diff: float | None
    diff_pct: float | None
    higher_is_better: bool
    p_value: float | None
    significant: bool | None
    improvement: bool | None


class ContenderJson(SideJson):
    """A contender side with its rows, the keys only one side has, and its warnings."""

    rows: list[RowJson]
    only_in_baseline: list[str]
    only_in_contender: list[str]
    warnings: list[str]


class ComparisonJson(TypedDict):
    """:func:`comparison_json`; ``gate`` only when a gate was evaluated."""

    baseline: SideJson
    alpha: float
    contenders: list[ContenderJson]
    warnings: list[str]
    gate: NotRequired[GateJson]


def gate_json(gate: GateResult) -> GateJson:
    """The gate outcome as JSON-ready data."""

    def v(x: Violation) -> ViolationJson:
        return {
            "contender": x.contender,
            "message": x.message,
            "task": x.row.task if x.row else None,
            "metric": x.row.key if x.row else None,
            "rule": x.rule.source if x.rule else None,
        }

    return {
        "passed": gate.passed,
        "violations": [v(x) for x in gate.violations],
        "missing": [v(x) for x in gate.missing],
        "allow_missing": gate.allow_missing,
        "exit_code": gate.exit_code,
        "within_noise": [v(x) for x in gate.within_noise],
        "unused_rules": [r.source for r in gate.unused_rules],
    }


def _stat_json(s: Stat | None) -> StatJson | None:
    if s is None:
        return None
    return {"value": s.value, "values": list(s.values), "rsd_pct": s.rsd, "method": s.method}


def comparison_json(comparison: Comparison, gate: GateResult | None = None) -> ComparisonJson:
    """The whole comparison as JSON-ready data (rows with per-race values, p-values, warnings, gate)."""

    def side(s: Side) -> SideJson:
        return {
            "label": s.label,
            "races": [
                {"race_id": r.race_id, "timestamp": r.timestamp, "track": r.track, "status": r.status}
                for r in s.races
            ],
        }

    def row(r: Row) -> RowJson:
        return {
            "metric": r.metric,
            "key": r.key,
            "task": r.task,
            "unit": r.unit,
            "baseline": _stat_json(r.baseline),
            "contender": _stat_json(r.contender),
            "diff": r.diff,
            "diff_pct": r.diff_pct,
            "higher_is_better": r.higher_is_better,
            "p_value": r.welch.p_value if r.welch else None,
            "significant": r.significant(comparison.alpha),
            "improvement": r.improvement(comparison.alpha),
        }

    out: ComparisonJson = {
        "baseline": side(comparison.baseline),
        "alpha": comparison.alpha,
        "contenders": [
            {
                **side(c.contender),
                "rows": [row(r) for r in c.rows],
                "only_in_baseline": list(c.only_in_baseline),
                "only_in_contender": list(c.only_in_contender),
                "warnings": list(c.warnings),
            }
            for c in comparison.contenders
        ],
        "warnings": all_warnings(comparison),
    }
    if gate is not None:
        out["gate"] = gate_json(gate)
    return out


def render_comparison(
    comparison: Comparison,
    *,
    fmt: str = "text",
    table: str = "rally",
    color: bool = False,
    gate: GateResult | None = None,
    numbers_align: NumbersAlign | None = None,
    rally_header: bool = True,
) -> str:
    """Render ``comparison`` (and the gate outcome, if given) as text.

    Args:
        fmt: ``text`` (side descriptions, one pipe table per contender, ``[WARNING]`` lines, gate),
            ``markdown`` (headings, pipe tables, lists), ``csv`` (one table; a ``Contender race(s)``
            column is added when there are several contenders; warnings and gate are not included)
            or ``json`` (:func:`comparison_json`; ``table`` is ignored).
        table: ``rally`` (Rally's compare columns) or ``seed`` (compact: :func:`seed_rows`).
        color: colour Diff and Diff % green/red by improvement (text only; use on a TTY).
        numbers_align: alignment of the number columns of the text and markdown tables (Rally's
            ``--report-numbers-align``; tabulate's alignments); None: right-aligned like the text.
        rally_header: in the text of one baseline race and one contender race, start with Rally's
            header block (:func:`~esbench.reporting.compare_header.rally_header_lines`) instead of
            esbench's side lines; False leaves both out, so the text starts with the table (what
            Rally writes to ``--report-file``). Sides of several races keep esbench's lines.

    Raises:
        ConfigError: unknown ``fmt`` or ``table``.
    """
    check_format(fmt)
    if table not in TABLES:
        raise ConfigError(f"Unknown table {table!r} given with --table. Use one of: {', '.join(TABLES)}.")
    if fmt == "json":
        return dump_json(comparison_json(comparison, gate))
    color = color and fmt == "text"
    several = len(comparison.contenders) > 1
    if table == "seed":
        headers, blocks = list(SEED_HEADERS), [("", seed_rows(comparison, color=color))]
    else:
        headers = _headers(comparison)
        blocks = [
            (
                f"Contender {i} of {len(comparison.contenders)}: {side_description(c.contender)}"
                if several
                else f"Contender: {side_description(c.contender)}",
                rally_rows(comparison, c, color=color),
            )
            for i, c in enumerate(comparison.contenders, start=1)
        ]
    if fmt == "csv":
        if table == "rally" and several:
            rows = [[*r, c.contender.label] for c in comparison.contenders for r in rally_rows(comparison, c)]
            return csv_table([*headers, "Contender race(s)"], rows)
        return csv_table(headers, [r for _, rows in blocks for r in rows])
    warnings = all_warnings(comparison)
    verdict = gate_lines(gate) if gate is not None else []
    baseline_line = f"Baseline: {side_description(comparison.baseline)}"
    if fmt == "markdown":
        parts = [f"**{baseline_line}**"]
        if table == "seed":
            parts += [f"**Contender: {side_description(c.contender)}**" for c in comparison.contenders]
        for title, rows in blocks:
            if title:
                parts.append(f"### {title}")
            parts.append(_pipe(headers, rows, numbers_align))
        if comparison.has_statistics:
            parts.append(_stats_note(comparison, table))
        if warnings:
            parts.append("**Warnings**\n\n" + "\n".join(f"- {w}" for w in warnings))
        if verdict:
            parts.append("**" + verdict[0] + "**" + ("\n\n" + "\n".join(verdict[1:]) if verdict[1:] else ""))
        return "\n\n".join(parts) + "\n"
    pair = single_races(comparison)
    if pair is not None:
        # Rally's compare of two races: its header block (printed), or the table first (the file).
        parts = ["\n".join(rally_header_lines(*pair))] if rally_header else []
        blocks = [("", rows) for _, rows in blocks]
    else:
        parts = [baseline_line]
        if table == "seed":
            parts += [f"Contender: {side_description(c.contender)}" for c in comparison.contenders]
    for title, rows in blocks:
        parts.append((title + "\n\n" if title else "") + _pipe(headers, rows, numbers_align))
    if comparison.has_statistics:
        parts.append(_stats_note(comparison, table))
    if warnings:
        parts.append("\n".join(f"[WARNING] {w}" for w in warnings))
    if verdict:
        parts.append("\n".join(verdict))
    return "\n\n".join(parts) + "\n"


def _stats_note(comparison: Comparison, table: str) -> str:
    note = (
        "Several races per side: throughput = mean of the races' values, percentiles = recomputed from "
        "the merged HDR histograms, error rate = pooled"
    )
    if table == "seed":
        return note + "; use --table=rally for the relative standard deviations and significance tests."
    return note + (
        "; RSD = relative standard deviation of the per-race values; Significant = Welch's t-test on the "
        f"per-race values, p < {comparison.alpha:g}."
    )
