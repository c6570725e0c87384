"""``esbench find-max``: the highest target-throughput of a task that meets an SLO, verified with
repeated races (:mod:`esbench.planning.findmax`; docs/planning.md)."""

from __future__ import annotations

from typing import Any

import click

from esbench.cli import main
from esbench.cli._planning_options import (
    ALLOW_TEST_MODE_OPTION,
    PARAMS_OPTION,
    base_settings,
    planning_runner,
    race_options,
    refuse_test_mode,
)
from esbench.exceptions import UserError
from esbench.planning.dimensions import Dimension
from esbench.track.params import parse_track_params


@main.command(name="find-max")
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
@ALLOW_TEST_MODE_OPTION
@race_options
@PARAMS_OPTION
def find_max(
    slo: str,
    start_rate: float,
    max_rate: float,
    min_rate: float,
    resolution: float,
    repeats: int,
    search_repeats: int,
    margin: float,
    allow_test_mode: bool,
    track_params: str,
    **opts: Any,
) -> None:
    """The highest target-throughput (ops/s) of --task that meets --slo, verified with repeated races.

    Exits 1 when no rate met the SLO in verification.
    """
    from esbench.planning.findmax import PHASE_VERIFY, run_find_max
    from esbench.planning.slo import parse_slo

    objective = parse_slo(slo)
    if not min_rate <= start_rate <= max_rate:
        raise UserError(
            f"Need --min-rate <= --start-rate <= --max-rate (got {min_rate:g}, {start_rate:g}, {max_rate:g})."
        )
    base, task, console = base_settings(
        opts, track_params=parse_track_params(track_params) if track_params.strip() else {}
    )
    refuse_test_mode(base, allow_test_mode, "find-max")
    runner = planning_runner("find-max", base, task, Dimension.TARGET_THROUGHPUT, console, opts.pop("fresh"))
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
    if result.confirmation.refuted is not None:
        verified, refuted = (
            runner.group(f"{rate:g}", PHASE_VERIFY) for rate in (result.rate, result.confirmation.refuted)
        )
        click.echo(
            f"\nCompare the two: esbench compare --baseline=tag:sweep-group:{verified} "
            f"--contender=tag:sweep-group:{refuted}"
        )
