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
from esbench.cli._tags import parse_tag_filter
from esbench.cli.options import table_options
from esbench.console import tabulate
from esbench.exceptions import UserError
from esbench.records import RaceResult, RaceStatus
from esbench.reporting.compare import DEFAULT_ALPHA, Side, all_warnings, compare_races
from esbench.reporting.compare_render import TABLES, CompareTable, gate_lines, render_comparison
from esbench.reporting.formats import GRAPHIC_FORMATS, REPORT_FORMATS, NumbersAlign
from esbench.reporting.gate import default_rules, evaluate_gate, load_thresholds
from esbench.results.metrics_store import DEFAULT_PREFIX, MetricsStoreSettings, resolve_metrics_store
from esbench.results.store import ResultsStore, parse_tag_ref

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


#: The race fields of ``list races --format=json``, in output order.
LIST_JSON_FIELDS: tuple[str, ...] = (
    "race_id",
    "timestamp",
    "track",
    "challenge",
    "track_params",
    "car",
    "pipeline",
    "distribution_version",
    "cluster_version",
    "cluster_nodes",
    "user_tags",
    "test_mode",
    "esbench_version",
    "status",
    "error",
    "duration_s",
)


def _kv(d: dict[str, Any]) -> str:
    return ",".join(f"{k}:{v if isinstance(v, str) else json.dumps(v)}" for k, v in sorted(d.items()))


@list_group.command("races")
@table_options("list races")
@click.option(
    "--status",
    type=click.Choice([s.value for s in RaceStatus]),
    default=None,
    help="Only races with this status.",
)
@store_option
def list_races(
    user_tag: tuple[str, ...],
    track: str | None,
    status: str | None,
    limit: int,
    fmt: str,
    results_db: Path | None,
    quiet: bool,
    offline: bool,
) -> None:
    """List stored races, newest first.

    Use a race id (or a unique prefix) or tag:KEY:VALUE with `esbench compare` and `esbench report`.
    """
    tags = parse_tag_filter(user_tag)
    with _open_store(results_db) as store:
        races = store.find(
            user_tags=tags or None, track=track, status=status, limit=limit or None, load_tasks=False
        )
    if fmt == "json":
        click.echo(json.dumps([r.to_dict(LIST_JSON_FIELDS) for r in races], indent=2))
        return
    if not races:
        click.echo("No races found." if (tags or track or status) else "No races stored yet.", err=True)
        return
    rows = [
        [
            r.race_id,
            r.timestamp,
            r.track,
            r.challenge,
            r.car,
            r.cluster_nodes if r.cluster_nodes is not None else "",
            r.cluster_version or r.distribution_version or "",
            r.status + (" (test mode)" if r.test_mode else ""),
            _kv(r.user_tags),
            _kv(r.track_params),
        ]
        for r in races
    ]
    headers = [
        "Race ID",
        "Race Timestamp",
        "Track",
        "Challenge",
        "Car",
        "Nodes",
        "ES Version",
        "Status",
        "User Tags",
        "Track Params",
    ]
    click.echo(tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True))


# ------------------------------------------------------------------------------------ compare


