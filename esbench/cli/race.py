"""``esbench race``: options → :class:`~esbench.settings.RaceSettings` → :func:`esbench.racecontrol.run_race`.

The command only translates options; all behaviour lives in the Python API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from esbench.cli import main
from esbench.cli._provision_options import provision_options
from esbench.cli._race_settings import race_settings, track_source_from_options
from esbench.cli._track_source import track_bundle_option, track_source_options
from esbench.console import Console
from esbench.driver.settings import LoadDriver, OnError
from esbench.exceptions import UserInterrupted
from esbench.records import STATUS_COMPLETED, STATUS_INTERRUPTED, RaceResult
from esbench.reporting.formats import ReportFormat
from esbench.settings import PIPELINES, REPORT_FORMATS
from esbench.track.params import parse_track_params

#: Exit status of a race that ran but did not complete (a request failure with --on-error=abort,
#: a node that went away).
EXIT_RACE_FAILED = 1


@main.command()
@click.option("--track", "track_name", help="Name of a built-in or user track (see 'esbench list tracks').")
@click.option(
    "--track-path",
    type=click.Path(exists=True, path_type=Path),
    help="Directory of a Rally-format track (or its track.json).",
)
@track_source_options
@track_bundle_option
@click.option("--track-params", default="", help="k:v list, inline JSON or a .json file.")
@click.option("--challenge", default=None, help="Challenge to run (default: the track's default challenge).")
@click.option("--target-hosts", default=None, help="HOST:PORT[,HOST:PORT...] of an existing cluster.")
@click.option(
    "--pipeline",
    type=click.Choice(PIPELINES),
    default=None,
    help="benchmark-only (needs --target-hosts) or from-distribution (default without --target-hosts).",
)
@provision_options
@click.option(
    "--client-options",
    default="",
    help="Client options: timeout:60,use_ssl:true,verify_certs:true,ca_certs:'/path',http_compress:true,"
    "basic_auth_user:'u',basic_auth_password:'p' (or ESBENCH_USERNAME/ESBENCH_PASSWORD/ESBENCH_API_KEY).",
)
@click.option(
    "--on-error",
    type=click.Choice([e.value for e in OnError]),
    default=OnError.CONTINUE.value,
    show_default=True,
)
@click.option(
    "--fail-on-error-rate",
    type=click.FloatRange(min=0, max=100),
    default=None,
    metavar="PCT",
    help="Exit with status 1 when a task's error rate exceeds PCT % (for CI jobs; the race still runs to "
    "the end unless --on-error=abort).",
)
@click.option("--include-tasks", default="", help="Only these tasks: NAME, type:OPTYPE or tag:TAG, ...")
@click.option("--exclude-tasks", default="", help="Skip these tasks: NAME, type:OPTYPE or tag:TAG, ...")
@click.option(
    "--load-driver-workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes of the load driver (default: one per core).",
)
@click.option(
    "--load-driver",
    type=click.Choice([e.value for e in LoadDriver]),
    default=None,
    help="Where the workers run: local processes (default) or a Ray cluster (docs/distributed.md).",
)
@click.option(
    "--ray-address",
    default=None,
    help="HOST:PORT of the Ray head for --load-driver=ray (default: RAY_ADDRESS, else a local Ray).",
)
@click.option(
    "--load-driver-hosts",
    default="",
    help="Rally's option: Ray nodes (IPs or names) that run workers; other hosts imply --load-driver=ray.",
)
@click.option("--test-mode", is_flag=True, help="Smoke test: -1k corpora, capped iterations/time periods.")
# Rally's --enable-assertions (issue 39): DriverSettings.enable_assertions.
@click.option(
    "--enable-assertions",
    is_flag=True,
    help="Check the tasks' assertions (e.g. hits > 0) on their responses; a failed one ends the race.",
)
@click.option("--user-tag", "user_tag", default="", help="key:value,... tags stored with the race.")
@click.option(
    "--report-format", type=click.Choice(REPORT_FORMATS), default=ReportFormat.TEXT.value, show_default=True
)
@click.option("--report-file", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.option("--show-processing-time", is_flag=True, help="Add processing-time percentiles to the report.")
@click.option("--offline", is_flag=True, help="Never download anything (corpora, distributions).")
@click.option(
    "--metrics-store",
    envvar="ESBENCH_METRICS_STORE",
    default=None,
    help="URL of an Elasticsearch cluster to export the race to (also ESBENCH_METRICS_STORE).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@click.option(
    "--telemetry",
    default="",
    help="Telemetry devices sampled during the race, e.g. node-stats,os (see 'esbench list telemetry').",
)
@click.option(
    "--telemetry-params",
    default="",
    help="Telemetry device parameters: k:v list, inline JSON or a .json file (node-stats-sample-interval:2).",
)
def race(track_params: str, quiet: bool, fail_on_error_rate: float | None, **opts: Any) -> None:
    """Run a benchmark (a race) with a Rally-format track and print its report."""
    # The driver, the load-driver backends and telemetry are imported when a race runs, not for --help.
    from esbench.racecontrol import run_race
    from esbench.racelog import existing_race_log

    source = track_source_from_options(opts)
    settings = race_settings(
        opts, source=source, track_params=parse_track_params(track_params) if track_params.strip() else {}
    )
    result = run_race(settings, console=Console(quiet=quiet))
    if result.status == STATUS_INTERRUPTED:
        raise UserInterrupted(f"Race {result.race_id} was interrupted; what it measured is stored.")
    if result.status != STATUS_COMPLETED:
        log = existing_race_log(result.race_id)
        where = f" The race log is {log}." if log is not None else ""
        click.echo(f"[ERROR] Race {result.race_id} did not complete: {result.error}{where}", err=True)
        raise SystemExit(EXIT_RACE_FAILED)
    check_error_rate(result, fail_on_error_rate)


def check_error_rate(result: RaceResult, limit: float | None) -> None:
    """``--fail-on-error-rate=PCT``: exit with :data:`EXIT_RACE_FAILED` when a task of ``result`` (a
    :class:`~esbench.records.RaceResult`) failed more than ``limit`` % of its requests."""
    from esbench.reporting.verdict import worst_error_rate

    worst = worst_error_rate(result) if limit is not None else None
    if worst is not None and limit is not None and worst[1] > limit:
        click.echo(
            f"[ERROR] Task '{worst[0]}' of race {result.race_id} had an error rate of {worst[1]:.2f} %, "
            f"above the {limit:g} % allowed by --fail-on-error-rate.",
            err=True,
        )
        raise SystemExit(EXIT_RACE_FAILED)
