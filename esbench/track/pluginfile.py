"""Where a track keeps its plugin: a ``track.py`` (or a ``track/`` package) beside ``track.json``.

Rally (``esrally/track/loader.py`` ``TrackPluginReader``) looks for the same two layouts. The track
stage only needs to know whether a track has a plugin (bare operation names may then be plugin
types); importing and registering it is :mod:`esbench.compat.plugins`'s job.
"""

from __future__ import annotations

from pathlib import Path


def plugin_entry(root: Path) -> Path | None:
    """The plugin entry point of the track in ``root``: ``track.py`` or ``track/__init__.py``, else None."""
    module = root / "track.py"
    if module.is_file():
        return module
    package = root / "track" / "__init__.py"
    if package.is_file():
        return package
    return None


def has_plugins(root: Path) -> bool:
    """True if the track in ``root`` has a ``track.py`` (or ``track/`` package) plugin."""
    return plugin_entry(root) is not None
