"""``esbench size``: seed 004's sizing formulas, optionally verified with a race
(:mod:`esbench.planning.sizing`, :mod:`esbench.planning.verify`; docs/planning.md)."""

from __future__ import annotations

from typing import Any

import click

from esbench.cli import main
from esbench.cli._planning_options import PARAMS_OPTION, base_settings, planning_runner, race_options
from esbench.planning.dimensions import Dimension
from esbench.track.params import parse_track_params


@main.command()
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
@race_options
@PARAMS_OPTION
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

    base, task, console = base_settings(
        opts, track_params=parse_track_params(track_params) if track_params.strip() else {}
    )
    runner = planning_runner(
        "size-verify", base, task, Dimension.TARGET_THROUGHPUT, console, opts.pop("fresh")
    )
    verification = verify_plan(plan, runner, base)
    hot_nodes = next((t.nodes for t in plan.tiers if t.tier is Tier.HOT), None)
    click.echo("")
    click.echo(verification.render())
    if hot_nodes is not None:
        click.echo(f"(The plan's hot tier has {hot_nodes} data nodes; race against a cluster of that size.)")
    if not verification.keeps_up:
        raise SystemExit(1)
