"""Where a track keeps its plugin: a ``track.py`` (or a ``track/`` package) beside ``track.json``;
for an OpenSearch Benchmark workload a ``workload.py`` (or ``workload/`` package) beside
``workload.json``.

Rally (``esrally/track/loader.py`` ``TrackPluginReader``) and OSB (``WorkloadPluginReader``) look
for the same two layouts under their own names (:mod:`esbench.track.dialect`). The track stage only
needs to know whether a track has a plugin (bare operation names may then be plugin types);
importing and registering it is :mod:`esbench.compat.plugins`'s job.
"""

from __future__ import annotations

from pathlib import Path

from esbench.track.dialect import dialect_of_directory


def plugin_entry(root: Path) -> Path | None:
    """The plugin entry point of the track in ``root``: ``track.py`` or ``track/__init__.py``
    (``workload.py`` or ``workload/__init__.py`` for a workload), else None."""
    name = dialect_of_directory(root).plugin_module
    module = root / f"{name}.py"
    if module.is_file():
        return module
    package = root / name / "__init__.py"
    if package.is_file():
        return package
    return None


def plugin_module_name(root: Path) -> str:
    """The module name of the plugin of the track in ``root`` inside its package (``track`` or
    ``workload``)."""
    return dialect_of_directory(root).plugin_module


def has_plugins(root: Path) -> bool:
    """True if the track in ``root`` has a plugin (see :func:`plugin_entry`)."""
    return plugin_entry(root) is not None
