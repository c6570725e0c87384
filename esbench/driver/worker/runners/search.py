"""Search operations: ``search``, ``paginated-search``, ``scroll-search``, ``composite-agg``.

Parameters follow Rally's track reference (operations "search" ... "composite-agg"): ``index``,
``type``, ``body``, ``cache`` (-> ``request_cache``), ``request-params``, ``results-per-page``
(-> ``size``), ``detailed-results``, ``response-compression-enabled``, ``pages`` (a number or
``"all"``), ``with-point-in-time-from``, plus the common ``headers``, ``opaque-id`` and
``request-timeout``.

Responses are not parsed unless a number is needed: a plain search only checks the status; with
``detailed-results`` (and for pagination) the few values needed (``took``, ``timed_out``,
``hits.total``, ``pit_id``, the last ``sort`` values) are read from the raw bytes before the hits.
The built-in param source hands a ready request (path, query string, serialized body) to
:class:`Search`; params from plugin param sources are prepared on each call.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from esbench.driver.transport import jsonutil
from esbench.driver.transport.http import RawResponse
from esbench.driver.worker.context import race_context
from esbench.driver.worker.runners.base import (
    PREPARED,
    RallyParams,
    Runner,
    RunnerResult,
    build_target,
    failed,
    mandatory,
    path_part,
    request_options,
)
from esbench.driver.worker.runners.search_summary import (
    EMPTY_HITS,
    SCROLL_ID,
    last_sort_values,
    summarize,
)
from esbench.exceptions import ConfigError

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient
    from esbench.driver.transport.failures import DefaultTimeout

_OK = RunnerResult()

DEFAULT_RESULTS_PER_PAGE = 10
SCROLL_KEEP_ALIVE = "10s"
PIT_KEEP_ALIVE = "1m"


def _search_path(index: object, doc_type: object = None) -> str:
    parts = []
    if index:
        parts.append(path_part(index))
    if doc_type:
        parts.append(path_part(doc_type))
    parts.append("_search")
    return "/" + "/".join(parts)


def _query_and_headers(
    params: RallyParams,
) -> tuple[dict[str, object], dict[str, str] | None, float | DefaultTimeout]:
    request_params, headers, timeout = request_options(params)
    cache = params.get("cache")
    if cache is not None:
        request_params["request_cache"] = str(cache).lower()
    if params.get("response-compression-enabled", True) is False:
        headers = {**(headers or {}), "accept-encoding": "identity"}
    return request_params, headers, timeout


# --------------------------------------------------------------------------------------------- search


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A search ready to send."""

    target: str
    body: bytes | None
    headers: dict[str, str] | None
    timeout: float | DefaultTimeout
    detailed: bool


def prepare_search(params: RallyParams) -> SearchRequest:
    """Build the request of a ``search`` operation from Rally-style params.

    Raises:
        esbench.exceptions.ConfigError: no ``index``.
    """
    index = mandatory(params, "index", "search")
    body = params.get("body")
    size = params.get("results-per-page")
    if size:
        body = {**(body or {}), "size": size}
    request_params, headers, timeout = _query_and_headers(params)
    return SearchRequest(
        target=build_target(_search_path(index, params.get("type")), request_params),
        body=jsonutil.body_bytes(body),
        headers=headers,
        timeout=timeout,
        detailed=bool(params.get("detailed-results", False)),
    )


class Search(Runner):
    """``search``: one request; weight 1 op. With ``detailed-results``: hits, took, timed_out.

    A ``pages`` parameter makes it a scroll search (deprecated in Rally, kept for old tracks).
    """

    name = "search"

    def __init__(self) -> None:
        self._scroll = ScrollSearch()

    def repeatable(self, params: RallyParams) -> bool:
        """A prepared plain search (no ``detailed-results``, no pages): :data:`_OK` for any status
        below 400. Not for a subclass (a plugin's), which may do more per call."""
        req = params.get(PREPARED)
        return type(self) is Search and req.__class__ is SearchRequest and not req.detailed

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        req = params.get(PREPARED)
        if req is None:
            if "pages" in params:
                return await self._scroll(es, params)
            req = prepare_search(params)
        elif req.__class__ is PagedRequest:
            return await self._scroll(es, params)
        response = await es.http.request(
            "GET", req.target, body=req.body, headers=req.headers, timeout=req.timeout
        )
        if response.status >= 400:
            return failed(response)
        if not req.detailed:
            return _OK
        summary = summarize(response.body)
        return RunnerResult(
            meta={
                "hits": summary.hits,
                "hits_relation": summary.hits_relation,
                "timed_out": summary.timed_out,
                "took": summary.took,
            }
        )


# ------------------------------------------------------------------------------------- paginated


