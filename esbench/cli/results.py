"""Commands on stored races: ``list races``, ``compare``, ``report``, ``delete race``, ``export``.

All of them read the local results store (:mod:`esbench.results.store`). Exit codes: 0 success,
64 user error (unknown race, bad value or thresholds file, unreadable store), 2 an option click
rejects (unknown option, value out of range), 3 when ``compare --fail-on-regression`` /
``--thresholds`` finds a regression (:data:`esbench.reporting.gate.REGRESSION_EXIT_CODE`), 4 when the
gate cannot judge a metric measured in the baseline only (:data:`esbench.reporting.gate.MISSING_EXIT_CODE`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from esbench.cli import list_group, main
from esbench.cli._osb_names import TEST_RUN_HEADERS, called_as_osb, test_run_row
from esbench.cli._store_options import (
    SOURCE_METRICS_STORE,
    check_environment_applies,
    metrics_store_options,
    metrics_store_settings,
    reading_settings,
    reading_store_help,
    source_options,
)
from esbench.cli._tags import parse_tag_filter
from esbench.cli.options import table_options
from esbench.console import tabulate
from esbench.exceptions import UserError
from esbench.records import RaceResult, RaceStatus
from esbench.reporting.compare import DEFAULT_ALPHA, Side, all_warnings, compare_races
from esbench.reporting.compare_render import TABLES, CompareTable, gate_lines, render_comparison
from esbench.reporting.formats import GRAPHIC_FORMATS, REPORT_FORMATS, NumbersAlign, add_to_report_file
from esbench.reporting.gate import default_rules, evaluate_gate, load_thresholds
from esbench.results.store import ResultsStore, describe_race, parse_tag_ref

F = TypeVar("F", bound=Callable[..., Any])


def _open_store(path: Path | None) -> ResultsStore:
    return ResultsStore.open(path)


#: ``--results-db``: the results store of every command that reads or writes stored races.
store_option = click.option(
    "--results-db",
    "results_db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The results store file (default: ESBENCH_HOME/results.db).",
)


def _report_options(func: F) -> F:
    """``--report-format`` and ``--report-file`` of ``report`` (compare takes them from the option table)."""
    func = click.option(
        "--report-file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Write the report here.",
    )(func)
    return click.option(
        "--report-format",
        "fmt",
        type=click.Choice(REPORT_FORMATS),
        default="text",
        show_default=True,
        help="html: one self-contained page of charts and the table; png: one chart (see docs/reporting.md).",
    )(func)


# ------------------------------------------------------------------------------------ list races


@list_group.command("races")
@table_options("list races")
@click.option(
    "--status",
    type=click.Choice([s.value for s in RaceStatus]),
    default=None,
    help="Only races with this status (Rally stores completed races only).",
)
@store_option
@source_options
def list_races(
    user_tag: tuple[str, ...],
    track: str | None,
    challenge: str | None,
    benchmark_name: str | None,
    from_date: str | None,
    to_date: str | None,
    status: str | None,
    limit: int,
    fmt: str,
    results_db: Path | None,
    source: str,
    environment: str,
    quiet: bool,
    offline: bool,
    **store_options: Any,
) -> None:
    """List stored races, newest first, with Rally's columns (as OSB's list test-runs: OSB's columns).

    Use a race id (or a unique prefix) or tag:KEY:VALUE with `esbench compare` and `esbench report`.
    """
    from esbench.results.race_listing import LIST_HEADERS, ListedRace, RaceFilter, parse_list_date

    check_environment_applies(source)
    flt = RaceFilter(
        track=track,
        challenge=challenge,
        status=status,
        environment=environment,
        benchmark_name=benchmark_name,
        user_tags=parse_tag_filter(user_tag),
        from_date=parse_list_date(from_date, "--from-date") if from_date else None,
        to_date=parse_list_date(to_date, "--to-date") if to_date else None,
    )
    listed: list[ListedRace]
    if source == SOURCE_METRICS_STORE:
        from esbench.results.es_read import list_races as store_list

        listed = store_list(reading_settings("list races", store_options), flt, limit=limit or None)
    else:
        from esbench.results.metrics_store import environment_name

        with _open_store(results_db) as store:
            # Rally's filters the store's query lacks are applied here, before the limit.
            found = store.find(user_tags=flt.user_tags or None, track=track, status=status, load_tasks=False)
            kept = [r for r in found if flt.matches(r)][: limit or None]
            if fmt == "json":
                # Rally's FileRaceStore lists each race with its results: read the listed races whole.
                kept = [store.get(r.race_id) for r in kept]
        # A race stored before esbench recorded its environment: the env.name configured now (json only).
        environment_now = environment_name() if fmt == "json" else None
        listed = [ListedRace.from_race(r, environment=environment_now, results=fmt == "json") for r in kept]
    if fmt == "json":
        click.echo(json.dumps({"races": [r.as_dict() for r in listed]}, indent=2))
        return
    if called_as_osb():
        # OSB's list test-runs: its words and columns (osbenchmark/metrics.py list_test_helper).
        if not listed:
            click.echo("\nNo recent test-runs found.")
            return
        click.echo("\nRecent test-runs:\n")
        rows = [test_run_row(r) for r in listed]
        click.echo(tabulate(rows, headers=list(TEST_RUN_HEADERS), disable_numparse=True))
        return
    if not listed:
        # On stdout after a blank line, as Rally's and OSB's console.println print it (metrics.py).
        click.echo("\nNo recent races found.")
        return
    click.echo("\nRecent races:\n")
    click.echo(tabulate([r.row() for r in listed], headers=list(LIST_HEADERS), disable_numparse=True))


# ------------------------------------------------------------------------------------ compare


def _side(ref: str, races: list[RaceResult]) -> Side:
    ref = ref.strip()  # as resolve() does: " tag:a:b" is a tag, and its label must say so
    label = ref if parse_tag_ref(ref) is not None else races[0].race_id[:8]
    return Side(label=label, races=tuple(races))


def _resolve_all(
    refs: tuple[str, ...],
    results_db: Path | None,
    source: str,
    environment: str,
    store_options: dict[str, Any],
) -> list[list[RaceResult]]:
    """The races each of ``refs`` names, in the results store or (``source``) the metrics store."""
    check_environment_applies(source)
    if source == SOURCE_METRICS_STORE:
        from esbench.results.es_read import resolve_races

        settings = reading_settings("this command", store_options)
        return [resolve_races(settings, ref, environment=environment) for ref in refs]
    with _open_store(results_db) as store:
        return [store.resolve(ref) for ref in refs]


def _write_report(text: str, report_file: Path | None, *, color: bool) -> None:
    if report_file is None:
        click.echo(text, nl=False, color=color)
        return
    try:
        report_file.parent.mkdir(parents=True, exist_ok=True)
        report_file.write_text(click.unstyle(text), encoding="utf-8")
    except OSError as e:
        raise UserError(f"Cannot write the report file {report_file} (--report-file): {e}.", e) from e
    click.echo(f"Wrote the report to {report_file}.", err=True)


def _append_report(text: str, report_file: Path, *, fmt: str) -> None:
    """:func:`~esbench.reporting.formats.add_to_report_file`, and a line on stderr saying so.

    Raises:
        UserError: the file cannot be written (the message names it and the OS error).
    """
    try:
        appended = add_to_report_file(text, report_file, fmt)
    except OSError as e:
        raise UserError(f"Cannot write the report file {report_file} (--report-file): {e}.", e) from e
    click.echo(f"{'Appended' if appended else 'Wrote'} the report to {report_file}.", err=True)


@main.command("compare")
@table_options("compare")
@click.option(
    "--table",
    type=click.Choice(TABLES),
    default=CompareTable.RALLY.value,
    show_default=True,
    help="rally: Rally's Metric|Task|Baseline|Contender|Diff|Unit|Diff % rows; "
    "seed: one compact row per task and setup (min/median/max throughput, p90/p99 latency).",
)
@click.option(
    "--color/--no-color",
    default=None,
    help="Colour improvements green and regressions red (default: on a TTY).",
)
@click.option(
    "--fail-on-regression",
    type=float,
    default=None,
    metavar="PCT",
    help="Exit with status 3 if median throughput falls, or p99 latency / service time rises, by more than "
    "PCT %, or the error rate rises.",
)
@click.option(
    "--thresholds",
    "thresholds_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="YAML file of per-task / per-metric limits (see docs/results.md); exit status 3 on a violation.",
)
@click.option(
    "--allow-missing",
    is_flag=True,
    help="Let the gate pass when a metric of the baseline is missing or empty in the contender, or a race "
    "did not complete (listed, not failing; without it: exit status 4).",
)
@click.option(
    "--alpha",
    type=click.FloatRange(min=0, max=1, min_open=True, max_open=True),
    default=DEFAULT_ALPHA,
    show_default=True,
    help="Significance level of Welch's t-test when a side has several races.",
)
@click.option("--show-processing-time", is_flag=True, help="Also compare processing time percentiles.")
@store_option
@source_options
def compare_command(
    baseline: str,
    contenders: tuple[str, ...],
    fmt: str,
    report_file: Path | None,
    table: str,
    color: bool | None,
    fail_on_regression: float | None,
    thresholds_file: Path | None,
    allow_missing: bool,
    alpha: float,
    show_processing_time: bool,
    results_db: Path | None,
    source: str,
    environment: str,
    report_numbers_align: str | None,
    percentiles: str | None,
    quiet: bool,
    offline: bool,
    **store_options: Any,
) -> None:
    """Compare a baseline with one or more contenders (races or tagged groups of races)."""
    from esbench.reporting.percentiles import parse_percentiles

    thresholds = load_thresholds(thresholds_file) if thresholds_file is not None else ()
    if fail_on_regression is not None:
        default_rules(fail_on_regression)  # validates the value before any work
    refs = (baseline, *contenders)
    sides = [
        _side(ref, races)
        for ref, races in zip(
            refs, _resolve_all(refs, results_db, source, environment, store_options), strict=True
        )
    ]
    base_side, contender_sides = sides[0], sides[1:]
    wanted = parse_percentiles(percentiles, option="--percentiles") if percentiles is not None else None
    comparison = compare_races(
        base_side, contender_sides, alpha=alpha, show_processing_time=show_processing_time, percentiles=wanted
    )
    gate = None
    if fail_on_regression is not None or thresholds_file is not None:
        # Also with an empty thresholds file: whoever asked for a gate gets a verdict, and is told why
        # it cannot fail.
        if fail_on_regression is None and not thresholds:
            click.echo(
                f"[WARNING] The thresholds file {thresholds_file} has no entries: the regression gate has "
                "no rules and passes.",
                err=True,
            )
        gate = evaluate_gate(
            comparison,
            fail_on_regression=fail_on_regression,
            thresholds=thresholds,
            allow_missing=allow_missing,
        )
    if fmt in GRAPHIC_FORMATS:
        from esbench.reporting.html import default_report_path, write_compare_report

        stem = "esbench-compare-" + "-".join(s.races[0].race_id[:8] for s in (base_side, *contender_sides))
        path = report_file or default_report_path(fmt, stem)
        write_compare_report(comparison, fmt=fmt, path=path, table=table, gate=gate)
        click.echo(f"Wrote the report to {path}.", err=True)
    else:
        use_color = sys.stdout.isatty() if color is None else color
        align = NumbersAlign(report_numbers_align) if report_numbers_align else None

        def render(*, color: bool, rally_header: bool = True) -> str:
            return render_comparison(
                comparison,
                fmt=fmt,
                table=table,
                color=color,
                gate=gate,
                numbers_align=align,
                rally_header=rally_header,
            )

        # Rally's and OSB's compare (esrally/reporter.py write_single_report, osbenchmark/publisher.py
        # write_single_results): the report is printed, and with --report-file also appended there.
        click.echo(render(color=use_color), nl=False, color=use_color)
        if report_file is not None:
            _append_report(render(color=False, rally_header=False), report_file, fmt=fmt)
    if fmt in ("csv", *GRAPHIC_FORMATS):
        # The report does not carry these (csv) or is not on screen: keep them visible.
        for warning in all_warnings(comparison):
            click.echo(f"[WARNING] {warning}", err=True)
        if gate is not None:
            click.echo("\n".join(gate_lines(gate)), err=True)
    if gate is not None and not gate.passed:
        sys.exit(gate.exit_code)


# ------------------------------------------------------------------------------------ report


@main.command("report")
@click.argument("race", metavar="RACE")
@_report_options
@click.option("--show-processing-time", is_flag=True, help="Add processing time percentile rows.")
@store_option
@source_options
def report_command(
    race: str,
    fmt: str,
    report_file: Path | None,
    show_processing_time: bool,
    results_db: Path | None,
    source: str,
    environment: str,
    **store_options: Any,
) -> None:
    """Show the summary report of a stored RACE (race id, unique id prefix or tag:KEY:VALUE of one race)."""
    from esbench.reporting.summary import render_summary

    (found,) = _resolve_all((race,), results_db, source, environment, store_options)
    if len(found) > 1:
        listing = "\n".join(f"  {describe_race(r)}" for r in found[:20])
        raise UserError(f"{race!r} matches {len(found)} races; name one by its race id:\n{listing}")
    result = found[0]
    if fmt in GRAPHIC_FORMATS:
        from esbench.reporting.html import default_report_path, write_race_report

        path = report_file or default_report_path(fmt, f"esbench-report-{result.race_id[:8]}")
        write_race_report(result, fmt=fmt, path=path, show_processing_time=show_processing_time)
        click.echo(f"Wrote the report to {path}.", err=True)
        return
    text = render_summary(result, fmt=fmt, show_processing_time=show_processing_time)
    _write_report(text, report_file, color=False)


# ------------------------------------------------------------------------------------ delete race


def _delete_group() -> click.Group:
    existing = main.commands.get("delete")
    if isinstance(existing, click.Group):
        return existing

    @main.group("delete")
    def delete_group() -> None:
        """Delete stored races."""

    return delete_group


@_delete_group().command("race")
@click.argument("race_ids", nargs=-1, metavar="[RACE...]")
@table_options("delete race")
@store_option
def delete_race(
    race_ids: tuple[str, ...],
    ids: str | None,
    dry_run: bool,
    results_db: Path | None,
    quiet: bool,
    offline: bool,
) -> None:
    """Delete races from the results store by race id (or unique id prefix): as arguments, or Rally's
    --id=ID,ID; --dry-run only says which races would be deleted."""
    refs = [*race_ids, *(r.strip() for r in (ids or "").split(",") if r.strip())]
    if not refs:
        raise UserError(
            "Give the races to delete: esbench delete race --id=RACE[,RACE...] (or RACE as arguments)."
        )
    with _open_store(results_db) as store:
        for ref in refs:
            if dry_run:
                race = store.get(ref)
                click.echo(f"Would delete race {race.race_id} ({race.track}, {race.timestamp}).")
                continue
            race = store.delete(ref)
            click.echo(f"Deleted race {race.race_id} ({race.track}, {race.timestamp}).")


# ------------------------------------------------------------------------------------ export


@main.command("export")
@click.argument("races", nargs=-1, required=True, metavar="RACE...")
@metrics_store_options
@store_option
def export_command(races: tuple[str, ...], results_db: Path | None, **store_options: Any) -> None:
    """Export stored RACEs (ids, prefixes or tag:KEY:VALUE) to an Elasticsearch metrics store for Kibana."""
    from esbench.results.es_export import export_races
    from esbench.results.store_probe import check_reachable

    settings = metrics_store_settings(**store_options)
    if settings is None:
        raise UserError(
            "esbench export needs a metrics store: --metrics-store=URL, the ESBENCH_METRICS_STORE "
            "variable or a [reporting] section in <esbench home>/esbench.ini (rally.ini's keys)."
        )
    check_reachable(settings)
    with _open_store(results_db) as store:
        selected: dict[str, RaceResult] = {}
        for ref in races:
            for race in store.resolve(ref):
                selected[race.race_id] = race
    counts = export_races(list(selected.values()), settings)
    click.echo(
        f"Exported {len(selected)} race(s) to {settings.display_url} (Rally's rally-* indices, "
        f"environment {settings.environment}): {counts.results} results documents, {counts.metrics} "
        f"metrics documents, {counts.telemetry} telemetry documents.",
        err=True,
    )


for _command in (list_races, compare_command, report_command):
    reading_store_help(
        _command, "The Elasticsearch metrics store to read races from with --source=metrics-store"
    )
