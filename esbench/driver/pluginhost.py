"""The seam through which the driver receives a track's plugins.

A track plugin (Rally's ``track.py``) registers runners, param sources, schedulers and track
processors, and expects Rally's plugin API around it (``esrally`` imports, Rally-shaped track
objects, ``runner_for``). The driver knows none of that: it states here what it needs of whoever
loads plugins (:class:`PluginHost`) and what a plugin may call on its registry
(:class:`PluginRegistry`, implemented by :class:`esbench.driver.worker.registry.Registry`). The
composition root (:mod:`esbench.racecontrol`) hands an implementation
(:class:`esbench.compat.RallyPluginHost`) to the driver, in the registry it builds with
:func:`esbench.driver.worker.registry.prepare_race` or in
:class:`esbench.driver.settings.DriverSettings`.

A host travels to every worker process inside the pickled registry (local worker processes and Ray
actors), so an implementation must pickle: a module-level class without per-race state. This module
sits below the driver's rooms (the settings refer to it), so it names none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from esbench.corpus.model import CorpusSet
    from esbench.track.model import Track


class PluginRegistry(Protocol):
    """The registry as a plugin and its host see it: Rally's registration API (track docs, "Custom
    runners", "Custom parameter sources", "Custom schedulers", "Track processors"), the runner
    lookup behind Rally's ``runner_for`` and the registered track processors."""

    def register_runner(
        self, operation_type: object, runner: object, *, async_runner: bool = False, **kwargs: object
    ) -> None: ...

    def register_param_source(self, name: str, param_source: object) -> None: ...

    def register_scheduler(self, name: str, scheduler: Callable[..., object]) -> None: ...

    def register_track_processor(self, processor: object) -> None: ...

    def runner(self, operation_type: str) -> object: ...

    @property
    def track_processors(self) -> tuple[object, ...]: ...


class PluginHost(Protocol):
    """Loads a track's plugins into a registry and gives them what they need while a race runs."""

    def register(self, root: Path, registry: PluginRegistry) -> None:
        """Import the plugin of the track in ``root`` (if any) and call its ``register(registry)``.

        Raises:
            esbench.exceptions.TrackError: the plugin cannot be imported or its ``register`` fails
                (one paragraph naming the plugin file and line, :mod:`esbench.driver.worker.pluginerrors`).
        """
        ...

    def import_modules(self, root: Path) -> None:
        """Import the plugin modules of the track in ``root`` so that pickled plugin classes resolve
        in this process (a worker), without registering anything.

        Raises:
            esbench.exceptions.TrackError: the plugin cannot be imported.
        """
        ...

    def activate(self, registry: PluginRegistry, corpora: CorpusSet | None) -> None:
        """Make ``registry`` (and the prepared ``corpora``) the ones the plugin API of this process
        answers from (Rally's process-wide ``runner_for``)."""
        ...

    def process(self, track: Track, registry: PluginRegistry) -> Track:
        """The track after the registry's track processors (Rally's ``on_after_load_track`` and
        ``on_prepare_track``); ``track`` itself when none is registered.

        Raises:
            esbench.exceptions.TrackError: a processor raised.
        """
        ...

    def plugin_track(self, track: Track, document_files: Mapping[str, str]) -> object:
        """The track as a plugin's param sources receive it (Rally's mutable track objects).

        Args:
            track: the race's track.
            document_files: a corpus's ``source_file`` name -> absolute path of the prepared file.
        """
        ...
