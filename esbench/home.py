"""Where esbench keeps its state: the esbench home directory and the built-in assets.

Layout under the home (``~/.esbench``, or ``$ESBENCH_HOME``)::

    distributions/   downloaded + unpacked Elasticsearch distributions (provision)
    installs/        node installations, one directory per installation id (provision)
    races/           one directory per race: results.json, node logs
    tracks/          user tracks, found by ``--track=NAME`` after the built-in ones
    corpora/         generated / downloaded / decompressed corpus files and offset indices
    results.db       the SQLite results store
"""

from __future__ import annotations

import os
from pathlib import Path

_REPO_ROOT = Path(__file__).resolve().parent.parent


def esbench_home() -> Path:
    """The esbench home directory (created on first use).

    Returns ``$ESBENCH_HOME`` if set, else ``~/.esbench``.
    """
    raw = os.environ.get("ESBENCH_HOME")
    home = Path(raw).expanduser() if raw else Path.home() / ".esbench"
    home.mkdir(parents=True, exist_ok=True)
    return home


def home_subdir(name: str) -> Path:
    """A directory below the esbench home, created on first use (e.g. ``"races"``)."""
    path = esbench_home() / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def _builtin_dir(name: str) -> Path:
    # Installed wheels carry the top-level ``tracks/`` and ``cars/`` as package data of
    # ``esbench.builtin.<name>`` (see pyproject.toml); a source checkout has them at the top.
    packaged = Path(__file__).resolve().parent / "builtin" / name
    if packaged.is_dir():
        return packaged
    return _REPO_ROOT / name


def builtin_tracks_dir() -> Path:
    """The directory of the tracks shipped with esbench (``tracks/`` in the source tree)."""
    return _builtin_dir("tracks")


def builtin_cars_dir() -> Path:
    """The directory of the car definitions shipped with esbench (``cars/`` in the source tree)."""
    return _builtin_dir("cars")
