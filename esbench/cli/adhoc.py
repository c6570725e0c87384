"""``esbench query`` (esperf's command line) and ``esbench load`` (INFINI Loadgen YAML and DSL):
ad-hoc load that runs as an ordinary race (see :mod:`esbench.adhoc`).

Both commands take the race command's own options for everything that is not about the track
(hosts, pipeline and provisioning, client options, on-error, workers, user tags, report, metrics
store): the :class:`click.Option` objects are taken from ``esbench race`` itself, so the two stay
identical.
"""

from __future__ import annotations

import copy
import sys
from enum import StrEnum
from pathlib import Path
from typing import Any

import click
import yaml

from esbench.cli import main
from esbench.cli._provision_options import PROVISION_OPTION_NAMES
from esbench.cli._race_settings import race_settings
from esbench.cli.race import race as race_command
from esbench.console import Console
from esbench.exceptions import ConfigError, UserError, UserInterrupted
from esbench.records import STATUS_COMPLETED, STATUS_INTERRUPTED, RaceResult
from esbench.settings import RaceSettings

#: Options of ``esbench race`` that ad-hoc commands share (everything not about the track).
SHARED_RACE_OPTIONS = (
    "target_hosts",
    "pipeline",
    *PROVISION_OPTION_NAMES,
    "client_options",
    "on_error",
    "fail_on_error_rate",
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
    from esbench.cli.options import OPTIONS

    # OSB's short spellings (-t, -c) belong to the commands serving OSB's; here -c and -t are the
    # ad-hoc commands' own client count.
    osb_short = {o for e in OPTIONS for o in e.osb if not o.startswith("--")}
    shared = []
    for param in race_command.params:
        if param.name in SHARED_RACE_OPTIONS:
            own = copy.copy(param)
            own.opts = [o for o in param.opts if o not in osb_short]
            shared.append(own)
    command.params.extend(shared)
    return command


#: Exit status of an ad-hoc run that did not complete: Loadgen's 1 for a run a failed assertion
#: stopped (``runner.assert_invalid`` without ``continue_on_assert_invalid``, docs/adhoc.md), kept
#: for every failure of ``query`` and ``load`` (``race`` exits 64, as Rally and OSB do).
EXIT_RUN_FAILED = 1


def _run(settings: RaceSettings, quiet: bool, fail_on_error_rate: float | None = None) -> RaceResult:
    """Run the race; its stored result when it completed, else exit with :data:`EXIT_RUN_FAILED`
    (with :data:`esbench.cli.race.EXIT_ERROR_RATE` when a task's error rate exceeds
    ``fail_on_error_rate`` %)."""
    from esbench.cli.race import check_error_rate
    from esbench.racecontrol import run_race

    result = run_race(settings, console=Console(quiet=quiet))
    if result.status == STATUS_INTERRUPTED:
        raise UserInterrupted(f"Race {result.race_id} was interrupted; what it measured is stored.")
    if result.status != STATUS_COMPLETED:
        click.echo(f"[ERROR] Race {result.race_id} did not complete: {result.error}", err=True)
        raise SystemExit(EXIT_RUN_FAILED)
    check_error_rate(result, fail_on_error_rate)
    return result


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
@click.option("--method", "-X", default="GET", show_default=True, help="HTTP method (esperf's -X).")
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
    "-t",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Clients per URL (esperf's -t threads).",
)
@click.option(
    "--recurrence",
    "-r",
    type=click.IntRange(min=1),
    default=None,
    help="Requests per URL over all its clients (esperf's -r: its threads share one counter).",
)
@click.option("--iterations", "-n", type=click.IntRange(min=1), default=None, help="Requests per client.")
@click.option(
    "--rate",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Target throughput in requests/s over all clients (open loop); default: unthrottled.",
)
@click.option(
    "--duration",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds to measure (default 30 without -r or -n).",
)
@click.option(
    "--warmup",
    "-o",
    "-w",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    help="Seconds omitted from the statistics (esperf's -o/-w); requests per client with -n.",
)
@click.option(
    "--user",
    "-u",
    "user",
    default=None,
    metavar="USER:PASSWORD",
    help="HTTP basic authentication (esperf's -u); never printed.",
)
@click.option(
    "--timeout",
    "-T",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Client-side request timeout in seconds (esperf's -T).",
)
@click.option(
    "--header", "-H", "headers", multiple=True, metavar="'NAME: VALUE'", help="Extra header (esperf's -H)."
)
def query(
    urls: tuple[str, ...],
    body: str | None,
    body_file: Path | None,
    method: str,
    dictionary: Path | None,
    variables_file: Path | None,
    clients: int,
    recurrence: int | None,
    iterations: int | None,
    rate: float | None,
    duration: float | None,
    warmup: float,
    user: str | None,
    timeout: float | None,
    headers: tuple[str, ...],
    **options: Any,
) -> None:
    """Send a templated query to one or more URLs, esperf's command line, as a race.

    The body comes from --body, --body-file or stdin. Example (seed 001, unchanged from esperf):
    echo '{"query": ... [$RDICT] ...}' | esbench query -r 50 -t 1 -d location.txt http://127.0.0.1:9200/idx/_search
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
    if iterations is not None and (duration is not None or recurrence is not None):
        raise UserError("Give -n/--iterations alone: not with --duration or -r/--recurrence.")
    quiet, error_limit = options.pop("quiet"), options.pop("fail_on_error_rate")
    base = race_settings(options, source=None)
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
        recurrence=recurrence,
        duration=duration if (iterations, duration, recurrence) != (None, None, None) else 30.0,
        warmup=warmup,
        credentials=_user(user),
        timeout=timeout,
        headers=_headers(headers),
    )
    _run(settings, quiet, error_limit)


def _user(value: str | None) -> tuple[str, str] | None:
    """esperf's ``-u user:password`` (curl's CURLOPT_USERPWD: no colon = empty password)."""
    if value is None:
        return None
    name, _, password = value.partition(":")
    if not name:
        raise UserError("-u/--user takes USER:PASSWORD (e.g. -u elastic:changeme); the user name is empty.")
    return name, password


def _headers(values: tuple[str, ...]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for value in values:
        name, sep, text = value.partition(":")
        if not sep or not name.strip():
            raise UserError(f"-H/--header takes 'NAME: VALUE' (e.g. -H 'X-Opaque-Id: run1'), got {value!r}.")
        headers[name.strip()] = text.strip()
    return headers


class ConfigFormat(StrEnum):
    """How ``esbench load`` reads its file: Loadgen's YAML or its DSL."""

    YAML = "yaml"
    DSL = "dsl"


@click.command()
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="INFINI Loadgen configuration: YAML, or DSL when the name ends in .dsl "
    "[default: loadgen.yml; with -run, the YAML the DSL starts from if it exists].",
)
@click.option(
    "-run",
    "--run",
    "run_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A Loadgen DSL file to run (Loadgen's -run).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice([f.value for f in ConfigFormat]),
    default=None,
    help="Read the file as this format instead of choosing by its extension.",
)
@click.option(
    "-c",
    "clients",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Clients (Loadgen's concurrency), shared out among the requests (each request gets them all "
    "when runner.total_rounds runs the requests in order).",
)
@click.option(
    "-d",
    "duration",
    type=click.FloatRange(min=0, min_open=True),
    default=5.0,
    show_default=True,
    help="Duration in seconds.",
)
@click.option(
    "-r",
    "rate",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Requests per second over all clients.",
)
@click.option("-l", "limit", type=click.IntRange(min=1), default=None, help="Total requests (Loadgen -l).")
@click.option("--compress", is_flag=True, help="gzip request bodies (Loadgen --compress).")
@click.option(
    "--warmup",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    help="Warmup seconds before measuring.",
)
def load(
    config_file: Path | None,
    run_file: Path | None,
    fmt: str | None,
    clients: int,
    duration: float,
    rate: float | None,
    limit: int | None,
    compress: bool,
    warmup: float,
    **options: Any,
) -> None:
    """Run an INFINI Loadgen YAML configuration or DSL file as a race.

    Examples: esbench load --config loadgen.yml -c 4 -d 60 --compress (seed 002);
    esbench load -run api-testing-example.dsl (exits 1 when an assertion fails and the file
    sets runner.assert_invalid, 2 on request errors with runner.assert_error, like Loadgen).
    """
    from esbench.adhoc.load import load_track

    if run_file is not None:
        if config_file is not None and ConfigFormat.DSL in (fmt, config_file.suffix.lower().lstrip(".")):
            raise UserError("Give the DSL file once: -run FILE.dsl, or --config FILE.dsl.")
        target, base_config = run_file, config_file
        if base_config is None and Path("loadgen.yml").is_file():
            base_config = Path("loadgen.yml")
        dsl: bool | None = fmt != ConfigFormat.YAML
    else:
        target, base_config = config_file or Path("loadgen.yml"), None
        dsl = None if fmt is None else fmt == ConfigFormat.DSL
    quiet, error_limit = options.pop("quiet"), options.pop("fail_on_error_rate")
    base = race_settings(options, source=None)
    plan = load_track(
        base,
        config=target,
        base_config=base_config,
        dsl=dsl,
        clients=clients,
        duration=duration,
        rate=rate,
        limit=limit,
        compress=compress,
        warmup=warmup,
    )
    result = _run(plan.settings, quiet, error_limit)
    _loadgen_exit(result, assert_invalid=plan.runner.assert_invalid, assert_error=plan.runner.assert_error)


#: Loadgen's exit statuses (main.go runLoaderConfig): 1 = a failed assertion, 2 = a request error.
EXIT_ASSERT_INVALID = 1
EXIT_ASSERT_ERROR = 2


def _loadgen_exit(result: RaceResult, *, assert_invalid: bool, assert_error: bool) -> None:
    """Exit like Loadgen after a completed run: list the failed assertions per request (count,
    first reasons with the expected and the actual value) and exit 1 with ``assert_invalid``;
    exit 2 with ``assert_error`` when requests got no response."""
    from esbench.driver.worker.outcome import CONNECTION, TIMEOUT, TLS, TRANSPORT

    # Requests that got no response are Loadgen's "errors" (loader.go: err != nil).
    no_response = {TRANSPORT, TIMEOUT, CONNECTION, TLS}
    failed = [t for t in result.tasks if t.errors_by_type.get("assertion")]
    for task in failed:
        reasons = [d.reason for d in task.error_descriptions if d.error_type == "assertion"][:3]
        click.echo(
            f"[WARNING] {task.task}: {task.errors_by_type['assertion']} of {task.sample_count} responses "
            f"failed the assertion: {'; '.join(reasons)}",
            err=True,
        )
    if assert_invalid and failed:
        click.echo(f"[ERROR] Assertions failed in race {result.race_id} (runner.assert_invalid).", err=True)
        raise SystemExit(EXIT_ASSERT_INVALID)
    errors = sum(n for t in result.tasks for k, n in t.errors_by_type.items() if k in no_response)
    if assert_error and errors:
        click.echo(
            f"[ERROR] {errors} requests got no response in race {result.race_id} (runner.assert_error).",
            err=True,
        )
        raise SystemExit(EXIT_ASSERT_ERROR)


main.add_command(_with_race_options(query))
main.add_command(_with_race_options(load))
