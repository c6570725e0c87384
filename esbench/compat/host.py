"""Rally's plugin API as the driver's plugin host (:class:`esbench.driver.pluginhost.PluginHost`).

The composition root (:mod:`esbench.racecontrol`) hands a :class:`RallyPluginHost` to the driver,
which loads a race's plugins through it in the coordinator and, inside the pickled registry, in
every worker process: the ``esrally`` shim (:mod:`esbench.compat.shim`), ``register(registry)``
(:mod:`esbench.compat.plugins`), the process-wide ``runner_for`` (:mod:`esbench.compat.runtime`),
Rally's track processors (:mod:`esbench.compat.processors`) and Rally-shaped tracks for plugin
param sources (:mod:`esbench.compat.trackconvert`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from esbench.compat import plugins, runtime
from esbench.compat.trackconvert import to_rally
from esbench.compat.trackview import Track as RallyTrack
from esbench.driver.pluginhost import PluginRegistry
from esbench.driver.worker.registry import Registry
from esbench.driver.worker.registry import default_registry as _driver_default_registry
from esbench.track.model import Track
from esbench.track.pluginfile import has_plugins, plugin_entry

if TYPE_CHECKING:
    from esbench.corpus.model import CorpusSet


class RallyPluginHost:
    """Loads Rally track plugins for the driver. It holds no state, so it pickles to the workers
    (a local worker process or a Ray actor) as its class name."""

    def register(self, root: Path, registry: PluginRegistry) -> None:
        """Import the plugin of the track in ``root`` and call its ``register(registry)``.

        Raises:
            esbench.exceptions.TrackError: see :func:`esbench.compat.plugins.register_plugins`.
        """
        plugins.register_plugins(root, registry)

    def import_modules(self, root: Path) -> None:
        """Import the plugin modules of the track in ``root`` (if it has a plugin).

        Raises:
            esbench.exceptions.TrackError: see :func:`esbench.compat.plugins.import_plugin`.
        """
        if has_plugins(root):
            plugins.import_plugin(root)

    def activate(self, registry: PluginRegistry, corpora: CorpusSet | None) -> None:
        """Make ``registry`` and ``corpora`` the ones ``esrally``'s functions answer from."""
        runtime.activate(registry, corpora)

    def process(self, track: Track, registry: PluginRegistry) -> Track:
        """The track after the registry's track processors, in Rally's order.

        Raises:
            esbench.exceptions.TrackError: a processor raised (one paragraph naming the plugin line).
        """
        from esbench.compat.processors import apply_track_processors
        from esbench.corpus.cache import corpora_home

        return apply_track_processors(
            track,
            registry.track_processors,
            data_root_dir=corpora_home(),
            plugin_file=plugin_entry(Path(track.root)),
        )

    def plugin_track(self, track: Track, document_files: Mapping[str, str]) -> RallyTrack:
        """Rally's track objects for ``track``, with the prepared document files' absolute paths."""
        return to_rally(track, document_files=dict(document_files))

    def __eq__(self, other: object) -> bool:
        return type(other) is RallyPluginHost

    def __hash__(self) -> int:
        return hash(RallyPluginHost)


def default_registry() -> Registry:
    """The driver's default registry (built-in runners, param sources, schedulers) with the Rally
    plugin host: param sources registered on it get Rally's track objects, as under Rally."""
    return _driver_default_registry(plugins=RallyPluginHost())
