"""``esbench sweep``, ``optimize bulk-size|clients``, ``find-max`` and ``size``: capacity planning.

Options -> :class:`~esbench.settings.RaceSettings` and a :class:`~esbench.planning.sweep.PointRunner`;
the procedures live in :mod:`esbench.planning` (see docs/planning.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from esbench.cli import main
from esbench.cli._provision_options import PROVISION_OPTION_NAMES, provision_options, provision_settings
from esbench.cli._tags import parse_user_tags
from esbench.cli._track_source import pop_track_source, track_source_options
from esbench.console import Console
from esbench.driver.client import host_urls, parse_client_options
from esbench.driver.driver import DriverSettings
from esbench.driver.filters import parse_task_filters
from esbench.exceptions import UserError
from esbench.planning.overrides import TaskOverride
from esbench.planning.sweep import Dimension, PointRunner, parse_values, sweep_id
from esbench.settings import PIPELINES, RaceSettings
from esbench.track.params import parse_track_params

F = TypeVar("F", bound=Callable[..., Any])

_RACE_OPTIONS = (
    click.option("--track", "track_name", help="Name of a built-in or user track."),
    click.option("--track-path", type=click.Path(exists=True, path_type=Path), help="Directory of a track."),
    click.option("--challenge", default=None, help="Challenge (default: the track's default challenge)."),
    click.option("--task", "task", default=None, help="The task to measure (a task of the challenge)."),
    click.option("--target-hosts", default=None, help="HOST:PORT[,HOST:PORT...] of an existing cluster."),
    click.option("--pipeline", type=click.Choice(PIPELINES), default=None, help="As for 'esbench race'."),
    click.option("--client-options", default="", help="Client options, as for 'esbench race'."),
    click.option(
        "--time-period",
        type=click.FloatRange(min=0),
        default=None,
        help="Override the task's time-period (s).",
    ),
    click.option(
        "--warmup-time-period",
        type=click.FloatRange(min=0),
        default=None,
        help="Override the task's warmup-time-period (s).",
    ),
    click.option("--include-tasks", default="", help="Only these tasks: NAME, type:OPTYPE or tag:TAG, ..."),
    click.option("--exclude-tasks", default="", help="Skip these tasks: NAME, type:OPTYPE or tag:TAG, ..."),
    click.option("--load-driver-workers", type=click.IntRange(min=1), default=None, help="Worker processes."),
    click.option(
        "--test-mode", is_flag=True, help="Smoke test: -1k corpora, capped iterations/time periods."
    ),
    click.option("--user-tag", default="", help="key:value,... tags added to every race."),
    click.option("--offline", is_flag=True, help="Never download anything."),
    click.option("--fresh", is_flag=True, help="Run every point again instead of reusing stored races."),
    click.option("--quiet", "-q", is_flag=True, help="No progress output."),
)


def _race_options(f: F) -> F:
    for option in reversed(_RACE_OPTIONS):
        f = option(f)
    return track_source_options(provision_options(f))


def _base_settings(
    opts: dict[str, Any], *, track_params: dict[str, Any]
) -> tuple[RaceSettings, str, Console]:
    """The fixed race settings of a planning command, its task name and console.

    Raises:
        UserError: no or two track options, no --task, bad hosts, tags or client options.
    """
    track_source = pop_track_source(opts)
    track_name, track_path = opts.pop("track_name"), opts.pop("track_path")
    if bool(track_name) == bool(track_path):
        raise UserError("Give exactly one of --track=NAME or --track-path=DIR (see 'esbench list tracks').")
    task = opts.pop("task")
    if not task:
        raise UserError("Give the task to measure with --task=NAME (see 'esbench info' for a track's tasks).")
    hosts = tuple(h.strip() for h in (opts.pop("target_hosts") or "").split(",") if h.strip())
    if hosts:
        host_urls(hosts, use_ssl=False)
    offline, test_mode = opts.pop("offline"), opts.pop("test_mode")
    include, exclude = (
        tuple(s.strip() for s in opts.pop(name).split(",") if s.strip())
        for name in ("include_tasks", "exclude_tasks")
    )
    parse_task_filters(include, option="--include-tasks")
    parse_task_filters(exclude, option="--exclude-tasks")
    override = TaskOverride(
        time_period=opts.pop("time_period"), warmup_time_period=opts.pop("warmup_time_period")
    )
    settings = RaceSettings(
        track_name=track_name,
        track_path=track_path,
        track_params=track_params,
        challenge=opts.pop("challenge"),
        target_hosts=hosts,
        pipeline=opts.pop("pipeline"),
        provision=provision_settings(**{k: opts.pop(k) for k in PROVISION_OPTION_NAMES}, offline=offline),
        client_options=parse_client_options(opts.pop("client_options")),
        driver=DriverSettings(
            workers=opts.pop("load_driver_workers"),
            test_mode=test_mode,
            include_tasks=include,
            exclude_tasks=exclude,
        ),
        user_tags=parse_user_tags(opts.pop("user_tag")),
        test_mode=test_mode,
        offline=offline,
        track_source=track_source,
        task_overrides={task: override},
    )
    return settings, task, Console(quiet=opts.pop("quiet"))


def _runner(
    kind: str,
    base: RaceSettings,
    task: str,
    dimension: Dimension,
    console: Console,
    fresh: bool,
    *,
    param: str = "",
) -> PointRunner:
    return PointRunner(
        task=task,
        kind=kind,
        dimension=dimension,
        param=param,
        sweep=sweep_id(kind, base, task, dimension, param=param),
        fresh=fresh,
        console=console,
    )


def _split_sweep_params(text: str) -> tuple[dict[str, Any], str, list[Any]]:
    """``bulk_size:100,200,400,shards:2`` -> fixed params, the swept name and its values.

    An item without ``:`` is one more value of the key before it. At most one key may have several.

    Raises:
        UserError: two keys with several values, or a first item without a key.
    """
    text = text.strip()
    if not text:
        return {}, "", []
    if text.startswith("{") or text.endswith(".json"):
        return parse_track_params(text), "", []
    items: list[tuple[str, list[str]]] = []
    for item in (i.strip() for i in text.split(",")):
        if not item:
            continue
        key, sep, value = item.partition(":")
        if sep:
            items.append((key.strip(), [value.strip()]))
        elif items:
            items[-1][1].append(item)
        else:
            raise UserError(
                f"--track-params: '{item}' has no name; write NAME:VALUE[,VALUE...], e.g. bulk_size:100,200."
            )
    swept = [k for k, values in items if len(values) > 1]
    if len(swept) > 1:
        raise UserError(
            f"--track-params gives several values for {', '.join(swept)}: a sweep varies one dimension; "
            "keep one list and fix the others."
        )
    fixed = {}
    for key, values in items:
        if len(values) == 1:
            fixed.update(parse_track_params(f"{key}:{values[0]}"))
    if not swept:
        return fixed, "", []
    name = swept[0]
    values = next(v for k, v in items if k == name)
    return fixed, name, [parse_track_params(f"{name}:{v}")[name] for v in values]


@main.command()
@_race_options
@click.option("--track-params", default="", help="k:v,... ; one key may list several values to sweep it.")
@click.option("--clients", "clients_list", default=None, help="Sweep the task's clients, e.g. 1,5,10,15.")
@click.option(
    "--target-throughput", "rates_list", default=None, help="Sweep the task's target-throughput (ops/s)."
)
@click.option("--bulk-size", "bulk_list", default=None, help="Sweep the task's bulk-size, e.g. 100,200,400.")
@click.option(
    "--min-gain",
    type=click.FloatRange(min=0),
    default=5.0,
    show_default=True,
    help="Knee: no later point gains this percentage of throughput while latency keeps rising.",
)
@click.option(
    "--report-format",
    type=click.Choice(["text", "html"]),
    default="text",
    show_default=True,
    help="html: also write a plot of throughput and latency against the swept value.",
)
@click.option(
    "--report-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where the html report goes (default: <esbench home>/planning/<sweep id>/sweep.html).",
)
def sweep(
    track_params: str,
    clients_list: str | None,
    rates_list: str | None,
    bulk_list: str | None,
    nodes_list: str | None,
    min_gain: float,
    report_format: str,
    report_file: Path | None,
    **opts: Any,
) -> None:
    """Race once per value of one dimension; print seed 003's table and the knee.

    Give exactly one of --clients, --target-throughput, --bulk-size, --nodes (provisioned clusters)
    or a --track-params key with several values.
    """
    from esbench.planning.procedures import run_sweep

    fixed, param, param_values = _split_sweep_params(track_params)
    given = [
        (Dimension.CLIENTS, "--clients", clients_list, _positive_int),
        (Dimension.TARGET_THROUGHPUT, "--target-throughput", rates_list, _positive_float),
        (Dimension.BULK_SIZE, "--bulk-size", bulk_list, _positive_int),
        (Dimension.NODES, "--nodes", nodes_list, _positive_int),
    ]
    chosen = [g for g in given if g[2] is not None]
    if param:
        chosen.append((Dimension.TRACK_PARAM, "--track-params", None, None))
    if len(chosen) != 1:
        names = ", ".join(g[1] for g in chosen) or "none"
        raise UserError(
            f"esbench sweep varies exactly one dimension (given: {names}). Use one of --clients=1,5,10, "
            "--target-throughput=50,100, --bulk-size=100,200,400, --nodes=1,2,3 or "
            "--track-params=NAME:V1,V2,V3."
        )
    dimension, option, text, convert = chosen[0]
    values = (
        param_values
        if dimension is Dimension.TRACK_PARAM
        else parse_values(text, option=option, convert=convert)
    )
    opts["nodes"] = 1
    base, task, console = _base_settings(opts, track_params=fixed)
    if dimension is Dimension.NODES and base.target_hosts:
        raise UserError(
            "--nodes sweeps provisioned clusters: drop --target-hosts (esbench starts each cluster)."
        )
    runner = _runner("sweep", base, task, dimension, console, opts.pop("fresh"), param=param)
    console.info(
        f"Sweep {runner.sweep} (tag sweep:{runner.sweep}) over {param or dimension}: {len(values)} points"
    )
    outcome = run_sweep(runner, base, values, min_gain=min_gain / 100.0)
    click.echo(outcome.render())
    if report_format == "html":
        from esbench.home import home_subdir
        from esbench.planning.plot import write_sweep_html

        path = report_file or home_subdir("planning") / runner.sweep / "sweep.html"
        write_sweep_html(outcome, path)
        console.info(f"Report written to {path}")
    click.echo(f"\nCompare points later: esbench list races --user-tag=sweep:{runner.sweep}")


# ``--nodes`` of the provisioning options is one number; a sweep takes a list under the same name.
sweep.params = [p for p in sweep.params if p.name != "nodes"] + [
    click.Option(["--nodes", "nodes_list"], default=None, help="Sweep provisioned node counts, e.g. 1,2,3.")
]


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError("must be at least 1")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise ValueError("must be positive")
    return value


@main.group()
def optimize() -> None:
    """Find the best bulk-size or client count (seed 004: double until throughput drops, then refine)."""


def _optimize(
    dimension: Dimension, start: int, max_value: int, refine_steps: int, track_params: str, opts: Any
) -> None:
    from esbench.planning.procedures import run_optimize

    if max_value < start:
        raise UserError(f"--max ({max_value}) is below --start ({start}): give a larger --max.")
    base, task, console = _base_settings(
        opts, track_params=parse_track_params(track_params) if track_params.strip() else {}
    )
    runner = _runner(f"optimize-{dimension}", base, task, dimension, console, opts.pop("fresh"))
    console.info(f"Optimizing {dimension} of task '{task}' (tag sweep:{runner.sweep})")
    result = run_optimize(runner, base, start=start, max_value=max_value, refine_steps=refine_steps)
    click.echo(result.render())


_REFINE = click.option(
    "--refine-steps",
    type=click.IntRange(min=0),
    default=2,
    show_default=True,
    help="Midpoints after doubling.",
)
_PARAMS = click.option("--track-params", default="", help="k:v list, inline JSON or a .json file.")


@optimize.command(name="bulk-size")
@_race_options
@_PARAMS
@click.option(
    "--start", type=click.IntRange(min=1), default=100, show_default=True, help="First bulk size (docs)."
)
@click.option("--max", "max_value", type=click.IntRange(min=1), default=25_600, show_default=True)
@_REFINE
def optimize_bulk_size(start: int, max_value: int, refine_steps: int, track_params: str, **opts: Any) -> None:
    """Double the bulk task's bulk-size from --start until throughput drops, then refine."""
    _optimize(Dimension.BULK_SIZE, start, max_value, refine_steps, track_params, opts)


