"""Options of the track tools: ``render-track`` and ``create-track`` (Rally's ``render-track`` and
``create-track`` parsers in ``esrally/rally.py``); ``info`` takes the track options of
:mod:`esbench.cli.options.track`."""

from __future__ import annotations

from pathlib import Path

import click

from esbench.cli import _params
from esbench.cli.options.entry import CliOption, Kind
from esbench.track.model import BuildFlavor

TRACK_TOOL_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="distribution_version",
        flags=("--distribution-version",),
        commands=("info", "render-track", "list tracks", "bundle", "list cars", "list elasticsearch-plugins"),
        help="Elasticsearch version that picks the track (or team) repository's branch (Rally's rule; else "
        "master).",
        field="TrackRepositorySettings.resolve(distribution_version=...)",
    ),
    CliOption(
        name="output_path",
        flags=("--output-path",),
        commands=("render-track",),
        type=click.Path(path_type=Path),
        help="Write the rendered track here instead of stdout.",
        field="the file render-track writes",
    ),
    CliOption(
        name="build_flavor",
        flags=("--build-flavor",),
        commands=("render-track",),
        type=click.Choice([f.value for f in BuildFlavor]),
        default=BuildFlavor.DEFAULT.value,
        show_default=True,
        help="Value of the template global build_flavor.",
        field="the template global build_flavor",
    ),
    CliOption(
        name="serverless_operator",
        flags=("--serverless-operator",),
        commands=("render-track",),
        kind=Kind.FLAG,
        help="Set the template global serverless_operator to true.",
        field="the template global serverless_operator",
    ),
    CliOption(
        name="quiet",
        flags=("--quiet", "-q"),
        commands=("render-track",),
        kind=Kind.SWITCH,
        default=True,
        show_default=True,
        help="Rally's default for render-track: say nothing but the track; --no-quiet also says where "
        "the rendered track was written.",
        field="the 'written to' line of render-track",
    ),
    CliOption(
        name="track_name",
        flags=("--track",),
        osb=("--workload", "-w"),
        commands=("create-track",),
        required=True,
        help="Name of the new track (its directory's name).",
        field="the new track's name",
    ),
    CliOption(
        name="target_hosts",
        flags=("--target-hosts",),
        osb=("-t",),
        commands=("create-track",),
        required=True,
        type=_params.HOSTS,
        help="HOST:PORT[,HOST:PORT...] of the cluster to read.",
        field="the cluster create-track reads",
    ),
    CliOption(
        name="indices",
        flags=("--indices",),
        osb=("-i",),
        commands=("create-track",),
        type=_params.NAMES,
        help="Indices (names or patterns, comma-separated, or a JSON array).",
        field="the indices create-track reads",
    ),
    CliOption(
        name="data_streams",
        flags=("--data-streams",),
        commands=("create-track",),
        type=_params.NAMES,
        help="Data streams (names or patterns, comma-separated, or a JSON array) to turn into a track.",
        field="the data streams create-track reads",
    ),
    CliOption(
        name="output_path",
        flags=("--output-path",),
        commands=("create-track",),
        type=click.Path(file_okay=False, path_type=Path),
        default=Path("."),
        show_default=True,
        help="The track is written to OUTPUT_PATH/TRACK.",
        field="the directory create-track writes to",
    ),
    CliOption(
        name="client_options",
        flags=("--client-options",),
        osb=("-c",),
        commands=("create-track",),
        default="",
        type=_params.CLIENT_OPTIONS,
        help="Client options, as for `esbench race`.",
        field="the client of create-track",
    ),
    CliOption(
        name="batch_size",
        flags=("--batch-size",),
        commands=("create-track",),
        type=click.IntRange(min=1),
        default=1000,
        show_default=True,
        help="Documents per scroll page.",
        field="the scroll page size of create-track",
    ),
)
