"""Rally compatibility for track plugins: the driver's plugin host.

esbench.compat sits above the driver: it offers the driver's runners and param sources to plugins
as Rally's classes, and the driver never imports it; the composition root hands
:class:`RallyPluginHost` to the driver (the seam is
:class:`esbench.driver.pluginhost.PluginHost`).

* :mod:`esbench.compat.host`: :class:`RallyPluginHost` and :func:`default_registry` (the driver's
  default registry with that host).
* :mod:`esbench.compat.plugins`: imports a track's ``track.py`` and calls its ``register(registry)``.
* :mod:`esbench.compat.trackview`: Rally-shaped, mutable track objects (``esrally/track/track.py``)
  and the one conversion between them and the frozen :mod:`esbench.track.model`.
* :mod:`esbench.compat.shim`: makes ``import esrally`` resolve to the package in
  ``esbench/compat/rally_api/esrally`` while a track plugin is loaded, unless the real Rally is
  installed.
* :mod:`esbench.compat.processors`: applies ``register_track_processor`` processors in Rally's order.
* Whatever a plugin raises becomes one paragraph naming the plugin file and line
  (:mod:`esbench.driver.worker.pluginerrors`, used by the driver too while a task runs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from esbench.lazy import lazy_exports

_EXPORTS = {
    "RallyPluginHost": "esbench.compat.host",
    "default_registry": "esbench.compat.host",
}

__all__ = ["RallyPluginHost", "default_registry"]

if TYPE_CHECKING:
    from esbench.compat.host import RallyPluginHost, default_registry

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
