"""The trend as a table (``text``, ``markdown``, ``csv``, ``json``) and the verdict lines.

One row per task and race, oldest race first; the row of the first race after a change point says
so in the ``Change`` column (``regression +19.5 % (p=1.5e-09)``). Text and markdown round values to
5 significant digits; csv and json keep full precision.
"""

from __future__ import annotations

from esbench.reporting.formats import Cell, render_table
from esbench.trend.model import ChangePoint, TaskTrend
from esbench.trend.report import TrendReport

HEADERS: tuple[str, ...] = ("Race", "Race ID", "Race Timestamp", "Task", "Value", "Unit", "Change")


def _rounded(value: float, fmt: str) -> Cell:
    return float(f"{value:.5g}") if fmt in ("text", "markdown") else value


def _pct(point: ChangePoint) -> str:
    pct = point.change_pct
    return "n/a" if pct is None else f"{pct:+.1f} %"


def change_text(point: ChangePoint) -> str:
    """``regression +19.5 % (p=1.5e-09)``: the ``Change`` cell of a change point's row."""
    kind = "regression" if point.regression else "improvement"
    return f"{kind} {_pct(point)} (p={point.pvalue:.2g})"


def table_rows(report: TrendReport, fmt: str) -> list[list[Cell]]:
    """The rows of :data:`HEADERS` (race numbers count the selected races from 1)."""
    ordinal = {race.race_id: n for n, race in enumerate(report.races, start=1)}
    rows: list[list[Cell]] = []
    for trend in report.trends:
        changes = {c.index: c for c in trend.change_points}
        for index, point in enumerate(trend.series.points):
            change = changes.get(index)
            rows.append(
                [
                    ordinal[point.race_id],
                    point.race_id,
                    point.timestamp,
                    trend.series.task,
                    _rounded(point.value, fmt),
                    point.unit,
                    change_text(change) if change is not None else "",
                ]
            )
    return rows


def render_trend_table(report: TrendReport, *, fmt: str) -> str:
    """The table in ``fmt``; the value column is titled with the metric (``Latency p50``).

    Raises:
        ConfigError: unknown ``fmt``.
    """
    headers = list(HEADERS)
    headers[HEADERS.index("Value")] = report.metric.label
    return render_table(headers, table_rows(report, fmt), fmt=fmt)


def _change_line(report: TrendReport, trend: TaskTrend, point: ChangePoint) -> str:
    number = 1 + next(n for n, r in enumerate(report.races) if r.race_id == point.race_id)
    unit = trend.series.unit
    way = "rose" if point.mean_after > point.mean_before else "fell"
    return (
        f"[{trend.series.task}] {report.metric.label} {way} {_pct(point)} at race {number} "
        f"({point.race_id[:8]}, {point.timestamp}): {point.mean_before:.5g} -> {point.mean_after:.5g} "
        f"{unit}, p={point.pvalue:.2g}"
    )


def verdict_lines(report: TrendReport) -> list[str]:
    """The change points found, then the verdict: ``Trend verdict: no regression ...`` or ``Trend
    verdict: REGRESSION ...`` naming each task whose newest races start a regression (what
    ``--fail-on-change`` exits 3 on)."""
    d = report.detector
    lines = [
        f"{len(report.races)} race(s); change points by Apache Otava (window {d.window}, max p-value "
        f"{d.max_pvalue:g}, min magnitude {d.min_magnitude_pct:g} %):"
    ]
    found = [(t, c) for t in report.trends for c in t.change_points]
    lines += [f"  - {_change_line(report, t, c)}" for t, c in found] or ["  none."]
    regressions = report.regressions
    if not regressions:
        lines.append("Trend verdict: no regression (no task's newest races start one).")
        return lines
    n = len(regressions)
    lines.append(f"Trend verdict: REGRESSION ({n} task{'s' if n != 1 else ''} whose newest races start one):")
    lines += [f"  - {_change_line(report, t, c)}" for t, c in regressions]
    return lines
