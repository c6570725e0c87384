"""``esbench sweep`` and ``esbench optimize bulk-size|clients``: capacity planning over one dimension.

Options -> :class:`~esbench.settings.RaceSettings` and a :class:`~esbench.planning.sweep.PointRunner`
(:mod:`esbench.cli._planning_options`); the procedures live in :mod:`esbench.planning` (see
docs/planning.md). ``find-max`` and ``size`` are in :mod:`esbench.cli.find_max` and
:mod:`esbench.cli.size`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from esbench.cli import main
from esbench.cli._params import ValidatedText, positive_float, positive_int
from esbench.cli._planning_options import (
    ALLOW_TEST_MODE_OPTION,
    PARAMS_OPTION,
    base_settings,
    planning_runner,
    race_options,
    refuse_test_mode,
)
from esbench.exceptions import UserError
from esbench.planning.dimensions import Dimension, parse_values
from esbench.track.params import parse_track_params


def _split_sweep_params(text: str) -> tuple[dict[str, object], str, list[object]]:
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
    fixed: dict[str, object] = {}
    for key, values in items:
        if len(values) == 1:
            fixed.update(parse_track_params(f"{key}:{values[0]}"))
    if not swept:
        return fixed, "", []
    name = swept[0]
    values = next(v for k, v in items if k == name)
    return fixed, name, [parse_track_params(f"{name}:{v}")[name] for v in values]


@main.command()
@click.option(
    "--track-params",
    type=ValidatedText("params", _split_sweep_params, empty_ok=True, wrong_example='{"x": '),
    default="",
    help="k:v,... ; one key may list several values to sweep it.",
)
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
@race_options
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
    given: list[tuple[Dimension, str, str | None, Callable[[str], float] | None]] = [
        (Dimension.CLIENTS, "--clients", clients_list, positive_int),
        (Dimension.TARGET_THROUGHPUT, "--target-throughput", rates_list, positive_float),
        (Dimension.BULK_SIZE, "--bulk-size", bulk_list, positive_int),
        (Dimension.NODES, "--nodes", nodes_list, positive_int),
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
    if dimension is Dimension.TRACK_PARAM:
        values = param_values
    else:
        assert text is not None and convert is not None  # chosen because its option was given
        values = parse_values(text, option=option, convert=convert)
    opts["nodes"] = 1
    base, task, console = base_settings(opts, track_params=fixed)
    if dimension is Dimension.NODES and base.target_hosts:
        raise UserError(
            "--nodes sweeps provisioned clusters: drop --target-hosts (esbench starts each cluster)."
        )
    runner = planning_runner("sweep", base, task, dimension, console, opts.pop("fresh"), param=param)
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
    first, last = (runner.group(label) for label in (outcome.points[0].label, outcome.points[-1].label))
    click.echo(f"\nList the races: esbench list races --user-tag=sweep:{runner.sweep}")
    if len(outcome.points) > 1:  # one point compared with itself says nothing
        click.echo(
            f"Compare two points: esbench compare --baseline=tag:sweep-group:{first} "
            f"--contender=tag:sweep-group:{last}"
        )


# ``--nodes`` of the provisioning options is one number; a sweep takes a list under the same name,
# listed with the other dimensions.
sweep.params = [p for p in sweep.params if p.name != "nodes"]
sweep.params.insert(
    next(i for i, p in enumerate(sweep.params) if p.name == "bulk_list") + 1,
    click.Option(["--nodes", "nodes_list"], default=None, help="Sweep provisioned node counts, e.g. 1,2,3."),
)


@main.group()
def optimize() -> None:
    """Find the best bulk-size or client count (seed 004: double until throughput drops, then refine)."""


def _optimize(
    dimension: Dimension, start: int, max_value: int, refine_steps: int, track_params: str, opts: Any
) -> None:
    from esbench.planning.procedures import run_optimize

    if max_value < start:
        raise UserError(f"--max ({max_value}) is below --start ({start}): give a larger --max.")
    allow_test_mode = opts.pop("allow_test_mode")
    base, task, console = base_settings(
        opts, track_params=parse_track_params(track_params) if track_params.strip() else {}
    )
    refuse_test_mode(base, allow_test_mode, f"optimize {dimension}")
    runner = planning_runner(f"optimize-{dimension}", base, task, dimension, console, opts.pop("fresh"))
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


@optimize.command(name="bulk-size")
@click.option(
    "--start", type=click.IntRange(min=1), default=100, show_default=True, help="First bulk size (docs)."
)
@click.option("--max", "max_value", type=click.IntRange(min=1), default=25_600, show_default=True)
@_REFINE
@ALLOW_TEST_MODE_OPTION
@race_options
@PARAMS_OPTION
def optimize_bulk_size(start: int, max_value: int, refine_steps: int, track_params: str, **opts: Any) -> None:
    """Double the bulk task's bulk-size from --start until throughput drops, then refine."""
    _optimize(Dimension.BULK_SIZE, start, max_value, refine_steps, track_params, opts)


@optimize.command(name="clients")
@click.option("--start", type=click.IntRange(min=1), default=1, show_default=True, help="First client count.")
@click.option("--max", "max_value", type=click.IntRange(min=1), default=128, show_default=True)
@_REFINE
@ALLOW_TEST_MODE_OPTION
@race_options
@PARAMS_OPTION
def optimize_clients(start: int, max_value: int, refine_steps: int, track_params: str, **opts: Any) -> None:
    """Double the task's clients from --start until throughput drops, then refine."""
    _optimize(Dimension.CLIENTS, start, max_value, refine_steps, track_params, opts)
