"""The registry of runners, param sources, schedulers and track processors of one race.

A :class:`Registry` is an object owned by the race, not module state: :func:`default_registry`
returns a fresh one with the built-ins, tests take a :meth:`Registry.copy`, and a track's
``track.py`` adds to it through :func:`esbench.track.plugins.load_plugins`, which calls
``register(registry)``. The registration methods keep Rally's names and contracts
(``esrally/driver/runner.py`` ``register_runner``, ``esrally/track/params.py``
``register_param_source_for_name``, ``esrally/driver/scheduler.py`` ``register_scheduler``):

* ``register_runner(operation_type, runner, async_runner=True)``: ``runner`` is an ``async``
  function ``(es, params)`` or an object with ``async def __call__(self, es, params)`` (optionally
  an async context manager, entered around every call); it returns None, ``(weight, unit)`` or a
  dict (``weight``, ``unit``, ``success``, ``error-type``...). As in Rally, a runner registered
  without ``async_runner=True`` is rejected (plugins read ``registry.meta_data["async_runner"]``
  to choose). Registering an existing type replaces the runner (plugins may override built-ins).
* ``register_param_source(name, source)``: a class ``(track, params, **kwargs)`` with
  ``partition``/``params`` (and ``infinite`` or ``size()``), or a function
  ``(track, params, **kwargs) -> dict``; operations refer to it with ``param-source``. Like
  Rally, such sources get a Rally-shaped track (:mod:`esbench.compat.trackview`), built once per
  process, with the absolute paths of the prepared document files.
* ``meta_data``: Rally's ``TrackPluginReader.meta_data``: ``{"rally_version": "2.13.0",
  "async_runner": True}`` (the Rally plugin API version esbench implements).
* ``register_scheduler(name, scheduler)``: see :mod:`esbench.driver.worker.scheduler`; a name can be
  registered once (Rally raises ``SystemSetupError`` too).
* ``register_track_processor(processor)``: kept in order for the track stage.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from esbench.compat.errors import plugin_failure
from esbench.driver.worker.params import (
    DelegatingParamSource,
    ParamSource,
    builtin_param_sources,
    operation_params,
)
from esbench.driver.worker.params.protocol import ParamSourceProtocol
from esbench.driver.worker.runners import LegacyRunner, Runner, builtin_runners
from esbench.driver.worker.runners.base import is_async_callable
from esbench.driver.worker.scheduler import SchedulerFactory, builtin_schedulers
from esbench.exceptions import ConfigError, TrackError
from esbench.track.model import Task, Track

if TYPE_CHECKING:
    from esbench.compat.trackview import Track as RallyTrack
    from esbench.corpus.model import CorpusSet

#: The Rally release whose plugin API (``registry.meta_data["rally_version"]``) esbench implements.
RALLY_API_VERSION = "2.13.0"


def _type_name(operation_type: Any) -> str:
    # Rally plugins may pass an OperationType enum member.
    hyphenated = getattr(operation_type, "to_hyphenated_string", None)
    return str(hyphenated() if callable(hyphenated) else operation_type)


class Registry:
    """Runners, param sources, schedulers and track processors (see module doc)."""

    def __init__(self) -> None:
        self._runners: dict[str, Runner] = {}
        self._param_sources: dict[str, Any] = {}
        self._builtin_param_sources: dict[str, type[ParamSource]] = {}
        self._schedulers: dict[str, SchedulerFactory] = {}
        self._track_processors: list[Any] = []
        self._track_views: dict[int, Any] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_track_views"] = {}
        # Processors ran in the coordinator; workers get the processed track, not the processors.
        state["_track_processors"] = []
        return state

    @property
    def meta_data(self) -> dict[str, Any]:
        """What Rally tells plugins about itself (``esrally/track/loader.py`` ``TrackPluginReader``)."""
        return {"rally_version": RALLY_API_VERSION, "async_runner": True}

    # ------------------------------------------------------------------ Rally's registration API

    def register_runner(
        self, operation_type: Any, runner: Any, *, async_runner: bool = False, **kwargs: Any
    ) -> None:
        """Register the runner of an operation type (see module doc).

        Raises:
            esbench.exceptions.TrackError: the runner is not async.
        """
        name = _type_name(operation_type)
        if isinstance(runner, Runner):
            self._runners[name] = runner
            return
        if not async_runner:
            raise TrackError(
                f"The runner {runner!r} for operation type '{name}' must be implemented as an async runner "
                f"(async def __call__(self, es, params) or an async function) and registered with "
                f"register_runner('{name}', runner, async_runner=True)."
            )
        if not is_async_callable(runner):
            raise TrackError(
                f"The runner {runner!r} for operation type '{name}' is registered with async_runner=True "
                f"but is not async: define it with 'async def'."
            )
        self._runners[name] = LegacyRunner(runner, name=name)

    def register_param_source(self, name: str, param_source: Any) -> None:
        """Register a param source under the name operations use in ``param-source``.

        Raises:
            esbench.exceptions.TrackError: neither a class nor a function.
        """
        if not (inspect.isclass(param_source) or inspect.isfunction(param_source)):
            raise TrackError(
                f"Parameter source [{param_source!r}] for '{name}' must be either a function or a class."
            )
        self._param_sources[str(name)] = param_source

    def register_scheduler(self, name: str, scheduler: SchedulerFactory) -> None:
        """Register a scheduler class or function under ``name``.

        Raises:
            esbench.exceptions.TrackError: the name is already taken.
        """
        if name in self._schedulers:
            raise TrackError(f"A scheduler with the name [{name}] is already registered.")
        self._schedulers[str(name)] = scheduler

    def register_track_processor(self, processor: Any) -> None:
        """Keep a track processor (``on_after_load_track``/``on_prepare_track``) for the track stage."""
        self._track_processors.append(processor)

    # ------------------------------------------------------------------------------- lookups

    @property
    def schedulers(self) -> Mapping[str, SchedulerFactory]:
        """Registered schedulers by name (read-only view)."""
        return dict(self._schedulers)

    @property
    def track_processors(self) -> tuple[Any, ...]:
        """Registered track processors, in registration order."""
        return tuple(self._track_processors)

    def operation_types(self) -> tuple[str, ...]:
        """Operation types that have a runner, sorted."""
        return tuple(sorted(self._runners))

    def runner(self, operation_type: str) -> Runner:
        """The runner of ``operation_type``.

        Raises:
            esbench.exceptions.ConfigError: no runner for that type; the message lists the types.
        """
        try:
            return self._runners[operation_type]
        except KeyError:
            raise ConfigError(
                f"No runner is registered for the operation type '{operation_type}'. Known types: "
                f"{', '.join(self.operation_types())}. Fix the operation's 'operation-type', or register a "
                f"runner for it in the track's track.py."
            ) from None

    def param_source(
        self, task: Task, track: Track, *, corpora: CorpusSet | None = None
    ) -> ParamSourceProtocol:
        """A new (unpartitioned) param source for ``task`` (Rally's ``operation_parameters``).

        An operation with ``param-source`` uses the registered source of that name; otherwise the
        built-in source of its operation type, or Rally's default source (the params as they are).

        Raises:
            esbench.exceptions.ConfigError: unknown ``param-source`` name.
            esbench.exceptions.EsbenchError: the source rejects the operation's params.
        """
        op = task.operation
        params = operation_params(task)
        if op.param_source:
            try:
                source = self._param_sources[op.param_source]
            except KeyError:
                known = ", ".join(sorted(self._param_sources)) or "none"
                raise ConfigError(
                    f"Operation '{op.name}' uses the param-source '{op.param_source}', which is not "
                    f"registered "
                    f"(registered: {known}). Register it in the track's track.py (register_param_source)."
                ) from None
            view = self._track_view(track, corpora)
            if inspect.isfunction(source):
                return DelegatingParamSource(view, params, source)
            try:
                plugin_source: ParamSourceProtocol = source(view, params)
                return plugin_source
            except Exception as exc:
                where = f"the constructor of the param source {getattr(source, '__name__', source)!r}"
                raise plugin_failure(exc, where=where, task=task.name) from None
        builtin = self._builtin_param_sources.get(op.operation_type)
        if builtin is None:
            return ParamSource(track, params, operation_name=task.name)
        return builtin(track, params, operation_name=task.name, corpora=corpora)

    def _track_view(self, track: Track, corpora: CorpusSet | None) -> RallyTrack:
        from esbench.compat.trackconvert import to_rally

        view = self._track_views.get(id(track))
        if view is None or view._esbench_model is not track:
            files = {}
            for prepared in getattr(corpora, "by_corpus", {}).values():
                for f in prepared:
                    files[f.documents.source_file] = str(f.path)
            view = self._track_views[id(track)] = to_rally(track, document_files=files)
        return view

    def copy(self) -> Registry:
        """An independent registry with the same entries (runner instances are copied shallowly)."""
        other = Registry()
        other._runners = {k: copy.copy(v) for k, v in self._runners.items()}
        other._param_sources = dict(self._param_sources)
        other._builtin_param_sources = dict(self._builtin_param_sources)
        other._schedulers = dict(self._schedulers)
        other._track_processors = list(self._track_processors)
        return other


def default_registry() -> Registry:
    """A new registry with the built-in runners, param sources and schedulers."""
    registry = Registry()
    for name, runner in builtin_runners().items():
        registry.register_runner(name, runner, async_runner=True)
    registry._builtin_param_sources.update(builtin_param_sources())
    for name, scheduler in builtin_schedulers().items():
        registry.register_scheduler(name, scheduler)
    return registry


def race_registry(track: Track) -> Registry:
    """The one registry of a race in this process: the built-ins plus the track's plugins
    (``register(registry)`` called once), active for the Rally plugin API (``runner_for``).

    Raises:
        esbench.exceptions.TrackError: the plugin cannot be imported or its ``register`` fails.
    """
    from esbench.compat import runtime
    from esbench.track.plugins import load_plugins

    registry = default_registry()
    load_plugins(track, registry)
    runtime.activate(registry)
    return registry


def prepare_race(track: Track) -> tuple[Registry, Track]:
    """Build the race's registry and apply the plugin's track processors, as Rally's
    ``_load_single_track`` does right after loading (``esrally/track/loader.py``).

    Returns:
        ``(registry, track)``: the track after ``on_after_load_track``/``on_prepare_track`` of the
        registered processors (the same object when the plugin registers none).

    Raises:
        esbench.exceptions.TrackError: a plugin cannot be loaded or a processor raised.
    """
    from esbench.compat.processors import apply_track_processors
    from esbench.corpus.cache import corpora_home
    from esbench.track.plugins import plugin_entry

    registry = race_registry(track)
    if registry.track_processors:
        track = apply_track_processors(
            track,
            registry.track_processors,
            data_root_dir=corpora_home(),
            plugin_file=plugin_entry(track.root),
        )
    return registry, track
