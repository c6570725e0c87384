"""Options that choose the track, its challenge and tasks (Rally's ``track_repo``/``track`` parents
in ``esrally/rally.py``)."""

from __future__ import annotations

from pathlib import Path

import click

from esbench.cli import _params
from esbench.cli.options.entry import CliOption, Kind

#: The command that races a track.
RACING = ("race",)
#: esbench's ad-hoc commands: they race a track they build in memory (:mod:`esbench.cli.adhoc`).
AD_HOC = ("query", "load")
#: Commands that load a track by name or path (Rally's ``track`` parent parser).
LOADING = (*RACING, "info", "render-track", "download", "bundle")
#: esbench's planning commands: they race a track several times (:mod:`esbench.cli.planning`).
PLANNING = ("sweep", "optimize bulk-size", "optimize clients", "find-max", "size")

TRACK_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="track_name",
        osb_spelling_matters=True,
        flags=("--track",),
        osb=("--workload", "-w"),
        commands=(*LOADING, *PLANNING),
        help="Name of a built-in or user track, else of the default track repository (see 'esbench list "
        "tracks'); as OSB's --workload (or under run): a workload of OSB's repository (see docs/tracks.md).",
        field="RaceSettings.track_name",
    ),
    CliOption(
        name="track_path",
        flags=("--track-path",),
        osb=("--workload-path",),
        commands=(*LOADING, "list tracks", *PLANNING),
        type=click.Path(exists=True, path_type=Path),
        help="Directory of a Rally-format track (or its track.json), or of an OpenSearch Benchmark workload "
        "(workload.json).",
        field="RaceSettings.track_path",
    ),
    CliOption(
        name="track_repository",
        osb_spelling_matters=True,
        flags=("--track-repository",),
        osb=("--workload-repository",),
        commands=(*LOADING, "list tracks", *PLANNING),
        help="Named track repository (URLs in <esbench home>/esbench.ini [tracks]; default: rally-tracks). "
        "Tracks not built in or under <esbench home>/tracks come from the 'default' repository. As OSB's "
        "--workload-repository: a workload repository ([workloads]; default: "
        "opensearch-benchmark-workloads).",
        field="RaceSettings.track_source.repository",
    ),
    CliOption(
        name="track_revision",
        osb_spelling_matters=True,
        flags=("--track-revision",),
        osb=("--workload-revision",),
        commands=(*LOADING, "list tracks", *PLANNING),
        help="Commit, tag or branch of the track repository to use.",
        field="RaceSettings.track_source.revision",
    ),
    CliOption(
        name="track_branch",
        flags=("--track-branch",),
        commands=(*LOADING, "list tracks", *PLANNING),
        rally=False,
        help="Branch of the track repository (default: chosen from the Elasticsearch version, like Rally).",
        field="RaceSettings.track_source.branch",
    ),
    CliOption(
        name="track_bundle",
        flags=("--track-bundle",),
        commands=RACING,
        rally=False,
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help="A bundle made by `esbench bundle` (track + corpora); use with --offline on air-gapped hosts.",
        field="RaceSettings.track_path (the bundle's track, unpacked into the esbench home)",
    ),
    CliOption(
        name="track_params",
        flags=("--track-params",),
        osb=("--workload-params", "-wp"),
        commands=LOADING,
        default="",
        type=lambda: _params.params_type("--track-params"),
        help="k:v list, inline JSON or a .json file.",
        field="RaceSettings.track_params",
    ),
    CliOption(
        name="challenge",
        flags=("--challenge",),
        osb=("--test-procedure",),
        commands=(*RACING, "info", "download", *PLANNING),
        help="Challenge to run (default: the track's default challenge); OSB's --test-procedure is the same.",
        field="RaceSettings.challenge",
    ),
    CliOption(
        name="include_tasks",
        flags=("--include-tasks",),
        commands=(*RACING, "info", *PLANNING),
        default="",
        type=lambda: _params.filters_type("--include-tasks"),
        help="Only these tasks: NAME, type:OPTYPE or tag:TAG, ... (or a JSON array of them)",
        field="RaceSettings.driver.include_tasks",
    ),
    CliOption(
        name="exclude_tasks",
        flags=("--exclude-tasks",),
        commands=(*RACING, "info", *PLANNING),
        default="",
        type=lambda: _params.filters_type("--exclude-tasks"),
        help="Skip these tasks: NAME, type:OPTYPE or tag:TAG, ... (or a JSON array of them)",
        field="RaceSettings.driver.exclude_tasks",
    ),
    CliOption(
        name="test_mode",
        flags=("--test-mode",),
        commands=(*RACING, "info", "download", *PLANNING),
        kind=Kind.FLAG,
        help="Smoke test: -1k corpora, capped iterations/time periods.",
        field="RaceSettings.test_mode",
    ),
)
