"""``esbench query`` (esperf-style) and ``esbench load`` (INFINI Loadgen YAML): ad-hoc load that runs
as an ordinary race (see :mod:`esbench.adhoc`).

Both commands take the race command's own options for everything that is not about the track
(hosts, pipeline and provisioning, client options, on-error, workers, user tags, report, metrics
store): the :class:`click.Option` objects are taken from ``esbench race`` itself, so the two stay
identical.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import click
import yaml

from esbench.cli import main
from esbench.cli._provision_options import PROVISION_OPTION_NAMES, provision_settings
from esbench.cli._tags import parse_user_tags
from esbench.cli.race import EXIT_RACE_FAILED, _split_hosts
from esbench.cli.race import race as race_command
from esbench.console import Console
from esbench.driver.settings import DriverSettings, OnError
from esbench.exceptions import ConfigError, UserError, UserInterrupted
from esbench.reporting.formats import ReportFormat
from esbench.results.model import STATUS_COMPLETED, STATUS_INTERRUPTED
from esbench.settings import Pipeline, RaceSettings, ReportSettings

#: Options of ``esbench race`` that ad-hoc commands share (everything not about the track).
SHARED_RACE_OPTIONS = (
    "target_hosts",
    "pipeline",
    *PROVISION_OPTION_NAMES,
    "client_options",
    "on_error",
    "load_driver_workers",
    "user_tag",
    "report_format",
    "report_file",
    "show_processing_time",
    "offline",
    "metrics_store",
    "quiet",
)


def _with_race_options(command: click.Command) -> click.Command:
    shared = [copy.copy(p) for p in race_command.params if p.name in SHARED_RACE_OPTIONS]
    command.params.extend(shared)
    return command


def _base_settings(options: dict[str, Any]) -> RaceSettings:
    """The shared race options as settings (the track is added by the caller)."""
    from esbench.driver.client import parse_client_options

    provision = {name: options.pop(name) for name in PROVISION_OPTION_NAMES}
    pipeline = options.pop("pipeline")
    return RaceSettings(
        target_hosts=_split_hosts(options.pop("target_hosts")),
        pipeline=Pipeline(pipeline) if pipeline else None,
        provision=provision_settings(**provision, offline=options["offline"]),
        client_options=parse_client_options(options.pop("client_options")),
        driver=DriverSettings(
            on_error=OnError(options.pop("on_error")), workers=options.pop("load_driver_workers")
        ),
        user_tags=parse_user_tags(options.pop("user_tag")),
        offline=options.pop("offline"),
        report=ReportSettings(
            fmt=ReportFormat(options.pop("report_format")),
            file=options.pop("report_file"),
            show_processing_time=options.pop("show_processing_time"),
        ),
        metrics_store=options.pop("metrics_store"),
    )


def _run(settings: RaceSettings, quiet: bool) -> None:
    from esbench.racecontrol import run_race

    result = run_race(settings, console=Console(quiet=quiet))
    if result.status == STATUS_INTERRUPTED:
        raise UserInterrupted(f"Race {result.race_id} was interrupted; what it measured is stored.")
    if result.status != STATUS_COMPLETED:
        click.echo(f"[ERROR] Race {result.race_id} did not complete: {result.error}", err=True)
        raise SystemExit(EXIT_RACE_FAILED)


def _positive(value: float | None, option: str) -> None:
    if value is not None and value <= 0:
        raise UserError(f"{option} must be positive, got {value:g}.")


def _read_variables(path: Path | None) -> list[Any]:
    if path is None:
        return []
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"Cannot read the variables file {path}: {exc}".replace("\n", " ")) from None
    if isinstance(data, dict):
        data = data.get("variables")
    if not isinstance(data, list):
        raise ConfigError(
            f"{path} must hold a list of Loadgen variables (or a mapping with a 'variables' list), e.g. "
            f"- {{name: id, type: sequence}}."
        )
    return data


@click.command()
@click.argument("urls", nargs=-1, required=True)
@click.option("--body", default=None, help="Request body template ($RDICT, $RNUM, $[[name]]).")
@click.option(
    "--body-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Read the body template from a file.",
)
@click.option("--method", "-X", default=None, help="HTTP method (default POST with a body, else GET).")
@click.option(
    "--dictionary",
    "-d",
    type=click.Path(path_type=Path),
    default=None,
    help="File whose lines $RDICT draws from (one value per line).",
)
@click.option(
    "--variables",
    "variables_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="YAML list of Loadgen variables for $[[name]] placeholders.",
)
@click.option(
    "--clients",
    "-c",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Clients per URL (esperf's threads).",
)
@click.option(
    "--rate",
    "-r",
    type=float,
    default=None,
    help="Target throughput in requests/s over all clients (open loop); default: unthrottled.",
)
@click.option("--iterations", "-n", type=click.IntRange(min=1), default=None, help="Requests per client.")
@click.option(
    "--duration", "-t", type=float, default=None, help="Seconds to measure (default 30 without -n)."
)
@click.option(
    "--warmup",
    type=float,
    default=0.0,
    show_default=True,
    help="Warmup: seconds with -t, requests per client with -n.",
)
def query(
    urls: tuple[str, ...],
    body: str | None,
    body_file: Path | None,
    method: str | None,
    dictionary: Path | None,
    variables_file: Path | None,
    clients: int,
    rate: float | None,
    iterations: int | None,
    duration: float | None,
    warmup: float,
    **options: Any,
) -> None:
    """Send a templated query to one or more URLs, esperf style, as a race.

    The body comes from --body, --body-file or stdin. Example (seed 001):
    echo '{"query": ... [$RDICT] ...}' | esbench query -d location.txt -c 4 -t 60 http://127.0.0.1:9200/idx/_search
    """
    from esbench.adhoc.query import query_track

    if body is not None and body_file is not None:
        raise UserError("Give the body with --body or --body-file, not both.")
    if body_file is not None:
        try:
            body = body_file.read_text(encoding="utf-8")
        except OSError as exc:
            raise UserError(f"Cannot read --body-file {body_file}: {exc}.") from None
    elif body is None and not sys.stdin.isatty():
        body = sys.stdin.read()
    _positive(rate, "--rate")
    _positive(duration, "--duration")
    if iterations is not None and duration is not None:
        raise UserError("Give either -n/--iterations or -t/--duration, not both.")
    if warmup < 0:
        raise UserError(f"--warmup must not be negative, got {warmup:g}.")
    quiet = options.pop("quiet")
    base = _base_settings(options)
    settings = query_track(
        base,
        urls=urls,
        body=body or None,
        method=method,
        dictionary=dictionary,
        variables=_read_variables(variables_file),
        clients=clients,
        rate=rate,
        iterations=iterations,
        duration=duration if iterations is not None or duration is not None else 30.0,
        warmup=warmup,
    )
    _run(settings, quiet)


@click.command()
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("loadgen.yml"),
    show_default=True,
    help="INFINI Loadgen YAML configuration.",
)
@click.option(
    "-c",
    "clients",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Clients (Loadgen's concurrency), shared out among the requests.",
)
@click.option("-d", "duration", type=float, default=5.0, show_default=True, help="Duration in seconds.")
@click.option("-r", "rate", type=float, default=None, help="Requests per second over all clients.")
@click.option("-l", "limit", type=click.IntRange(min=1), default=None, help="Total requests (Loadgen -l).")
@click.option("--compress", is_flag=True, help="gzip request bodies (Loadgen --compress).")
@click.option("--warmup", type=float, default=0.0, show_default=True, help="Warmup seconds before measuring.")
def load(
    config_file: Path,
    clients: int,
    duration: float,
    rate: float | None,
    limit: int | None,
    compress: bool,
    warmup: float,
    **options: Any,
) -> None:
    """Run an INFINI Loadgen YAML configuration as a race.

    Example (seed 002): esbench load --config loadgen.yml -c 4 -d 60 --compress
    """
    from esbench.adhoc.load import load_track

    _positive(rate, "-r (rate)")
    _positive(duration, "-d (duration)")
    if warmup < 0:
        raise UserError(f"--warmup must not be negative, got {warmup:g}.")
    quiet = options.pop("quiet")
    base = _base_settings(options)
    settings = load_track(
        base,
        config=config_file,
        clients=clients,
        duration=duration,
        rate=rate,
        limit=limit,
        compress=compress,
        warmup=warmup,
    )
    _run(settings, quiet)


main.add_command(_with_race_options(query))
main.add_command(_with_race_options(load))
