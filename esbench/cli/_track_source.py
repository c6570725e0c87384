"""Options that choose where a named track comes from: ``--track-repository``, ``--track-revision``,
``--track-branch`` (Rally's names), shared by ``race``, ``info``, ``render-track`` and ``download``."""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any, TypeVar

import click

from esbench.cli._osb_names import is_osb_command_line
from esbench.track.repository import RepositoryPeer, TrackRepositorySettings

F = TypeVar("F", bound=Callable[..., Any])

_NAMES = ("track_repository", "track_revision", "track_branch")


def track_bundle_option(f: F) -> F:
    """``--track-bundle=FILE.tar``: race the track (and corpora) of a bundle made by `esbench bundle`."""
    return click.option(
        "--track-bundle",
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        default=None,
        help="A bundle made by `esbench bundle` (track + corpora); use with --offline on air-gapped hosts.",
    )(f)


def track_source_options(f: F) -> F:
    """Add the three options; read them back with :func:`pop_track_source`."""
    f = click.option(
        "--track-branch",
        default=None,
        help="Branch of the track repository (default: chosen from the Elasticsearch version, like Rally).",
    )(f)
    f = click.option(
        "--track-revision",
        default=None,
        help="Commit, tag or branch of the track repository to use.",
    )(f)
    return click.option(
        "--track-repository",
        default=None,
        help="Named track repository (URLs in <esbench home>/esbench.ini [tracks]; default: rally-tracks). "
        "Tracks not built in or under <esbench home>/tracks come from the 'default' repository.",
    )(f)


def pop_track_source(options: MutableMapping[str, Any]) -> TrackRepositorySettings:
    """Remove the three options from a click kwargs dict and return them as settings, with the
    repositories of the running command line's peer: OSB's workload repositories where
    :func:`~esbench.cli._osb_names.is_osb_command_line` says the line is an OSB user's, else Rally's."""
    repository, revision, branch = (options.pop(name, None) for name in _NAMES)
    peer = RepositoryPeer.OSB if is_osb_command_line() else RepositoryPeer.RALLY
    return TrackRepositorySettings(repository=repository, revision=revision, branch=branch, peer=peer)
