"""Plugin of the built-in ``eventdata`` track: the ``eventdata-log-search`` param source.

A log user's search (seed workflow 003): documents of a random time window, optionally matching a
random full-text term, sorted by ``@timestamp`` descending, one page of ``size`` hits at a random
``from`` offset. Rally's plain ``search`` operation has a fixed body, so, as in Rally tracks, a
param source draws the random parts per request.

Operation params: ``index`` (default ``eventdata``), ``query-field`` (a text field; omit for a pure
time-range search), ``terms`` (words drawn uniformly), ``window-seconds`` (time window, default
60), ``size`` (hits per page, default 200), ``max-from`` (``from`` drawn uniformly in
``[0, max-from]``, default 9800: ``from + size`` must stay within ``index.max_result_window``,
10000 by default), ``seed`` (default 1; each client draws from its own seeded stream, so runs
repeat exactly).

The time windows are drawn inside the span of the generated corpus, computed from the
``eventdata`` generator's params in the track's corpus definition (``start``/``end`` in epoch
milliseconds can be given instead).
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Mapping
from typing import Any

from esbench.corpus.generators import get_generator


def _iso(ms: int) -> str:
    moment = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _meta(item: Any) -> Mapping[str, Any] | None:
    # Rally's track objects (what esbench hands plugins) call it meta_data; esbench's model meta.
    return getattr(item, "meta_data", None) or getattr(item, "meta", None)


def _corpus_span(track: Any) -> tuple[int, int] | None:
    """(first, last) @timestamp in epoch ms of the track's generated eventdata corpus, if any."""
    for corpus in getattr(track, "corpora", ()) or ():
        for documents in corpus.documents:
            for meta in (_meta(documents), _meta(corpus)):
                if meta and meta.get("generator") == "eventdata":
                    generator = get_generator("eventdata")
                    params = meta.get("generator-params", {})
                    count = getattr(documents, "number_of_documents", None) or documents.document_count
                    return generator.time_range_ms(params, count)  # type: ignore[attr-defined]
    return None


class EventdataLogSearchParamSource:
    """Rally param-source contract: ``__init__(track, params, **kwargs)``, ``partition()``, ``params()``."""

    def __init__(self, track: Any, params: Mapping[str, Any], **kwargs: Any) -> None:
        self._track = track
        self._index = str(params.get("index", "eventdata"))
        self._field = params.get("query-field")
        self._terms = list(params.get("terms") or [])
        if self._field and not self._terms:
            raise ValueError("eventdata-log-search: 'query-field' needs a non-empty 'terms' list")
        self._window_ms = int(float(params.get("window-seconds", 60)) * 1000)
        self._size = int(params.get("size", 200))
        self._max_from = int(params.get("max-from", 9800))
        self._seed = params.get("seed", 1)
        self._request_params = dict(params.get("request-params") or {})
        if "start" in params and "end" in params:
            self._span: tuple[int, int] | None = (int(params["start"]), int(params["end"]))
        else:
            self._span = _corpus_span(track)
        self._rng = random.Random(f"eventdata-log-search:{self._seed}:-1")

    def partition(self, partition_index: int, total_partitions: int) -> EventdataLogSearchParamSource:
        """A copy for one client with its own seeded random stream."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone._rng = random.Random(f"eventdata-log-search:{self._seed}:{partition_index}")
        return clone

    def size(self) -> None:
        """Endless (the task's iterations or time period end it)."""
        return None

    def params(self) -> dict[str, Any]:
        """Search runner params: ``index``, ``body``, ``request-params``, ``cache``."""
        rng = self._rng
        filters: list[dict[str, Any]] = []
        if self._span is not None:
            first, last = self._span
            start = rng.randint(first, max(first, last - self._window_ms))
            filters.append(
                {
                    "range": {
                        "@timestamp": {
                            "gte": _iso(start),
                            "lt": _iso(start + self._window_ms),
                            "format": "strict_date_optional_time",
                        }
                    }
                }
            )
        query: dict[str, Any] = {"bool": {"filter": filters}}
        if self._field:
            query["bool"]["must"] = [{"match": {self._field: rng.choice(self._terms)}}]
        body = {
            "query": query,
            "sort": [{"@timestamp": {"order": "desc"}}],
            "from": rng.randint(0, self._max_from),
            "size": self._size,
        }
        return {
            "index": self._index,
            "body": body,
            "request-params": dict(self._request_params),
            "cache": False,
        }


def register(registry: Any) -> None:
    """Register the track's param sources (called by esbench's plugin loader)."""
    registry.register_param_source("eventdata-log-search", EventdataLogSearchParamSource)