@optimize.command(name="clients")
@_race_options
@_PARAMS
@click.option("--start", type=click.IntRange(min=1), default=1, show_default=True, help="First client count.")
@click.option("--max", "max_value", type=click.IntRange(min=1), default=128, show_default=True)
@_REFINE
def optimize_clients(start: int, max_value: int, refine_steps: int, track_params: str, **opts: Any) -> None:
    """Double the task's clients from --start until throughput drops, then refine."""
    _optimize(Dimension.CLIENTS, start, max_value, refine_steps, track_params, opts)


@main.command(name="find-max")
@_race_options
@_PARAMS
@click.option("--slo", required=True, help='E.g. "p99 latency < 100ms, error rate < 1%".')
@click.option("--start-rate", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True)
@click.option("--max-rate", type=click.FloatRange(min=0, min_open=True), default=100_000.0, show_default=True)
@click.option("--min-rate", type=click.FloatRange(min=0, min_open=True), default=0.1, show_default=True)
@click.option(
    "--resolution",
    type=click.FloatRange(min=0, max=100, min_open=True, max_open=True),
    default=5.0,
    show_default=True,
    help="Percent: the search's bracket width, and the verification's step down.",
)
@click.option(
    "--repeats",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Verification races a rate must all pass (at the result and at --margin above it).",
)
@click.option(
    "--search-repeats",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Races the search's lower bound must all pass before verification.",
)
@click.option(
    "--margin",
    type=click.FloatRange(min=0, min_open=True),
    default=20.0,
    show_default=True,
    help="Percent: the rate this much above the result must fail verification.",
)
def find_max(
    slo: str,
    start_rate: float,
    max_rate: float,
    min_rate: float,
    resolution: float,
    repeats: int,
    search_repeats: int,
    margin: float,
    track_params: str,
    **opts: Any,
) -> None:
    """The highest target-throughput (ops/s) of --task that meets --slo, verified with repeated races.

    Exits 1 when no rate met the SLO in verification.
    """
    from esbench.planning.findmax import run_find_max
    from esbench.planning.slo import parse_slo

    objective = parse_slo(slo)
    if not min_rate <= start_rate <= max_rate:
        raise UserError(
            f"Need --min-rate <= --start-rate <= --max-rate (got {min_rate:g}, {start_rate:g}, {max_rate:g})."
        )
    base, task, console = _base_settings(
        opts, track_params=parse_track_params(track_params) if track_params.strip() else {}
    )
    runner = _runner("find-max", base, task, Dimension.TARGET_THROUGHPUT, console, opts.pop("fresh"))
    runner.percentiles = tuple(sorted({*runner.percentiles, *(p.percentile for p in objective.percentiles)}))
    console.info(
        f"Searching the highest rate of '{task}' meeting {objective.describe()} (tag sweep:{runner.sweep})"
    )
    result = run_find_max(
        runner,
        base,
        objective,
        start=start_rate,
        max_rate=max_rate,
        min_rate=min_rate,
        resolution=resolution / 100.0,
        repeats=repeats,
        search_repeats=search_repeats,
        margin=margin / 100.0,
    )
    click.echo(result.render())
    if result.rate is None:
        raise SystemExit(1)


