"""``esbench list telemetry``: the telemetry devices ``--telemetry`` accepts."""

from __future__ import annotations

import click

from esbench.cli import list_group
from esbench.cli.options import table_options


@list_group.command(name="telemetry")
@table_options("list telemetry")
def list_telemetry(quiet: bool, offline: bool) -> None:
    """List the telemetry devices (like Rally's 'esrally list telemetry')."""
    from esbench.telemetry.cli import telemetry_table

    click.echo(telemetry_table())
