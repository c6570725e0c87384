"""Param sources: what a runner gets on each call (Rally's contract, esrally/track/params.py).

A param source is constructed once per task in each worker as ``cls(track, params, **kwargs)``
(a function ``fn(track, params, **kwargs) -> dict`` is called on every request instead), then
``partition(client_index, clients)`` gives each client its own source, whose ``params()`` is
called before every request. Raising ``StopIteration`` from ``params()`` ends the client's task.
``infinite`` (or ``size() is None``) tells the driver whether the source ends by itself; a finite
source makes a task without iterations or time period run until the source is exhausted.
``percent_completed`` (0..1), when present, feeds the progress display.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from esbench.driver.worker.params.protocol import ClientParamSource
from esbench.driver.worker.runners.base import RallyParams
from esbench.track.model import Task, Track

#: The track a plugin's param source gets: the plugin host's Rally-shaped view (any object).
PluginTrack = Any


class ParamSource:
    """Rally's default param source: the operation's params, unchanged, forever.

    Args:
        track: the track (plugins read ``track.indices``, ``track.corpora``...): the model for the
            built-in sources, the plugin host's view (Rally's track objects) for a plugin's
            function source (:class:`DelegatingParamSource`).
        params: the operation's params (including ``name`` and ``operation-type``).
        kwargs: extra context (built-in sources get ``operation_name`` and ``corpora``).
    """

    def __init__(self, track: Track | PluginTrack, params: RallyParams, **kwargs: object) -> None:
        self.track = track
        self._params = dict(params)
        self.kwargs = kwargs

    def partition(self, partition_index: int, total_partitions: int) -> ClientParamSource:
        """The source of client ``partition_index`` of ``total_partitions`` (here: itself)."""
        return self

    def size(self) -> int | None:
        """Number of ``params()`` calls before exhaustion, or None for an endless source."""
        return None

    @property
    def infinite(self) -> bool:
        return self.size() is None

    def params(self) -> dict[str, Any]:
        return self._params


class DelegatingParamSource(ParamSource):
    """A function param source: ``fn(track, params, **kwargs)`` on every call."""

    def __init__(
        self,
        track: PluginTrack,
        params: RallyParams,
        delegate: Callable[..., dict[str, Any]],
        **kwargs: object,
    ) -> None:
        super().__init__(track, params, **kwargs)
        self._delegate = delegate

    def params(self) -> dict[str, Any]:
        return self._delegate(self.track, self._params, **self.kwargs)


def is_infinite(source: ClientParamSource) -> bool:
    """Whether a (partitioned) param source never ends by itself (Rally: ``infinite``/``size()``)."""
    infinite = getattr(source, "infinite", None)
    if infinite is not None:
        return bool(infinite)
    size = getattr(source, "size", None)
    if callable(size):
        return size() is None
    return True


def operation_params(task: Task) -> dict[str, Any]:
    """The params dict given to a task's param source: the operation's params plus, as in Rally,
    its ``name`` and ``operation-type`` (and ``param-source`` when set).

    A deep copy: param sources may modify it without touching the (shared) track model.
    """
    op = task.operation
    params = copy.deepcopy(dict(op.params))
    params["name"] = op.name
    params["operation-type"] = op.operation_type
    if op.param_source:
        params["param-source"] = op.param_source
    return params


def get_target(track: Track, params: RallyParams) -> object:
    """Rally's default target of searches and similar operations (``params.get_target``):
    ``index``, else ``data-stream``, else the track's only index, else its only data stream."""
    if len(track.indices) == 1:
        default = track.indices[0].name
    elif len(track.data_streams) == 1:
        default = track.data_streams[0].name
    else:
        default = None
    target = params.get("index")
    if not target:
        target = params.get("data-stream", default)
    return target
