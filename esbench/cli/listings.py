"""``esbench list pipelines`` (Rally's list kind); the rows come from
:mod:`esbench.racecontrol.pipelines`. ``list elasticsearch-plugins`` lists a team's plugins, as in
Rally (:mod:`esbench.cli.provision`)."""

from __future__ import annotations

import click

from esbench.cli import list_group
from esbench.cli.options import table_options
from esbench.console import tabulate


@list_group.command("pipelines")
@table_options("list pipelines")
def list_pipelines_command(quiet: bool, offline: bool) -> None:
    """List Rally's pipelines, saying which ones esbench serves."""
    from esbench.racecontrol.pipelines import pipeline_rows

    click.echo("Available pipelines:\n")
    click.echo(tabulate(pipeline_rows(), headers=["Name", "Description"]))