@dataclass(frozen=True, slots=True)
class PagedRequest:
    """The parts of a paginated request that stay the same from page to page."""

    index: object
    doc_type: object
    body: dict[str, Any]
    size: int | None
    pages: int
    pit_from: str | None
    query: dict[str, object]
    headers: dict[str, str] | None
    timeout: float | DefaultTimeout


def _pages(params: RallyParams, operation: str, default: int | str | None = None) -> int:
    pages = params.get("pages", default)
    if pages is None:
        raise ConfigError(f"The {operation} operation needs the parameter 'pages' (a number or \"all\").")
    if pages == "all":
        return sys.maxsize
    try:
        value = int(pages)
    except (TypeError, ValueError):
        raise ConfigError(
            f"'pages' of the {operation} operation must be a number or \"all\", got {pages!r}."
        ) from None
    if value < 1:
        raise ConfigError(f"'pages' of the {operation} operation must be at least 1, got {value}.")
    return value


def prepare_paged(
    params: RallyParams, operation: str, *, default_pages: int | str | None = None
) -> PagedRequest:
    """The constant parts of a ``paginated-search``/``scroll-search``/``composite-agg`` request.

    Raises:
        esbench.exceptions.ConfigError: missing ``index`` (without a point in time) or ``pages``.
    """
    pit_from = params.get("with-point-in-time-from")
    index = None if pit_from else mandatory(params, "index", operation)
    body = dict(params.get("body") or {})
    if pit_from:
        # index, routing and preference are part of the point in time (Rally drops them too).
        for key in ("index", "routing", "preference"):
            body.pop(key, None)
    size = params.get("results-per-page")
    query, headers, timeout = _query_and_headers(params)
    return PagedRequest(
        index=index,
        doc_type=params.get("type"),
        body=body,
        size=int(size) if size else None,
        pages=_pages(params, operation, default_pages),
        pit_from=pit_from,
        query=query,
        headers=headers,
        timeout=timeout,
    )


class PaginatedSearch(Runner):
    """``paginated-search``: ``search_after`` pages; weight = pages retrieved, unit pages.

    Stops after ``pages`` pages, when ``hits.total / results-per-page`` pages were read, or (when
    the response has no total) at a page without hits. With
    ``with-point-in-time-from`` each page searches the point in time (the newest id from each
    response is kept in the race context).
    """

    name = "paginated-search"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        req = params.get(PREPARED) or prepare_paged(params, self.name)
        size = req.size or DEFAULT_RESULTS_PER_PAGE
        pit_from = req.pit_from or ""
        ctx = race_context() if pit_from else None
        target = build_target(
            "/_search" if req.pit_from else _search_path(req.index, req.doc_type), req.query
        )
        hits: int | None = None
        relation: str | None = None
        timed_out = False
        took = 0
        search_after = None
        page = 0
        while page < req.pages:
            body = dict(req.body)
            body["size"] = size
            if ctx is not None:
                body["pit"] = {"id": ctx.get(pit_from), "keep_alive": PIT_KEEP_ALIVE}
            if search_after is not None:
                body["search_after"] = search_after
            response = await es.http.request(
                "GET", target, body=jsonutil.dumps(body), headers=req.headers, timeout=req.timeout
            )
            if response.status >= 400:
                return failed(response, weight=page, unit="pages")
            page += 1
            summary = summarize(response.body)
            if hits is None:
                hits, relation = summary.hits, summary.hits_relation
            took += summary.took or 0
            timed_out = timed_out or bool(summary.timed_out)
            if ctx is not None:
                if not summary.pit_id:
                    return _paged_failure(response, page, "the response has no pit_id")
                ctx.put(pit_from, summary.pit_id)
            # Without a total (track_total_hits: false) page on until a page without hits.
            if hits is not None and hits / size <= page:
                break
            search_after = last_sort_values(response.body)
            if search_after is None:
                break
        return _paged_result(page, hits, relation, timed_out, took)


def _paged_result(pages: int, hits: object, relation: object, timed_out: bool, took: int) -> RunnerResult:
    return RunnerResult(
        weight=pages,
        unit="pages",
        meta={"pages": pages, "hits": hits, "hits_relation": relation, "timed_out": timed_out, "took": took},
    )


def _paged_failure(response: RawResponse, pages: int, why: str) -> RunnerResult:
    return RunnerResult(
        weight=pages,
        unit="pages",
        success=False,
        error_type="pagination",
        error_description=why,
        http_status=response.status,
    )


# ------------------------------------------------------------------------------------------ scroll