def _side(store: ResultsStore, ref: str) -> Side:
    ref = ref.strip()  # as resolve() does: " tag:a:b" is a tag, and its label must say so
    races = tuple(store.resolve(ref))
    label = ref if parse_tag_ref(ref) is not None else races[0].race_id[:8]
    return Side(label=label, races=races)


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
    report_numbers_align: str | None,
    quiet: bool,
    offline: bool,
) -> None:
    """Compare a baseline with one or more contenders (races or tagged groups of races)."""
    thresholds = load_thresholds(thresholds_file) if thresholds_file is not None else ()
    if fail_on_regression is not None:
        default_rules(fail_on_regression)  # validates the value before any work
    with _open_store(results_db) as store:
        base_side = _side(store, baseline)
        contender_sides = [_side(store, ref) for ref in contenders]
    comparison = compare_races(
        base_side, contender_sides, alpha=alpha, show_processing_time=show_processing_time
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
        use_color = (sys.stdout.isatty() if color is None else color) and report_file is None
        text = render_comparison(
            comparison,
            fmt=fmt,
            table=table,
            color=use_color,
            gate=gate,
            numbers_align=NumbersAlign(report_numbers_align) if report_numbers_align else None,
        )
        _write_report(text, report_file, color=use_color)
    if fmt in ("csv", *GRAPHIC_FORMATS) or report_file is not None:
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
def report_command(
    race: str, fmt: str, report_file: Path | None, show_processing_time: bool, results_db: Path | None
) -> None:
    """Show the summary report of a stored RACE (race id, unique id prefix or tag:KEY:VALUE of one race)."""
    from esbench.reporting.summary import render_summary

    with _open_store(results_db) as store:
        result = store.get(race)
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


def metrics_store_options(func: F) -> F:
    """Click options ``--metrics-store`` (env ``ESBENCH_METRICS_STORE``), ``--metrics-store-user``,
    ``--metrics-store-password``, ``--metrics-store-api-key``, ``--metrics-store-ca-certs``,
    ``--metrics-store-insecure`` and ``--metrics-store-prefix``; turn their values into settings
    with :func:`metrics_store_settings`. Shared by ``export`` and ``race``.
    """
    options = (
        click.option(
            "--metrics-store",
            "metrics_store",
            envvar="ESBENCH_METRICS_STORE",
            default=None,
            metavar="URL",
            help="Also export races to this Elasticsearch metrics store, e.g. https://user:pass@host:9200 "
            "(env ESBENCH_METRICS_STORE).",
        ),
        click.option(
            "--metrics-store-user",
            envvar="ESBENCH_METRICS_STORE_USER",
            default=None,
            help="Metrics store user name (env ESBENCH_METRICS_STORE_USER).",
        ),
        click.option(
            "--metrics-store-password",
            envvar="ESBENCH_METRICS_STORE_PASSWORD",
            default=None,
            help="Metrics store password (prefer env ESBENCH_METRICS_STORE_PASSWORD: not in shell history).",
        ),
        click.option(
            "--metrics-store-api-key",
            envvar="ESBENCH_METRICS_STORE_API_KEY",
            default=None,
            help="Metrics store API key (env ESBENCH_METRICS_STORE_API_KEY).",
        ),
        click.option(
            "--metrics-store-ca-certs",
            type=click.Path(exists=True, dir_okay=False, path_type=Path),
            default=None,
            help="CA bundle to verify the metrics store's TLS certificate.",
        ),
        click.option(
            "--metrics-store-insecure",
            is_flag=True,
            help="Do not verify the metrics store's TLS certificate.",
        ),
        click.option(
            "--metrics-store-prefix",
            default=DEFAULT_PREFIX,
            show_default=True,
            help="Prefix of the metrics store's index and template names.",
        ),
    )
    for option in reversed(options):
        func = option(func)
    return func


def metrics_store_settings(
    *,
    metrics_store: str | None,
    metrics_store_user: str | None = None,
    metrics_store_password: str | None = None,
    metrics_store_api_key: str | None = None,
    metrics_store_ca_certs: Path | None = None,
    metrics_store_insecure: bool = False,
    metrics_store_prefix: str = DEFAULT_PREFIX,
) -> MetricsStoreSettings | None:
    """The settings of :func:`metrics_store_options` values, else the ``[reporting]`` section of
    esbench.ini (:func:`esbench.results.metrics_store.resolve_metrics_store`); None when neither
    configures a metrics store.

    Raises:
        ConfigError: malformed URL (the message never shows credentials).
    """
    return resolve_metrics_store(
        metrics_store,
        username=metrics_store_user,
        password=metrics_store_password,
        api_key=metrics_store_api_key,
        ca_certs=metrics_store_ca_certs,
        verify_certs=not metrics_store_insecure,
        index_prefix=metrics_store_prefix,
    )


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