@main.command()
@_race_options
@_PARAMS
@click.option("--raw-gb-per-day", type=float, required=True, help="Raw data ingested per day, GB.")
@click.option("--hot", default="0", help="Hot retention: 30d, 2w, 9m (30-day months), 1y.")
@click.option("--warm", default="0", help="Warm retention after the hot tier.")
@click.option("--cold", default="0", help="Cold retention after the warm tier.")
@click.option("--replicas", type=click.IntRange(min=0), default=1, show_default=True)
@click.option(
    "--memory-per-node", type=float, default=64.0, show_default=True, help="GB of memory per data node."
)
@click.option(
    "--spare-above",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="A tier needing more nodes than this gets one spare node.",
)
@click.option("--verify", is_flag=True, help="Race --task (a bulk task) at the required indexing rate.")
def size(
    raw_gb_per_day: float,
    hot: str,
    warm: str,
    cold: str,
    replicas: int,
    memory_per_node: float,
    spare_above: int,
    verify: bool,
    track_params: str,
    **opts: Any,
) -> None:
    """Size hot/warm/cold data tiers from the daily volume and retention (seed 004's formulas)."""
    from esbench.planning.sizing import Tier, parse_days, render_plan, size_cluster

    plan = size_cluster(
        raw_gb_per_day=raw_gb_per_day,
        retention_days={
            Tier.HOT: parse_days(hot, option="--hot"),
            Tier.WARM: parse_days(warm, option="--warm"),
            Tier.COLD: parse_days(cold, option="--cold"),
        },
        replicas=replicas,
        memory_per_node_gb=memory_per_node,
        spare_above=spare_above,
    )
    click.echo(render_plan(plan))
    if not verify:
        return
    from esbench.planning.verify import verify_plan

    base, task, console = _base_settings(
        opts, track_params=parse_track_params(track_params) if track_params.strip() else {}
    )
    runner = _runner("size-verify", base, task, Dimension.TARGET_THROUGHPUT, console, opts.pop("fresh"))
    verification = verify_plan(plan, runner, base)
    hot_nodes = next((t.nodes for t in plan.tiers if t.tier is Tier.HOT), None)
    click.echo("")
    click.echo(verification.render())
    if hot_nodes is not None:
        click.echo(f"(The plan's hot tier has {hot_nodes} data nodes; race against a cluster of that size.)")
    if not verification.keeps_up:
        raise SystemExit(1)
