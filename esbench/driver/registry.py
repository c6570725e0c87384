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
  dict (``weight``, ``unit``, ``success``, ``error-type``...). A runner that is not async is
  rejected, as in Rally. Registering an existing type replaces the runner (plugins may override
  built-ins).
* ``register_param_source(name, source)``: a class ``(track, params, **kwargs)`` with
  ``partition``/``params`` (and ``infinite`` or ``size()``), or a function
  ``(track, params, **kwargs) -> dict``; operations refer to it with ``param-source``.
* ``register_scheduler(name, scheduler)``: see :mod:`esbench.driver.scheduler`; a name can be
  registered once (Rally raises ``SystemSetupError`` too).
* ``register_track_processor(processor)``: kept in order for the track stage.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Mapping
from typing import Any

from esbench.driver.params import DelegatingParamSource, ParamSource, builtin_param_sources, operation_params
from esbench.driver.runners import LegacyRunner, Runner, builtin_runners
from esbench.driver.runners.base import is_async_callable
from esbench.driver.scheduler import builtin_schedulers
from esbench.exceptions import ConfigError, TrackError
from esbench.track.model import Task, Track


def _type_name(operation_type: Any) -> str:
    # Rally plugins may pass an OperationType enum member.
    hyphenated = getattr(operation_type, "to_hyphenated_string", None)
    return str(hyphenated() if callable(hyphenated) else operation_type)


class Registry:
    """Runners, param sources, schedulers and track processors (see module doc)."""

    def __init__(self) -> None:
        self._runners: dict[str, Runner] = {}
        self._param_sources: dict[str, Any] = {}
        self._builtin_param_sources: dict[str, Any] = {}
        self._schedulers: dict[str, Any] = {}
        self._track_processors: list[Any] = []

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
        if not async_runner and not is_async_callable(runner):
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

    def register_scheduler(self, name: str, scheduler: Any) -> None:
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
    def schedulers(self) -> Mapping[str, Any]:
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

    def param_source(self, task: Task, track: Track, *, corpora: Any = None) -> Any:
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
            if inspect.isfunction(source):
                return DelegatingParamSource(track, params, source)
            return source(track, params)
        builtin = self._builtin_param_sources.get(op.operation_type)
        if builtin is None:
            return ParamSource(track, params, operation_name=task.name)
        return builtin(track, params, operation_name=task.name, corpora=corpora)

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
