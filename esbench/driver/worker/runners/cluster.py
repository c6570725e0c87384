"""Cluster operations: ``cluster-health``, ``node-stats``, ``put-pipeline``, ``put-settings``."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from esbench.driver.transport.http import RawResponse
from esbench.driver.transport.timing import current_timing
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
from esbench.driver.worker.waits import WAIT_NOTE_INTERVAL, done_waiting, expect_wait, update_wait

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient

_STATUS_ORDER = {"red": 1, "yellow": 2, "green": 3}


def _rank(status: object) -> int:
    return _STATUS_ORDER.get(str(status).lower(), 0)


class ClusterHealth(Runner):
    """``cluster-health``: ``GET /_cluster/health[/<index>]`` with ``request-params`` as given.

    Succeeds if the status is at least ``wait_for_status`` (any status when not given) and, with
    ``wait_for_no_relocating_shards``, no shard relocates (Rally's rule). Elasticsearch answers
    HTTP 408 when its wait times out; that response is evaluated the same way, so a health that
    stayed below the expected status is a failed operation (error type ``"408"``), which
    ``retry-until-success`` retries.
    """

    name = "cluster-health"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        index = params.get("index")
        path = f"/_cluster/health/{path_part(index)}" if index else "/_cluster/health"
        expected = query.get("wait_for_status")
        request = send(es, "GET", path, query=query, headers=headers, timeout=timeout)
        if expected is None:
            response = await request
        else:
            held = (
                f"Elasticsearch holds the request until then or its timeout ({query.get('timeout', '30s')})"
            )
            expect_wait(f"waiting for status {expected}{f' of {index}' if index else ''}; {held}")
            response = await _reporting_health(es, path, request, expected, query, held)
        health = json_or_none(response)
        if not isinstance(health, Mapping) or "status" not in health:
            return failed(response) if response.status >= 400 else RunnerResult()
        status = health.get("status")
        relocating = int(health.get("relocating_shards", 0) or 0)
        ok = (expected is None or _rank(status) >= _rank(expected)) and (
            "wait_for_no_relocating_shards" not in query or relocating == 0
        )
        meta = {"cluster-status": status, "relocating-shards": relocating}
        if ok:
            done_waiting()
            return RunnerResult(meta=meta, http_status=response.status)
        return RunnerResult(
            success=False,
            error_type=str(response.status) if response.status >= 400 else "cluster-health",
            error_description=_shortfall(health, expected, "wait_for_no_relocating_shards" in query),
            http_status=response.status,
            meta=meta,
        )


async def _reporting_health(
    es: EsbenchClient,
    path: str,
    request: Coroutine[object, None, RawResponse],
    expected: object,
    query: Mapping[str, object],
    held: str,
) -> RawResponse:
    """Await ``request`` (held by Elasticsearch until ``expected`` or its timeout); meanwhile, every
    :data:`WAIT_NOTE_INTERVAL` seconds, ask the health without waiting on a second connection, so
    the waiting note says the status now from the first note on, not only after the timeout."""
    pending = asyncio.ensure_future(request)
    try:
        while True:
            done, _ = await asyncio.wait({pending}, timeout=WAIT_NOTE_INTERVAL)
            if done:
                return pending.result()
            now = await asyncio.create_task(_health_now(es, path))
            if isinstance(now, Mapping) and "status" in now:
                shortfall = _shortfall(now, expected, "wait_for_no_relocating_shards" in query)
                update_wait(f"{shortfall}; {held}")
    finally:
        pending.cancel()


async def _health_now(es: EsbenchClient, path: str) -> object:
    # In its own task (a copy of the client's context): not timed as the operation's request.
    current_timing.set(None)
    try:
        return json_or_none(await send(es, "GET", path, timeout=WAIT_NOTE_INTERVAL))
    except Exception:  # the note is best effort; the held request reports real failures
        return None


def _shortfall(health: Mapping[str, Any], expected: object, no_relocations: bool) -> str:
    """Why the health is not what the operation waits for: the status wanted and the status now,
    the unassigned and relocating shards, the node count, and on one node with unassigned shards
    why green cannot come (Elasticsearch never puts a replica on the node of its primary)."""
    status = health.get("status")
    unassigned = int(health.get("unassigned_shards", 0) or 0)
    nodes = health.get("number_of_nodes")
    text = (
        f"cluster health is {status}, wanted {expected or 'any status'}"
        + (" and no relocating shards" if no_relocations else "")
        + f": {unassigned} unassigned shard(s), {int(health.get('relocating_shards', 0) or 0)} relocating, "
        f"{nodes} node(s)"
    )
    if nodes == 1 and unassigned and _rank(expected) >= _rank("green"):
        text += (
            "; replicas are never assigned on a one-node cluster, so green cannot come: give the "
            "track number_of_replicas:0, or wait for yellow (e.g. --track-params=cluster_health:yellow "
            "if the track has that parameter)"
        )
    return text


class NodeStats(Runner):
    """``node-stats``: ``GET /_nodes/stats/_all``."""

    name = "node-stats"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        response = await send(es, "GET", "/_nodes/stats/_all", query=query, headers=headers, timeout=timeout)
        return failed(response) if response.status >= 400 else RunnerResult()


class PutPipeline(Runner):
    """``put-pipeline``: ``PUT /_ingest/pipeline/<id>`` with ``body`` (``master-timeout``, ``timeout``)."""

    name = "put-pipeline"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        pipeline_id = mandatory(params, "id", self.name)
        body = mandatory(params, "body", self.name)
        if params.get("master-timeout") is not None:
            query["master_timeout"] = params["master-timeout"]
        if params.get("timeout") is not None:
            query["timeout"] = params["timeout"]
        response = await send(
            es,
            "PUT",
            f"/_ingest/pipeline/{path_part(pipeline_id)}",
            query=query,
            body=body,
            headers=headers,
            timeout=timeout,
        )
        return failed(response) if response.status >= 400 else RunnerResult()


class PutSettings(Runner):
    """``put-settings``: ``PUT /_cluster/settings`` with ``body``."""

    name = "put-settings"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        body = mandatory(params, "body", self.name)
        response = await send(
            es, "PUT", "/_cluster/settings", query=query, body=body, headers=headers, timeout=timeout
        )
        return failed(response) if response.status >= 400 else RunnerResult()
