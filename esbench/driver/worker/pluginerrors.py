"""One paragraph for whatever a track plugin raises (Rally prints a traceback; esbench does not).

The paragraph names what esbench was doing (``register()``, ``MyParamSource.params()``, the runner
of an operation type), the task, the exception and the plugin's own source line: the innermost
frame of the traceback that lies in a track plugin directory, else the innermost one outside
esbench. Plugin directories are recorded by :func:`esbench.compat.plugins.import_plugin`.
"""

from __future__ import annotations

import traceback
from pathlib import Path

from esbench.exceptions import DriverError, TrackError

_ESBENCH_DIR = Path(__file__).resolve().parents[1]
_plugin_roots: set[Path] = set()


class PluginError(TrackError):
    """A track plugin raised an exception while the track was loaded (import, ``register``,
    track processors); the message names where, the exception, the plugin file and line."""


class PluginTaskError(DriverError):
    """A track plugin raised an exception while a task ran (param source, scheduler, runner)."""


def add_plugin_root(root: Path) -> None:
    """Remember a track plugin directory: frames below it are the plugin's own code."""
    _plugin_roots.add(Path(root).resolve())


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def plugin_location(exc: BaseException) -> tuple[str, int] | None:
    """``(file, line)`` of the plugin code that raised ``exc`` (see module doc), or None."""
    frames = traceback.extract_tb(exc.__traceback__)
    fallback = None
    for frame in reversed(frames):
        path = Path(frame.filename).resolve()
        if _in_plugin(path):
            return frame.filename, frame.lineno or 0
        if fallback is None and _not_library(path):
            fallback = (frame.filename, frame.lineno or 0)
    return fallback


def _not_library(path: Path) -> bool:
    return not _inside(path, _ESBENCH_DIR) and not {"site-packages", "dist-packages"} & set(path.parts)


def _in_plugin(path: Path) -> bool:
    # The track directory's parent is importable for plugins too (elastic/logs imports elastic/shared).
    return _not_library(path) and any(
        _inside(path, root) or _inside(path, root.parent) for root in _plugin_roots
    )


def plugin_failure(
    exc: BaseException, *, where: str, task: str | None = None, plugin_file: Path | None = None
) -> PluginError | PluginTaskError:
    """The error to raise (``from None``) for ``exc`` raised by plugin code.

    Args:
        exc: what the plugin raised (with its traceback).
        where: what esbench called, e.g. ``"register()"`` or ``"KnnParamSource.params()"``.
        task: the task being run, if any.
        plugin_file: the plugin entry file, named when no frame of the plugin is found.
    """
    location = plugin_location(exc)
    if location is not None:
        at = f" at {location[0]}:{location[1]}"
    elif plugin_file is not None:
        at = f" in {plugin_file}"
    else:
        at = ""
    detail = str(exc).strip().replace("\n", " ") or "(no message)"
    what = (
        f"{type(exc).__name__}: {detail} (raised{at}). Fix the plugin code there, or the track "
        f"parameters it reads."
    )
    if task:
        return PluginTaskError(f"Task '{task}' failed: the track plugin raised in {where}: {what}", exc)
    return PluginError(f"The track plugin failed in {where}: {what}", exc)


def from_plugin(exc: BaseException) -> bool:
    """True if a frame of ``exc``'s traceback lies in a track plugin directory."""
    return any(_in_plugin(Path(f.filename).resolve()) for f in traceback.extract_tb(exc.__traceback__))


def reraise_for_plugin(exc: Exception, *, where: str, task: str | None = None) -> None:
    """Raise :func:`plugin_failure` for ``exc`` if plugin code raised it; else return (the caller
    re-raises)."""
    if from_plugin(exc):
        raise plugin_failure(exc, where=where, task=task) from None
