"""Where the track of a race comes from: one sum type, chosen and checked once.

A race's track is given by exactly one of four sources::

    TrackByName      --track=NAME (built in, a user track, or a track repository's)
    TrackAtPath      --track-path=DIR|FILE
    TrackFromBundle  --track-bundle=FILE.tar (unpacked by the CLI into a TrackAtPath)
    TrackInMemory    a track model built in memory (``esbench query``/``load``)

The command line chooses one with :func:`choose_track_source` (the "exactly one of --track and
--track-path" rule lives there and nowhere else in the CLI); race control reads the one a
:class:`~esbench.settings.RaceSettings` holds with :func:`source_of`. This module sits on the ground
floor: it imports no stage package at run time (the track model and the repository settings are
named for type checking only).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from esbench.exceptions import UserError

if TYPE_CHECKING:
    from esbench.track.model import Track
    from esbench.track.repository import TrackRepositorySettings

#: The rule's wording in the race and planning commands (Rally's option names).
RACE_RULE = "Give exactly one of --track=NAME or --track-path=DIR (see 'esbench list tracks')."
#: The rule's wording where a track file is accepted too (``info``, ``render-track``, ``download``,
#: and a :class:`~esbench.settings.RaceSettings` built in Python; the track loader's own wording).
TRACK_FILE_RULE = "Give exactly one of --track=NAME and --track-path=DIR|FILE."
#: ``--track-bundle`` with another track option.
BUNDLE_RULE = "--track-bundle brings its own track: leave out --track and --track-path."


@dataclass(frozen=True)
class TrackByName:
    """``--track=NAME``: a built-in or user track, else one of a track repository.

    Attributes:
        name: the track's name (``geonames``, ``nested/tiny``...).
        repository: ``--track-repository``/``--track-revision``/``--track-branch``.
    """

    name: str
    repository: TrackRepositorySettings


@dataclass(frozen=True)
class TrackAtPath:
    """``--track-path``: a track directory (with ``track.json``) or a track JSON file."""

    path: Path


@dataclass(frozen=True)
class TrackFromBundle:
    """``--track-bundle``: a tar made by ``esbench bundle`` (track and corpora); the CLI unpacks it
    into the esbench home and races the unpacked directory (:class:`TrackAtPath`)."""

    bundle: Path


@dataclass(frozen=True)
class TrackInMemory:
    """A track model built in memory, raced as it is (no loading, no track params)."""

    track: Track


TrackSource = TrackByName | TrackAtPath | TrackFromBundle | TrackInMemory


def choose_track_source(
    *,
    name: str | None,
    path: Path | None,
    repository: TrackRepositorySettings,
    bundle: Path | None = None,
    rule: str = RACE_RULE,
) -> TrackByName | TrackAtPath | TrackFromBundle:
    """The source that ``--track``, ``--track-path`` and ``--track-bundle`` give.

    Args:
        name / path / bundle: the option values (None when not given).
        repository: where a named track comes from (ignored for the other sources).
        rule: the message when neither or both of ``name`` and ``path`` are given
            (:data:`RACE_RULE` or :data:`TRACK_FILE_RULE`).

    Raises:
        UserError: ``bundle`` with ``name`` or ``path`` (:data:`BUNDLE_RULE`); else neither or both
            of ``name`` and ``path`` (``rule``).
    """
    if bundle is not None:
        if name or path:
            raise UserError(BUNDLE_RULE)
        return TrackFromBundle(bundle)
    if bool(name) == bool(path):
        raise UserError(rule)
    if name:
        return TrackByName(name, repository)
    assert path is not None  # exactly one of the two is given
    return TrackAtPath(path)


class HoldsATrack(Protocol):
    """The fields of :class:`~esbench.settings.RaceSettings` that name its track."""

    @property
    def track(self) -> Track | None: ...
    @property
    def track_name(self) -> str | None: ...
    @property
    def track_path(self) -> Path | None: ...
    @property
    def track_source(self) -> TrackRepositorySettings: ...


def source_of(settings: HoldsATrack) -> TrackByName | TrackAtPath | TrackInMemory:
    """The track source of race settings: the track in memory if there is one, else the name or
    the path (a bundle was unpacked into a path by the CLI).

    Raises:
        UserError: no track in memory and neither or both of name and path (:data:`TRACK_FILE_RULE`,
            the loader's wording, which Python callers have always got).
    """
    if settings.track is not None:
        return TrackInMemory(settings.track)
    if bool(settings.track_name) == bool(settings.track_path):
        raise UserError(TRACK_FILE_RULE)
    if settings.track_name:
        return TrackByName(settings.track_name, settings.track_source)
    assert settings.track_path is not None  # exactly one of the two is given
    return TrackAtPath(settings.track_path)
