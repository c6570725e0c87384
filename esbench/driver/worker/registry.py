"""The registry of runners, param sources, schedulers and track processors of one race.

A :class:`Registry` is an object owned by the race, not module state: :func:`default_registry`
returns a fresh one with the built-ins (the table of operation types,
:data:`esbench.track.optable.OPERATION_TYPES`), tests take a :meth:`Registry.copy`, and a track's
``track.py`` adds to it through the race's plugin host
(:class:`~esbench.driver.pluginhost.PluginHost`, :func:`race_registry`), which calls
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
  Rally, such sources get a Rally-shaped track from the registry's plugin host, built once per
  process, with the absolute paths of the prepared document files (a registry without a host
  gives them the track itself).
* ``meta_data``: Rally's ``TrackPluginReader.meta_data``: ``{"rally_version": "2.13.0",
  "async_runner": True}`` (the Rally plugin API version esbench implements).
* ``register_scheduler(name, scheduler)``: see :mod:`esbench.driver.worker.scheduler`; a name can be
  registered once (Rally raises ``SystemSetupError`` too).
* ``register_track_processor(processor)``: kept in order for the track stage.
* ``register_standard_value_source`` / ``register_query_randomization_info``: OSB's query
  randomization (an OSB workload plugin calls them through
  :class:`esbench.compat.osbregistry.WorkloadRegistry`); :meth:`Registry.randomize_queries`
  turns them into the randomizing param sources of the default challenge's searches.
"""

from __future__ import annotations

import copy
import inspect
import logging
import pickle
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from esbench.driver.worker.params import (
    DelegatingParamSource,
    ParamSource,
    builtin_param_sources,
    operation_params,
)
from esbench.driver.worker.params.protocol import ParamSourceProtocol
from esbench.driver.worker.params.randomized import (
    DEFAULT_INFO,
    RandomizationInfo,
    RandomizedSearch,
    RandomizedSearchParamSource,
    prepare_randomized_search,
)
from esbench.driver.worker.pluginerrors import plugin_failure
from esbench.driver.worker.runners import LegacyRunner, Runner, builtin_runners
from esbench.driver.worker.runners.base import is_async_callable
from esbench.driver.worker.scheduler import SchedulerFactory, builtin_schedulers
from esbench.exceptions import ConfigError, TrackError
from esbench.track.model import Task, Track
from esbench.track.optypes import OPERATION_TYPES, OpType
from esbench.track.pluginfile import has_plugins

if TYPE_CHECKING:
    from esbench.corpus.model import CorpusSet
    from esbench.driver.pluginhost import PluginHost
    from esbench.driver.settings import QueryRandomization

logger = logging.getLogger(__name__)

#: The Rally release whose plugin API (``registry.meta_data["rally_version"]``) esbench implements.
RALLY_API_VERSION = "2.13.0"


def _type_name(operation_type: Any) -> str:
    # Rally plugins may pass an OperationType enum member.
    hyphenated = getattr(operation_type, "to_hyphenated_string", None)
    return str(hyphenated() if callable(hyphenated) else operation_type)