class ScrollSearch(Runner):
    """``scroll-search``: a scroll over up to ``pages`` pages (sorted by ``_doc``); unit pages.

    The scroll is cleared at the end (inside the measured call, as in Rally).
    """

    name = "scroll-search"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        req = params.get(PREPARED) or prepare_paged(params, self.name)
        http = es.http
        query = dict(req.query)
        query["sort"] = "_doc"
        query["scroll"] = SCROLL_KEEP_ALIVE
        if req.size:
            query["size"] = req.size
        scroll_id = None
        pages = 0
        hits: int | None = None
        relation: str | None = None
        timed_out = False
        took = 0
        try:
            response = await http.request(
                "GET",
                build_target(_search_path(req.index, req.doc_type), query),
                body=jsonutil.dumps(req.body) if req.body else None,
                headers=req.headers,
                timeout=req.timeout,
            )
            if response.status >= 400:
                return failed(response, weight=0, unit="pages")
            pages = 1
            summary = summarize(response.body)
            match = SCROLL_ID.search(response.body)
            scroll_id = match.group(1).decode() if match else None
            hits, relation = summary.hits, summary.hits_relation
            took = summary.took or 0
            timed_out = bool(summary.timed_out)
            done = hits == 0 or (req.size is not None and hits is not None and hits < req.size)
            scroll_target = build_target("/_search/scroll", req.query)
            while not done and pages < req.pages and scroll_id:
                response = await http.request(
                    "GET",
                    scroll_target,
                    body=jsonutil.dumps({"scroll_id": scroll_id, "scroll": SCROLL_KEEP_ALIVE}),
                    headers=req.headers,
                    timeout=req.timeout,
                )
                if response.status >= 400:
                    return failed(response, weight=pages, unit="pages")
                pages += 1
                summary = summarize(response.body)
                match = SCROLL_ID.search(response.body)
                if match:
                    scroll_id = match.group(1).decode()
                took += summary.took or 0
                timed_out = timed_out or bool(summary.timed_out)
                done = EMPTY_HITS in response.body
        finally:
            if scroll_id:
                with contextlib.suppress(Exception):
                    await http.request(
                        "DELETE",
                        "/_search/scroll",
                        body=jsonutil.dumps({"scroll_id": [scroll_id]}),
                        timeout=req.timeout,
                    )
        return _paged_result(pages, hits, relation, timed_out, took)


# -------------------------------------------------------------------------------------- composite


def _composite_agg(body: Mapping[str, Any]) -> str:
    aggs = body.get("aggs") or body.get("aggregations") or {}
    for name, agg in aggs.items():
        if isinstance(agg, Mapping) and "composite" in agg:
            return str(name)
    raise ConfigError(
        "The composite-agg operation needs a body with a top-level composite aggregation "
        '(e.g. {"aggs": {"my_buckets": {"composite": {"sources": [...]}}}}).'
    )


class CompositeAgg(Runner):
    """``composite-agg``: pages through a composite aggregation's buckets; unit pages.

    Stops after ``pages`` pages (default all) or when a page has no ``after_key`` or no buckets.
    """

    name = "composite-agg"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        req = params.get(PREPARED) or prepare_paged(params, self.name, default_pages="all")
        aggs_key = "aggs" if "aggs" in req.body else "aggregations"
        agg_name = _composite_agg(req.body)
        pit_from = req.pit_from or ""
        ctx = race_context() if pit_from else None
        target = build_target(
            "/_search" if req.pit_from else _search_path(req.index, req.doc_type), req.query
        )
        after_key = None
        pages = 0
        hits: int | None = None
        relation: str | None = None
        timed_out = False
        took = 0
        while pages < req.pages:
            composite = dict(req.body[aggs_key][agg_name]["composite"])
            if req.size:
                composite["size"] = req.size
            if after_key is not None:
                composite["after"] = after_key
            body = dict(req.body)
            body[aggs_key] = {
                **req.body[aggs_key],
                agg_name: {**req.body[aggs_key][agg_name], "composite": composite},
            }
            if ctx is not None:
                body["pit"] = {"id": ctx.get(pit_from), "keep_alive": PIT_KEEP_ALIVE}
            response = await es.http.request(
                "GET", target, body=jsonutil.dumps(body), headers=req.headers, timeout=req.timeout
            )
            if response.status >= 400:
                return failed(response, weight=pages, unit="pages")
            pages += 1
            data = jsonutil.loads(response.body)
            if hits is None:
                total = (data.get("hits") or {}).get("total")
                if isinstance(total, dict):
                    hits, relation = total.get("value"), total.get("relation")
                else:
                    hits, relation = total, "eq"
            took += data.get("took") or 0
            timed_out = timed_out or bool(data.get("timed_out"))
            if ctx is not None and data.get("pit_id"):
                ctx.put(pit_from, data["pit_id"])
            agg = (data.get("aggregations") or {}).get(agg_name) or {}
            after_key = agg.get("after_key")
            if not after_key or not agg.get("buckets"):
                break
        return _paged_result(pages, hits, relation, timed_out, took)
