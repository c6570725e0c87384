"""The tables of the HTML report: the key numbers at the top, the summary, the compare table.

Every number goes through :func:`esbench.reporting.numbers.human` (the page's one formatting rule),
so the tables show ``0.00563``, never ``0.005633333333333333``. The key numbers are, per task, what a
reader looks for first: median throughput, p50 and p99 latency and the error rate (Rally's summary
rows of the same names); on a comparison page, each with the contender's change and whether it is
significant (Welch's t-test of :mod:`esbench.reporting.compare`, when a side has several races).
"""

from __future__ import annotations

from collections.abc import Sequence

from esbench.records import RaceResult
from esbench.reporting.compare import Comparison, ContenderComparison, Row
from esbench.reporting.compare_render import HEADERS, SEED_HEADERS, STAT_HEADERS, seed_rows
from esbench.reporting.html_page import esc
from esbench.reporting.numbers import human, signed
from esbench.reporting.summary import HEADERS as SUMMARY_HEADERS
from esbench.reporting.summary import reported_tasks, summary_rows

KEY_HEADERS: tuple[str, ...] = ("Task", "Throughput (median)", "p50 latency", "p99 latency", "Error rate")
#: (row key of :class:`~esbench.reporting.compare.Row`, column title) of the compare page's key numbers.
KEY_ROWS: tuple[tuple[str, str], ...] = (
    ("throughput.median", "Throughput (median)"),
    ("latency.p50", "p50 latency"),
    ("latency.p99", "p99 latency"),
    ("error_rate", "Error rate"),
)


