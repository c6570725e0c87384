"""The track stage: locate, render (Jinja, like Rally), validate and model a track.

Public API: :func:`load_track`, :func:`render_track_source`, :func:`parse_track_params`,
:func:`load_plugins` and the model class :class:`Track`.
"""

from __future__ import annotations

from esbench.track.loader import load_track, render_track_source
from esbench.track.model import Track
from esbench.track.params import parse_track_params
from esbench.track.plugins import load_plugins

__all__ = ["Track", "load_plugins", "load_track", "parse_track_params", "render_track_source"]
