"""Async search operations: ``submit-async-search``, ``get-async-search``, ``delete-async-search``.

Rally 2.13 (``esrally/driver/runner.py``, ``SubmitAsyncSearch``/``GetAsyncSearch``/
``DeleteAsyncSearch``): the submit stores the search id under the operation's ``name``; get and
delete name the searches (``retrieve-results-for`` / ``delete-results-for``: a name or a list) and
use their ids. Rally keeps the ids in the ``composite`` operation's context; esbench's
:func:`~esbench.driver.worker.context.race_context` is that context inside a composite and the race's
otherwise. Rally registers ``get-async-search`` with ``retry-until-success``. The API is in the
``x-pack-async-search`` module; a cluster without it answers with a failed request naming the
module (:func:`~.features.missing_module`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from esbench.driver.worker.context import race_context
from esbench.driver.worker.runners.base import (
    RallyParams,
    Runner,
    RunnerResult,
    failed,
    json_or_none,
    mandatory,
    path_part,
    request_options,
    send,
)
from esbench.driver.worker.runners.features import ASYNC_SEARCH, missing_module, result_of

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient


def _ids(names: Any) -> Iterator[tuple[str, str]]:
    """(search id, operation name) of each named search that has an id (Rally's ``async_search_ids``)."""
    ctx = race_context()
    for name in [names] if isinstance(names, str) else names:
        search_id = ctx.get(str(name))
        if search_id:
            yield str(search_id), str(name)


class SubmitAsyncSearch(Runner):
    """``submit-async-search``: ``POST /[<index>/]_async_search`` with ``body`` and
    ``request-params`` (``wait_for_completion_timeout`` default 0, so fast searches are not answered
    synchronously); stores the returned id under ``name``; 1 op."""

    name = "submit-async-search"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        query.setdefault("wait_for_completion_timeout", 0)
        body = mandatory(params, "body", self.name)
        op_name = mandatory(params, "name", self.name)
        index = params.get("index")
        path = f"/{path_part(index)}/_async_search" if index else "/_async_search"
        response = await send(es, "POST", path, query=query, body=body, headers=headers, timeout=timeout)
        result = result_of(response, module=ASYNC_SEARCH)
        if result.success:
            race_context().put(str(op_name), (json_or_none(response) or {}).get("id"))
        return result


class GetAsyncSearch(Runner):
    """``get-async-search``: ``GET /_async_search/<id>`` (``request-params``) for each search in
    ``retrieve-results-for``. Succeeds when none is still running; weight = completed searches
    (ops); meta-data ``stats``: per search name ``timed_out``, ``took`` and, when the response
    has a total, ``hits`` and ``hits_relation``."""

    name = "get-async-search"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        success = True
        stats: dict[str, object] = {}
        for search_id, search in _ids(mandatory(params, "retrieve-results-for", self.name)):
            response = await send(
                es,
                "GET",
                f"/_async_search/{path_part(search_id)}",
                query=query,
                headers=headers,
                timeout=timeout,
            )
            if response.status >= 400:
                missing = missing_module(response, module=ASYNC_SEARCH)
                return missing if missing is not None else failed(response, weight=len(stats))
            data = json_or_none(response) or {}
            running = bool(data.get("is_running"))
            success = success and not running
            if not running:
                inner = data.get("response") or {}
                entry = {"timed_out": inner.get("timed_out"), "took": inner.get("took")}
                total = (inner.get("hits") or {}).get("total")
                if isinstance(total, Mapping):
                    entry["hits"] = total.get("value")
                    entry["hits_relation"] = total.get("relation")
                stats[search] = entry
        return RunnerResult(
            weight=len(stats),
            success=success,
            error_type=None if success else "async-search-running",
            error_description=None if success else "an async search is still running",
            meta={"stats": stats},
        )


class DeleteAsyncSearch(Runner):
    """``delete-async-search``: ``DELETE /_async_search/<id>`` for each search in
    ``delete-results-for``, forgetting its id; 1 op."""

    name = "delete-async-search"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        ctx = race_context()
        for search_id, search in list(_ids(mandatory(params, "delete-results-for", self.name))):
            response = await send(
                es,
                "DELETE",
                f"/_async_search/{path_part(search_id)}",
                query=query,
                headers=headers,
                timeout=timeout,
            )
            result = result_of(response, module=ASYNC_SEARCH)
            if not result.success:
                return result
            ctx.remove(search)
        return RunnerResult()