def _number(cell: object) -> str:
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return str(cell)
    if isinstance(cell, int | float):
        return human(float(cell))
    if isinstance(cell, str):
        try:
            return human(float(cell.replace(",", "")))
        except ValueError:
            return cell
    return str(cell)


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[object]],
    classes: Sequence[Sequence[str]] = (),
    *,
    text_columns: int = 2,
    klass: str = "summary",
) -> str:
    """An HTML table (first two columns left-aligned); cells of the first ``text_columns`` columns
    are written as given, numbers (and number strings) in the others by
    :func:`~esbench.reporting.numbers.human`; ``classes[i][j]`` is a CSS class of cell ``(i, j)``
    (``better``/``worse`` colour it)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for i, row in enumerate(rows):
        row_classes = classes[i] if i < len(classes) else ()
        cells = []
        for j, cell in enumerate(row):
            cls = [row_classes[j]] if j < len(row_classes) and row_classes[j] else []
            if j < 2:
                cls.append("s")  # left-aligned names
            text = ("" if cell is None else str(cell)) if j < text_columns else _number(cell)
            attr = f' class="{" ".join(cls)}"' if cls else ""
            cells.append(f"<td{attr}>{esc(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table class="{klass}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def summary_table(race: RaceResult, *, show_processing_time: bool = False) -> str:
    """The summary table: the rows of ``--report-format=text``, numbers as the page writes them."""
    rows = summary_rows(race, show_processing_time=show_processing_time)
    return table(SUMMARY_HEADERS, [(m, t, v, u) for m, t, v, u in rows], text_columns=2)


def key_numbers(race: RaceResult) -> str:
    """The key numbers of ``race``: one row per reported task (see the module docstring)."""
    rows = []
    for task in reported_tasks(race):
        rows.append(
            (
                task.task,
                human(task.throughput_median, task.throughput_unit) if task.throughput_mean else "–",
                human(task.latency_ms.get("50"), "ms") if "50" in task.latency_ms else "–",
                human(task.latency_ms.get("99"), "ms") if "99" in task.latency_ms else "–",
                human(task.error_rate * 100.0, "%"),
            )
        )
    return table(KEY_HEADERS, rows, text_columns=len(KEY_HEADERS), klass="summary key")


def significance(row: Row, alpha: float) -> str:
    """How sure the difference of ``row`` is: ``"significant (p = 0.003)"``, ``"significant
    (p < 0.001)"``, ``"not significant (p = 0.4)"``, or ``"untested (one race per side)"`` when a side
    has fewer than 2 races (``""`` for no difference)."""
    if row.welch is None:
        return "untested (one race per side)" if row.diff else ""
    word = "significant" if row.welch.significant(alpha) else "not significant"
    p = row.welch.p_value
    # Below 0.001 the digits say nothing more (and would round to "p = 0").
    return f"{word} (p < 0.001)" if p < 0.001 else f"{word} (p = {human(p)})"


def _mark(row: Row, alpha: float) -> str:
    better = row.improvement(alpha)
    return "" if better is None else ("better" if better else "worse")


def _change(row: Row) -> str:
    if row.diff is None:
        return ""
    return "n/a" if row.diff_pct is None else signed(row.diff_pct, "%")


def _rsd(row: Row) -> list[str]:
    sides = (row.baseline, row.contender)
    return [human(s.rsd) if s is not None and s.rsd is not None else "" for s in sides]


def compare_rows(
    comparison: Comparison, comp: ContenderComparison
) -> tuple[list[list[str]], list[list[str]]]:
    """Rows (and cell classes) of one contender's compare table: Rally's columns, the relative
    standard deviations when a side has several races, and the significance of each difference;
    numbers as the page writes them."""
    rows, classes = [], []
    for row in comp.rows:
        mark = _mark(row, comparison.alpha)
        rows.append(
            [
                row.metric,
                row.task,
                human(row.baseline.value if row.baseline else None),
                human(row.contender.value if row.contender else None),
                signed(row.diff) if row.diff is not None else "",
                row.unit,
                _change(row),
                *(_rsd(row) if comparison.has_statistics else ()),
                significance(row, comparison.alpha),
            ]
        )
        classes.append(["", "", "", "", mark, "", mark])
    return rows, classes


def compare_headers(comparison: Comparison) -> tuple[str, ...]:
    """The columns of :func:`compare_rows`."""
    return (*HEADERS, *(STAT_HEADERS[:2] if comparison.has_statistics else ()), "Significance")


def compare_tables(comparison: Comparison, table_kind: str = "rally") -> str:
    """The compare table of every contender (with ``<h3>`` titles when there are several);
    ``table_kind`` ``seed`` gives the compact table of ``--table=seed`` instead."""
    if table_kind == "seed":
        return table(SEED_HEADERS, seed_rows(comparison), text_columns=2)
    parts = []
    headers = compare_headers(comparison)
    for c in comparison.contenders:
        rows, classes = compare_rows(comparison, c)
        if len(comparison.contenders) > 1:
            parts.append(f"<h3>Contender {esc(c.contender.label)}</h3>")
        parts.append(table(headers, rows, classes, text_columns=len(headers)))
    if comparison.has_statistics:
        parts.append(
            '<p class="note">RSD: relative standard deviation of the per-race values. Significance: '
            "Welch's t-test on the per-race values, significant when p &lt; "
            f"{esc(human(comparison.alpha))}.</p>"
        )
    return "".join(parts)


def compare_key_numbers(comparison: Comparison) -> str:
    """The key numbers of a comparison: per contender and task, baseline, contender, change and
    significance of median throughput, p50 and p99 latency and the error rate."""
    headers = ("Task", "Metric", "Baseline", "Contender", "Change", "Significance")
    parts = []
    for c in comparison.contenders:
        by_key = {(r.task, r.key): r for r in c.rows}
        rows, classes = [], []
        for task in c.tasks:
            for key, title in KEY_ROWS:
                row = by_key.get((task, key))
                if row is None:
                    continue
                unit = row.unit
                rows.append(
                    [
                        task,
                        title,
                        human(row.baseline.value if row.baseline else None, unit),
                        human(row.contender.value if row.contender else None, unit),
                        _change(row),
                        significance(row, comparison.alpha),
                    ]
                )
                mark = _mark(row, comparison.alpha)
                classes.append(["", "", "", "", mark, ""])
        if len(comparison.contenders) > 1:
            parts.append(f"<h3>{esc(c.contender.label)} against {esc(comparison.baseline.label)}</h3>")
        parts.append(table(headers, rows, classes, text_columns=len(headers), klass="summary key"))
    return "".join(parts)
