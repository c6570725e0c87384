"""The track stage: locate, render (Jinja, like Rally), validate and model a track.

Public API: :func:`load_track`, :func:`render_track_source`, :func:`parse_track_params` and the
model class :class:`Track` (a track's plugins are loaded by :mod:`esbench.compat.plugins`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from esbench.lazy import lazy_exports

_EXPORTS = {
    "load_track": "esbench.track.loader",
    "render_track_source": "esbench.track.loader",
    "Track": "esbench.track.model",
    "parse_track_params": "esbench.track.params",
}

__all__ = [
    "Track",
    "load_track",
    "parse_track_params",
    "render_track_source",
]

if TYPE_CHECKING:
    from esbench.track.loader import load_track, render_track_source
    from esbench.track.model import Track
    from esbench.track.params import parse_track_params

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
