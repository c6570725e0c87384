"""Param sources of the search family and of ``raw-request``: validate once, prepare the request
once (path, query string, serialized body) and hand the same dict to every call."""

from __future__ import annotations

from esbench.driver.worker.params.base import ParamSource, get_target
from esbench.driver.worker.runners.base import PREPARED, RallyParams
from esbench.driver.worker.runners.misc import RawRequestSpec
from esbench.driver.worker.runners.search import prepare_paged, prepare_search
from esbench.exceptions import ConfigError
from esbench.track.model import Track


class SearchParamSource(ParamSource):
    """``search``, ``paginated-search``, ``scroll-search`` and ``composite-agg``.

    The target is ``index``/``data-stream`` or the track's only index or data stream (Rally's
    ``SearchParamSource``); ``type`` cannot be combined with ``data-stream``.

    Raises:
        esbench.exceptions.ConfigError: no target, ``type`` with ``data-stream``, bad ``pages``.
    """

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        name = kwargs.get("operation_name") or params.get("name", "?")
        op_type = params.get("operation-type", "search")
        if params.get("data-stream") and params.get("type"):
            raise ConfigError(f"Operation '{name}': 'type' cannot be combined with 'data-stream'.")
        target = get_target(track, params)
        if not target and not params.get("with-point-in-time-from"):
            raise ConfigError(
                f"Operation '{name}' ({op_type}) needs 'index' or 'data-stream': the track defines "
                f"{len(track.indices)} indices and {len(track.data_streams)} data streams, so no "
                f"default target can be chosen."
            )
        p = dict(self._params)
        p["index"] = target
        if op_type == "search" and "pages" not in p:
            p[PREPARED] = prepare_search(p)
        elif op_type == "composite-agg":
            p[PREPARED] = prepare_paged(p, op_type, default_pages="all")
        else:
            p[PREPARED] = prepare_paged(p, op_type)
        self._params = p


class RawRequestParamSource(ParamSource):
    """``raw-request``: checks ``path`` and prepares the request once.

    Raises:
        esbench.exceptions.ConfigError: no ``path`` or a path without a leading ``/``.
    """

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        self._params[PREPARED] = RawRequestSpec(self._params)
