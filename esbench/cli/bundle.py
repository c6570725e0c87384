"""``esbench bundle``: one tar with a track and its corpora, for hosts without network."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from esbench.cli import main
from esbench.cli.options import table_options
from esbench.cli.tracks import resolve_source
from esbench.console import Console
from esbench.track.params import parse_track_params


@main.command("bundle")
@table_options("bundle")
@click.option(
    "--output", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The .tar file to write."
)
def bundle_command(
    track_name: str | None,
    track_path: Path | None,
    track_params: str,
    output: Path,
    quiet: bool,
    **options: Any,
) -> None:
    """Write a track, its corpora and their -1k test-mode files into one .tar (race it elsewhere with
    `esbench race --track-bundle=FILE.tar --offline`)."""
    from esbench.corpus.bundle import make_bundle
    from esbench.track.loader import load_track

    source, repo = resolve_source(track_name, track_path, options)
    params = parse_track_params(track_params)
    track = load_track(**source, params=params)
    test_mode_track = load_track(**source, params=params, test_mode=True)
    console = Console(quiet=quiet)
    manifest = make_bundle(
        track,
        output,
        test_mode_track=test_mode_track,
        track_repository=repo.name if repo else None,
        track_revision=repo.revision if repo else None,
        progress=console.progress,
    )
    console.end_progress()
    size = sum(f.size for f in manifest.files)
    click.echo(f"Wrote [{output}]: track '{manifest.track}', {len(manifest.files)} files, {size:,} bytes.")
