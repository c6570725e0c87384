"""Stage 5 of a race: store and report.

Every race that measured something, completed or not, goes through here: ``results.json`` in its
race directory, the results store, the metrics store (``--metrics-store``), the report
(``--report-format``; printed, and with ``--report-file`` also appended there) and the one last line
saying how it went.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from esbench.console import Console
from esbench.exceptions import EsbenchError
from esbench.records import STATUS_COMPLETED, STATUS_FAILED, RaceResult
from esbench.reporting.formats import GRAPHIC_FORMATS, ReportFormat, add_to_report_file
from esbench.reporting.summary import render_summary
from esbench.reporting.verdict import last_line_status, race_problems
from esbench.results.files import write_results_file
from esbench.results.metrics_store import MetricsStoreSettings, resolve_metrics_store
from esbench.results.store import ResultsStore
from esbench.settings import RaceSettings


def store_and_report(result: RaceResult, race_dir: Path, settings: RaceSettings, console: Console) -> None:
    """Write ``results.json`` into ``race_dir``, save the race in the results store, export it to
    the metrics store, print or write the report and the last line. Each step is attempted even
    if an earlier one failed (a failure is a warning, never an exception)."""
    write_results_file(result, race_dir / "results.json")
    try:
        ResultsStore.open().save(result)
    except EsbenchError as e:
        console.warn(f"The race was not added to the results store: {e} Its results are in {race_dir}.")
    try:
        store = metrics_store_of(settings)
    except EsbenchError as e:
        console.warn(f"Export to the metrics store failed: {e}")
        store = None
    if store is not None:
        _export(result, store, console)
    if settings.report.fmt in GRAPHIC_FORMATS:
        _write_graphic_report(result, race_dir, settings, console)
        # The file is for a browser; the terminal still gets the summary a race always prints.
        print(render_summary(printed(result), **_summary_options(settings)))
    elif settings.report.file is not None:
        # Rally's and OSB's --report-file/--results-file: the summary is printed and also appended
        # to the file (esrally/reporter.py write_single_report, osbenchmark/publisher.py
        # write_single_results; add_to_report_file).
        fmt = settings.report.fmt
        print(render_summary(printed(result, fmt), fmt=fmt, **_summary_options(settings)))
        report = render_summary(result, fmt=fmt, **_summary_options(settings))
        text = report + ("" if report.endswith("\n") else "\n")
        try:
            appended = add_to_report_file(text, settings.report.file, fmt)
        except OSError as e:
            console.warn(f"The report was not written to {settings.report.file}: {e}")
        else:
            console.info(f"Report {'appended' if appended else 'written'} to {settings.report.file}")
    else:
        print(
            render_summary(
                printed(result, settings.report.fmt), fmt=settings.report.fmt, **_summary_options(settings)
            )
        )
    # [SUCCESS] only when every task measured something and none failed on every request.
    problems = race_problems(result)
    line = f"{last_line_status(result.status, problems)} race {result.race_id} "
    line += f"({result.duration_s:.1f} s); results in {race_dir}"
    if problems and result.status == STATUS_COMPLETED:
        console.warn(line.removeprefix("[WARNING] "))
    else:
        console.info(line)


def printed(result: RaceResult, fmt: str = ReportFormat.TEXT) -> RaceResult:
    """The race as the report printed on the terminal shows it: a failed race without its reason
    in the text and markdown formats.

    ``esbench race`` ends a failed race with one ``[ERROR]`` line that gives the reason and the race
    log (esbench/cli/race.py); the report above it printed the same reason twice more (``Status:``
    and a ``[WARNING]`` line). The stored results, ``--report-file`` and the json/csv reports (data
    for programs) keep it.
    """
    if (
        result.status != STATUS_FAILED
        or not result.error
        or fmt not in (ReportFormat.TEXT, ReportFormat.MARKDOWN)
    ):
        return result
    return replace(result, error=None)


def _write_graphic_report(
    result: RaceResult, race_dir: Path, settings: RaceSettings, console: Console
) -> None:
    """``--report-format=html|png``: the file goes to ``--report-file`` or ``race_dir/report.html|png``."""
    from esbench.reporting.html import write_race_report

    report = settings.report
    path = report.file or race_dir / f"report.{report.fmt}"
    try:
        write_race_report(result, fmt=report.fmt, path=path, show_processing_time=report.show_processing_time)
    except EsbenchError as e:
        console.warn(f"The {report.fmt} report was not written: {e}")
        return
    console.info(f"Report written to {path}")


def metrics_store_of(settings: RaceSettings) -> MetricsStoreSettings | None:
    """The race's metrics store: ``--metrics-store`` / ``$ESBENCH_METRICS_STORE``, else the
    ``[reporting]`` section of esbench.ini (:func:`esbench.results.metrics_store.resolve_metrics_store`);
    None when neither configures one.

    Raises:
        ConfigError: a malformed URL or ini section.
    """
    return resolve_metrics_store(settings.metrics_store)


def _export(result: RaceResult, store: MetricsStoreSettings, console: Console) -> None:
    from esbench.results.es_export import export_race

    try:
        export_race(result, store)
    except EsbenchError as e:
        console.warn(f"Export to the metrics store failed: {e}")


def _summary_options(settings: RaceSettings) -> dict[str, Any]:
    """The keyword arguments of :func:`render_summary` that ``settings.report`` gives."""
    report = settings.report
    return {
        "show_processing_time": report.show_processing_time,
        "numbers_align": report.numbers_align,
        "show": report.show_in_report,
        "percentiles": report.percentiles,
    }