class Registry:
    """Runners, param sources, schedulers and track processors (see module doc).

    Args:
        plugins: the race's plugin host (None: no track plugins; registered param sources get the
            track itself).
    """

    def __init__(self, plugins: PluginHost | None = None) -> None:
        self.plugins = plugins
        #: The track directory whose plugin registered here (imported again in each worker).
        self.plugin_root: Path | None = None
        self._runners: dict[str, Runner] = {}
        self._param_sources: dict[str, Any] = {}
        self._builtin_param_sources: dict[str, type[ParamSource]] = {}
        self._schedulers: dict[str, SchedulerFactory] = {}
        self._track_processors: list[Any] = []
        self._track_views: dict[int, Any] = {}
        self._value_sources: dict[tuple[str, str], Any] = {}
        self._randomization_info: dict[str, RandomizationInfo] = {}
        self._randomized: dict[str, RandomizedSearch] = {}

    def __getstate__(self) -> dict[str, Any]:
        entries = dict(self.__dict__)
        del entries["plugins"], entries["plugin_root"]
        entries["_track_views"] = {}
        # Processors ran in the coordinator; workers get the processed track, not the processors.
        entries["_track_processors"] = []
        # The entries are pickled apart, so that a worker imports the plugin's modules (its host
        # and root come first) before the plugin's classes in the entries are looked up.
        return {"plugins": self.plugins, "plugin_root": self.plugin_root, "entries": pickle.dumps(entries)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.plugins, self.plugin_root = state["plugins"], state["plugin_root"]
        if self.plugins is not None and self.plugin_root is not None:
            self.plugins.import_modules(self.plugin_root)
        try:
            entries = pickle.loads(state["entries"])
        except Exception as exc:
            if self.plugins is None or self.plugin_root is None:
                raise
            logger.debug("Cannot unpickle the registry (%s); registering the track plugins again.", exc)
            fresh = default_registry(plugins=self.plugins)
            self.plugins.register(self.plugin_root, fresh)
            entries = {k: v for k, v in fresh.__dict__.items() if k not in ("plugins", "plugin_root")}
        self.__dict__.update(entries)

    def activate(self, corpora: CorpusSet | None = None) -> None:
        """Make this registry (and the prepared ``corpora``) the ones the plugin API of this
        process answers from (``esrally.driver.runner.runner_for``); nothing without a host."""
        if self.plugins is not None:
            self.plugins.activate(self, corpora)

    @property
    def meta_data(self) -> dict[str, Any]:
        """What Rally tells plugins about itself (``esrally/track/loader.py`` ``TrackPluginReader``)."""
        return {"rally_version": RALLY_API_VERSION, "async_runner": True}

    # ------------------------------------------------------------------ Rally's registration API

    def register_runner(
        self,
        operation_type: Any,
        runner: Any,
        *,
        async_runner: bool = False,
        **kwargs: Any,
    ) -> None:
        """Register the runner of an operation type (see module doc). The keyword ``client_view``
        (a callable) wraps the client a plugin runner is called with
        (:class:`~esbench.driver.worker.runners.base.LegacyRunner`); other keywords are ignored, as
        Rally ignores them.

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
        self._runners[name] = LegacyRunner(runner, name=name, client_view=kwargs.get("client_view"))

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

    def register_standard_value_source(self, op_name: str, field_name: str, source: Any) -> None:
        """OSB's: the function giving new bounds (``{"gte": .., "lte": ..}``) of the range field
        ``field_name`` of operation ``op_name`` (registering again replaces it, as in OSB)."""
        self._value_sources[(str(op_name), str(field_name))] = source

    def register_query_randomization_info(
        self, op_name: str, query_name: str, options: list[Any], optional: list[Any]
    ) -> None:
        """OSB's: the query shape randomized in ``op_name`` (default: ``range`` with
        ``gte``/``gt`` and ``lte``/``lt``).

        Raises:
            esbench.exceptions.ConfigError: ambiguous names (:class:`RandomizationInfo`).
        """
        self._randomization_info[str(op_name)] = RandomizationInfo(
            str(query_name), tuple(tuple(group) for group in options), tuple(optional)
        )

    def randomize_queries(self, track: Track, settings: QueryRandomization) -> None:
        """Give every ``search`` task of ``track``'s default challenge a randomizing param source
        (OSB's ``QueryRandomizerWorkloadProcessor.on_after_load_workload``; it takes precedence
        over the operation's ``param-source``, as OSB replaces it).

        Raises:
            esbench.exceptions.ConfigError: a search without ``body.query``, or a range field
                without a standard value source.
        """
        default = next((c for c in track.challenges if c.default), None)
        for task in default.tasks() if default is not None else ():
            op = task.operation
            if op.operation_type != "search" or op.name in self._randomized:
                continue
            self._randomized[op.name] = prepare_randomized_search(
                op.name,
                op.params,
                sources=self._value_sources,
                info=self._randomization_info.get(op.name, DEFAULT_INFO),
                n=settings.n,
                repeat_frequency=settings.repeat_frequency,
                alpha=settings.alpha,
            )

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
        randomized = self._randomized.get(op.name) if op.operation_type == "search" else None
        if randomized is not None:
            return RandomizedSearchParamSource(track, params, randomized=randomized, operation_name=task.name)
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

    def _track_view(self, track: Track, corpora: CorpusSet | None) -> object:
        if self.plugins is None:
            return track
        cached = self._track_views.get(id(track))
        # Keyed by id: a cached view is reused only while its track is alive (the pair holds it).
        if cached is None or cached[0] is not track:
            files = {}
            for prepared in getattr(corpora, "by_corpus", {}).values():
                for f in prepared:
                    files[f.documents.source_file] = str(f.path)
            cached = self._track_views[id(track)] = (track, self.plugins.plugin_track(track, files))
        return cached[1]

    def copy(self) -> Registry:
        """An independent registry with the same entries (runner instances are copied shallowly)."""
        other = Registry(self.plugins)
        other.plugin_root = self.plugin_root
        other._runners = {k: copy.copy(v) for k, v in self._runners.items()}
        other._param_sources = dict(self._param_sources)
        other._builtin_param_sources = dict(self._builtin_param_sources)
        other._schedulers = dict(self._schedulers)
        other._track_processors = list(self._track_processors)
        other._value_sources = dict(self._value_sources)
        other._randomization_info = dict(self._randomization_info)
        other._randomized = dict(self._randomized)
        return other


def default_registry(
    operation_types: Iterable[OpType] = OPERATION_TYPES, *, plugins: PluginHost | None = None
) -> Registry:
    """A new registry with the built-in runners, param sources and schedulers.

    Args:
        operation_types: the table of operation types to build the runners and param sources from
            (default: :data:`esbench.track.optable.OPERATION_TYPES`).
        plugins: the race's plugin host, kept for :func:`race_registry` and the workers.

    Raises:
        ImportError, AttributeError: a descriptor names a runner or param source that does not exist.
    """
    operation_types = tuple(operation_types)
    registry = Registry(plugins)
    for name, runner in builtin_runners(operation_types).items():
        registry.register_runner(name, runner, async_runner=True)
    registry._builtin_param_sources.update(builtin_param_sources(operation_types))
    for name, scheduler in builtin_schedulers().items():
        registry.register_scheduler(name, scheduler)
    return registry


def race_registry(track: Track, plugins: PluginHost | None) -> Registry:
    """The one registry of a race in this process: the built-ins plus the track's plugins
    (``register(registry)`` called once by ``plugins``), active for the plugin API (``runner_for``).

    Raises:
        esbench.exceptions.ConfigError: the track has a plugin but no host was given.
        esbench.exceptions.TrackError: the plugin cannot be imported or its ``register`` fails.
    """
    registry = default_registry(plugins=plugins)
    if plugins is not None:
        plugins.register(Path(track.root), registry)
        registry.plugin_root = Path(track.root)
    elif has_plugins(Path(track.root)):
        raise ConfigError(
            f"The track '{track.name}' has a plugin (track.py in {track.root}) but the driver was given no "
            f"plugin host to load it: pass DriverSettings(plugins=esbench.compat.RallyPluginHost())."
        )
    registry.activate()
    return registry


def prepare_race(
    track: Track, plugins: PluginHost | None, *, randomization: QueryRandomization | None = None
) -> tuple[Registry, Track]:
    """Build the race's registry and apply the plugin's track processors, as Rally's
    ``_load_single_track`` does right after loading (``esrally/track/loader.py``), then OSB's
    query randomization when ``randomization`` is given (OSB runs its randomizer after the
    plugin's processors: ``osbenchmark/workload/loader.py``).

    Returns:
        ``(registry, track)``: the track after ``on_after_load_track``/``on_prepare_track`` of the
        registered processors (the same object when the plugin registers none).

    Raises:
        esbench.exceptions.ConfigError: the track has a plugin but no host was given.
        esbench.exceptions.TrackError: a plugin cannot be loaded or a processor raised.
    """
    registry = race_registry(track, plugins)
    if plugins is not None and registry.track_processors:
        track = plugins.process(track, registry)
    if randomization is not None:
        registry.randomize_queries(track, randomization)
    return registry, track
