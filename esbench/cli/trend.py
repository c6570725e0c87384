"""``esbench trend``: one metric per task over stored races, its change points, and a CI gate.

Exit codes: 0 (also when change points are found, unless ``--fail-on-change``), 3 with
``--fail-on-change`` when the newest races of a task start a regression
(:data:`esbench.trend.REGRESSION_EXIT_CODE`), 64 for bad input (no matching race, unknown metric or
task, unreadable store; :class:`esbench.exceptions.UserError`), 2 for an option click rejects.
The detector (Apache Otava) is imported only when the command runs: ``--help`` stays light.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from esbench.cli import main
from esbench.cli._params import TAG_FILTER
from esbench.cli._store_options import metrics_store_options, metrics_store_settings
from esbench.cli._tags import parse_tag_filter
from esbench.cli.results import store_option
from esbench.exceptions import UserError
from esbench.reporting.formats import FORMATS, ReportFormat

if TYPE_CHECKING:
    from esbench.records import RaceResult
    from esbench.trend import TrendSelection

#: Otava 0.8.0's defaults, repeated here so that ``--help`` shows them without importing esbench.trend's
#: detector (kept equal by tests/unit/trend/test_trend_cli.py).
_WINDOW, _MAX_PVALUE, _MIN_MAGNITUDE = 50, 0.001, 0.0
_SOURCES = ("results-db", "metrics-store")


def _selection_options(func: Any) -> Any:
    options = (
        click.option("--track", default=None, help="Only races of this track."),
        click.option("--challenge", default=None, help="Only races of this challenge."),
        click.option(
            "--task",
            "tasks",
            multiple=True,
            help="Only this task (repeatable; default: every reported task).",
        ),
        click.option(
            "--user-tag",
            "user_tag",
            type=TAG_FILTER,
            multiple=True,
            help="Only races with this user tag KEY:VALUE (repeatable; the same key twice: either value).",
        ),
        click.option(
            "--since",
            default=None,
            metavar="TIME",
            help="Only races started at or after this UTC time, e.g. 2026-11-01.",
        ),
        click.option(
            "--limit",
            type=click.IntRange(min=0),
            default=0,
            show_default=True,
            help="Only the newest N selected races (0: all).",
        ),
    )
    for option in reversed(options):
        func = option(func)
    return func


def _detector_options(func: Any) -> Any:
    options = (
        click.option(
            "--metric",
            default="throughput-median",
            show_default=True,
            help="throughput-median, throughput-mean, latency-pNN, service-time-pNN (a stored percentile: "
            "p50, p90, p99, p99.9, p100) or error-rate.",
        ),
        click.option(
            "--window",
            type=click.IntRange(min=2),
            default=_WINDOW,
            show_default=True,
            help="Races the detector analyses at once (Otava's default).",
        ),
        click.option(
            "--max-pvalue",
            type=click.FloatRange(min=0, max=1, min_open=True),
            default=_MAX_PVALUE,
            show_default=True,
            help="Keep a change point only if its t-test p-value is below this (Otava's default).",
        ),
        click.option(
            "--min-magnitude",
            type=click.FloatRange(min=0),
            default=_MIN_MAGNITUDE,
            show_default=True,
            metavar="PCT",
            help="Keep a change point only if the means differ by more than PCT % (Otava's default: any).",
        ),
        click.option(
            "--fail-on-change",
            is_flag=True,
            help="Exit with status 3 when the newest races of a task start a regression (throughput drops; "
            "latency, service time or error rate rises).",
        ),
    )
    for option in reversed(options):
        func = option(func)
    return func


@main.command("trend")
@_selection_options
@_detector_options
@click.option(
    "--report-format",
    "fmt",
    type=click.Choice([*FORMATS, ReportFormat.HTML.value]),
    default=ReportFormat.TEXT.value,
    show_default=True,
    help="A table, or html: one page with a chart per task and its change points marked.",
)
@click.option("--report-file", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.option(
    "--source",
    type=click.Choice(_SOURCES),
    default="results-db",
    show_default=True,
    help="Read races from the results store, or from the Elasticsearch metrics store (--metrics-store).",
)
@click.option(
    "--environment",
    default=None,
    help="With --source=metrics-store: only Rally's races of this environment (Rally's env.name; default: "
    "any).",
)
@store_option
@metrics_store_options
def trend_command(**options: Any) -> None:
    """Follow one metric per task over stored races and find where it changed.

    Races are selected by track, challenge, task and user tags, ordered by race time. Change points
    are found with Apache Otava (E-divisive means, t-test); docs/trend.md shows a nightly CI job.
    """
    status = _run(**options)
    if status:
        sys.exit(status)


def _source_races(
    source: str,
    results_db: Path | None,
    store_options: dict[str, Any],
    selection: TrendSelection,
    environment: str | None,
) -> list[RaceResult]:
    from esbench.trend import races_from_metrics_store, races_from_results_db

    if source == "results-db":
        return races_from_results_db(results_db, selection)
    settings = metrics_store_settings(**store_options)
    if settings is None:
        raise UserError(
            "esbench trend --source=metrics-store needs --metrics-store=URL (or the ESBENCH_METRICS_STORE "
            "variable)."
        )
    from esbench.results.store_probe import check_reachable

    check_reachable(settings)
    return races_from_metrics_store(settings, selection, environment=environment)


def _emit(text: str, report_file: Path | None) -> None:
    if report_file is None:
        click.echo(text, nl=False)
        return
    try:
        report_file.parent.mkdir(parents=True, exist_ok=True)
        report_file.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UserError(f"Cannot write the report file {report_file} (--report-file): {e}.", e) from e
    click.echo(f"Wrote the report to {report_file}.", err=True)


def _run(
    *,
    track: str | None,
    challenge: str | None,
    tasks: tuple[str, ...],
    user_tag: tuple[str, ...],
    since: str | None,
    limit: int,
    metric: str,
    window: int,
    max_pvalue: float,
    min_magnitude: float,
    fail_on_change: bool,
    fmt: str,
    report_file: Path | None,
    source: str,
    environment: str | None,
    results_db: Path | None,
    **store_options: Any,
) -> int:
    """Select, analyse, show; the exit status (0, or 3 for a regression with ``fail_on_change``)."""
    from esbench.trend import (
        REGRESSION_EXIT_CODE,
        DetectorSettings,
        TrendSelection,
        build_report,
        describe_selection,
        parse_metric,
    )
    from esbench.trend.render import render_trend_table, verdict_lines

    followed = parse_metric(metric)
    detector = DetectorSettings(window=window, max_pvalue=max_pvalue, min_magnitude_pct=min_magnitude)
    selection = TrendSelection(
        track=track,
        challenge=challenge,
        tasks=tasks,
        user_tags=parse_tag_filter(user_tag),
        since=since,
        limit=limit or None,
    )
    report = build_report(
        _source_races(source, results_db, store_options, selection, environment),
        selection,
        followed,
        detector,
    )
    verdict = "\n".join(verdict_lines(report)) + "\n"
    if fmt == ReportFormat.HTML.value:
        from esbench.trend.plot import write_trend_html

        path = report_file or Path(f"esbench-trend-{followed.name}.html")
        title = f"esbench trend: {followed.label} of {describe_selection(selection)}"
        write_trend_html(report, path, title=title)
        click.echo(f"Wrote the report to {path}.", err=True)
        click.echo(verdict, nl=False, err=True)
    elif fmt in (ReportFormat.TEXT.value, ReportFormat.MARKDOWN.value) and report_file is None:
        click.echo(render_trend_table(report, fmt=fmt) + "\n" + verdict, nl=False)
    else:
        # csv and json stay machine-readable; the verdict goes beside them, to stderr.
        _emit(render_trend_table(report, fmt=fmt), report_file)
        click.echo(verdict, nl=False, err=True)
    return REGRESSION_EXIT_CODE if fail_on_change and report.regressions else 0


# ``metrics_store_options`` is shared with ``export``, whose help says where races are exported to.
for _param in trend_command.params:
    if _param.name == "metrics_store" and isinstance(_param, click.Option):
        _param.help = (
            "The Elasticsearch metrics store to read races from with --source=metrics-store, e.g. "
            "https://user:pass@host:9200 (env ESBENCH_METRICS_STORE)."
        )
