"""``esbench create-track``: a track from indices or data streams of a live cluster (Rally's command)."""

from __future__ import annotations

from pathlib import Path

import click

from esbench.cli import main
from esbench.cli.options import table_options
from esbench.console import Console


def _names(text: str | None) -> tuple[str, ...]:
    return tuple(n.strip() for n in (text or "").split(",") if n.strip())


@main.command("create-track")
@table_options("create-track")
def create_track_command(
    track_name: str,
    target_hosts: str,
    indices: str | None,
    data_streams: str | None,
    output_path: Path,
    client_options: str,
    batch_size: int,
    quiet: bool,
    offline: bool,
) -> None:
    """Write a track (index bodies, corpora with -1k test-mode files, a default challenge) from a cluster.

    It reads the cluster only, so --offline (nothing is downloaded) holds whether given or not."""
    from esbench.driver.transport.client import parse_client_options
    from esbench.tracker import create_track

    console = Console(quiet=quiet)
    created = create_track(
        name=track_name,
        hosts=_names(target_hosts),
        output=output_path.expanduser().resolve(),
        indices=_names(indices),
        data_streams=_names(data_streams),
        client_options=parse_client_options(client_options),
        batch_size=batch_size,
        progress=console.progress,
    )
    console.end_progress()
    hosts = _names(target_hosts)
    click.echo(f"Track '{track_name}' written to [{created.root}].")
    if created.reason:
        params = ",".join(f"{k}:{v}" for k, v in created.track_params.items())
        click.echo(f"Track params {params}: {created.reason}.")
    options = "; add your --client-options" if client_options.strip() else ""
    click.echo(
        f"Race it against the cluster it came from (its default challenge deletes and re-creates "
        f"{', '.join(created.indices)} there{options}):\n  {created.race_command(hosts)}"
    )
