"""Table writers shared by the summary report and the compare report.

A table is a header row plus rows of cells; a cell is a ``str``, an ``int``/``float`` or None. As in
Rally (esrally ``reporter.py``), a cell may be a pre-formatted numeric string such as ``"671.92"``
(Rally formats throughput and error rate with ``"%.2f"``): the text and markdown writers let tabulate
parse it back and print it like any other number (tabulate's default ``"g"`` format, 6 significant
digits), the CSV writer keeps it verbatim and the JSON writer turns it into a number.

Formats (:data:`FORMATS`):

- ``text``: the console table, exactly Rally's: tabulate ``pipe`` layout, numbers aligned on the
  decimal point, strings right-aligned.
- ``markdown``: the same pipe table (valid GitHub markdown).
- ``csv``: RFC 4180 via :mod:`csv`, header row first, numbers verbatim (full precision).
- ``json``: a list of objects keyed by :func:`json_key` of each header, numbers as numbers.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path

from esbench.console import tabulate
from esbench.exceptions import ConfigError


class ReportFormat(StrEnum):
    """``--report-format``: the table formats, then the chart formats (:mod:`esbench.reporting.html`)."""

    TEXT = "text"
    MARKDOWN = "markdown"
    CSV = "csv"
    JSON = "json"
    #: One self-contained page of charts.
    HTML = "html"
    #: One chart.
    PNG = "png"


class NumbersAlign(StrEnum):
    """``--report-numbers-align``: tabulate's ``numalign`` of the number columns (Rally's
    ``reporting.numbers.align``, ``esrally/reporter.py`` ``format_as_markdown``)."""

    RIGHT = "right"
    CENTER = "center"
    LEFT = "left"
    DECIMAL = "decimal"


class ShowInReport(StrEnum):
    """``--show-in-report``: which summary rows are shown (Rally's ``reporting.values``,
    ``esrally/reporter.py`` ``SummaryReporter``)."""

    #: The rows that have a value (a percentile a task has too few samples for is left out).
    AVAILABLE = "available"
    #: Every percentile row of the latency/service/processing time (``-`` where a task has no value).
    ALL_PERCENTILES = "all-percentiles"
    #: Every row: also the rows of values a task lacks (error rate, throughput...), shown as ``-``.
    ALL = "all"


FORMATS: tuple[str, ...] = tuple(
    f.value for f in (ReportFormat.TEXT, ReportFormat.MARKDOWN, ReportFormat.CSV, ReportFormat.JSON)
)

#: Formats that write a file with charts instead of a table (:mod:`esbench.reporting.html`).
GRAPHIC_FORMATS: tuple[str, ...] = (ReportFormat.HTML.value, ReportFormat.PNG.value)

#: Every ``--report-format`` value of ``esbench report`` and ``esbench compare``.
REPORT_FORMATS: tuple[str, ...] = FORMATS + GRAPHIC_FORMATS

Cell = str | int | float | None


def check_format(fmt: str, *, option: str = "--report-format") -> str:
    """Return ``fmt`` if it is one of :data:`FORMATS`.

    Raises:
        ConfigError: unknown format; the message names ``option`` and the valid values.
    """
    if fmt not in FORMATS:
        raise ConfigError(
            f"Unknown report format {fmt!r} given with {option}. Use one of: {', '.join(FORMATS)}."
        )
    return fmt


def pipe_table(headers: Sequence[str], rows: Sequence[Sequence[Cell]], *, numalign: str = "decimal") -> str:
    """A tabulate ``pipe`` table like Rally's console report (no trailing newline).

    ``numalign`` is Rally's ``numbers.align`` (``decimal``, ``right``, ``left``, ``center``).
    """
    return tabulate(
        [list(r) for r in rows], headers=list(headers), tablefmt="pipe", numalign=numalign, stralign="right"
    )


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def is_number_text(cell: str) -> bool:
    """Whether a pre-formatted cell is a number (``"+1.20"``, ``"-3.5%"``, coloured or not) or empty."""
    text = _ANSI.sub("", cell).strip().rstrip("%")
    if not text:
        return True
    try:
        float(text)
    except ValueError:
        return False
    return True


def csv_table(headers: Sequence[str], rows: Sequence[Sequence[Cell]]) -> str:
    """CSV text with a header row; None becomes an empty field, numbers are written verbatim."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    for r in rows:
        writer.writerow(["" if c is None else c for c in r])
    return out.getvalue()


def json_key(header: str) -> str:
    """The JSON key of a column header: lower case, spaces to underscores, ``%`` to ``pct``.

    ``"Metric" -> "metric"``, ``"Diff %" -> "diff_pct"``.
    """
    return header.strip().lower().replace("%", "pct").replace(" ", "_")


def json_number(cell: Cell) -> Cell:
    """A numeric string (``"671.92"``) as a float; anything else unchanged."""
    if isinstance(cell, str):
        try:
            return float(cell)
        except ValueError:
            return cell
    return cell


def json_rows(headers: Sequence[str], rows: Sequence[Sequence[Cell]]) -> list[dict[str, Cell]]:
    """Rows as JSON-ready dicts keyed by :func:`json_key` of the headers, numeric strings as numbers."""
    keys = [json_key(h) for h in headers]
    return [dict(zip(keys, (json_number(c) for c in r), strict=True)) for r in rows]


def dump_json(data: object) -> str:
    """Pretty JSON text (2-space indent, UTF-8 kept, trailing newline).

    Raises:
        TypeError: ``data`` holds a value that is not JSON (``json.dumps``).
    """
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def render_table(
    headers: Sequence[str], rows: Sequence[Sequence[Cell]], *, fmt: str, numalign: str = NumbersAlign.DECIMAL
) -> str:
    """One table in ``fmt`` (see the module docstring); text/markdown end with a newline, their
    numbers aligned as ``numalign`` says (:class:`NumbersAlign`; CSV and JSON have no alignment).

    Raises:
        ConfigError: unknown ``fmt``.
    """
    check_format(fmt)
    if fmt in ("text", "markdown"):
        return pipe_table(headers, rows, numalign=str(numalign)) + "\n"
    if fmt == "csv":
        return csv_table(headers, rows)
    return dump_json(json_rows(headers, rows))


def add_to_report_file(text: str, path: Path, fmt: str) -> bool:
    """``--report-file`` (OSB's ``--results-file``) of ``race`` and ``compare``: append ``text``
    (ANSI colours removed) to ``path``, creating it and its directory, as Rally and OSB do
    (``esrally/reporter.py`` ``write_single_report`` and ``osbenchmark/publisher.py``
    ``write_single_results`` open the file with ``mode="a+"``); the json format, which neither has,
    is written anew, so that the file holds one JSON document. Returns whether it appended.

    Raises:
        OSError: the file or its directory cannot be written.
    """
    append = fmt != ReportFormat.JSON
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a" if append else "w", encoding="utf-8") as f:
        f.write(_ANSI.sub("", text))
    return append
