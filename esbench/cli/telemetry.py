"""``esbench list telemetry``: the telemetry devices ``--telemetry`` accepts."""

from __future__ import annotations

import click

from esbench.cli import list_group


@list_group.command(name="telemetry")
def list_telemetry() -> None:
    """List the telemetry devices (like Rally's 'esrally list telemetry')."""
    from esbench.telemetry.cli import telemetry_table

    click.echo(telemetry_table())
