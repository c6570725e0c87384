"""Operations that build or move an index's shards: ``shrink-index``, ``downsample``,
``wait-for-recovery``.

Requests, defaults and results follow Rally 2.13's ``esrally/driver/runner.py`` (``ShrinkIndex``,
``Downsample``, ``IndicesRecovery``). Shrink and recovery are core APIs; downsampling is in the
``x-pack-downsample`` module (a cluster without it answers with a failed request naming the
module, :func:`~.features.missing_module`).
"""

from __future__ import annotations

import asyncio
import copy
import os
import random
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from esbench.driver.worker.runners.base import (
    RallyParams,
    Retry,
    Runner,
    RunnerResult,
    failed,
    json_or_none,
    mandatory,
    path_part,
    request_options,
    send,
)
from esbench.driver.worker.runners.cluster import ClusterHealth
from esbench.driver.worker.runners.features import DOWNSAMPLE, operation_failed, result_of
from esbench.exceptions import ConfigError

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient

#: Rally waits this long (s) before it first checks that relocation or a shrink has finished.
SHRINK_SETTLE_SECONDS = 3.0


class ShrinkIndex(Runner):
    """``shrink-index``: shrinks every index matching ``source-index`` into ``target-index``.

    For each source index (``GET /<source-index>``): pick the shrink node (``shrink-node``, else a
    random node with the ``data`` role from ``GET /_nodes``), ``PUT /<source>/_settings
    ?preserve_existing=true`` with ``index.routing.allocation.require._name`` = that node and
    ``index.blocks.write``, wait, ``PUT /<source>/_shrink/<target>`` with ``target-body`` (those two
    settings reset to null), wait. With several source indices the target name gets the suffix that
    follows their common prefix. Each wait is a pause of :data:`SHRINK_SETTLE_SECONDS` s and a
    ``GET /_cluster/health/<index>?wait_for_no_relocating_shards=true``. Weight = number of source
    indices (ops).

    Raises:
        OperationFailed: relocation or the shrink did not finish (cluster health failed).
        esbench.exceptions.ConfigError: no data node to shrink on and no ``shrink-node``.
    """

    name = "shrink-index"

    def __init__(self) -> None:
        self._health = Retry(ClusterHealth())

    async def _wait_for(self, es: EsbenchClient, index: str, what: str, params: RallyParams) -> None:
        await asyncio.sleep(SHRINK_SETTLE_SECONDS)
        health = await self._health(
            es,
            {
                "index": index,
                "retries": sys.maxsize,
                "request-params": {"wait_for_no_relocating_shards": "true"},
            },
        )
        if not health.success:
            raise operation_failed(
                self.name, params, f"failed to wait for [{what}]: {health.error_description}"
            )

    async def _data_nodes(self, es: EsbenchClient, params: RallyParams) -> list[str] | RunnerResult:
        if params.get("shrink-node"):
            return [str(params["shrink-node"])]
        response = await send(es, "GET", "/_nodes")
        if response.status >= 400:
            return failed(response)
        nodes = (json_or_none(response) or {}).get("nodes") or {}
        names = [n["name"] for n in nodes.values() if "data" in n.get("roles", ())]
        if not names:
            raise ConfigError(
                f"Operation '{params.get('name') or self.name}' (shrink-index) could not choose a "
                f"shrink node: the cluster has no node with the 'data' role. Set 'shrink-node'."
            )
        return names

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        source = mandatory(params, "source-index", self.name)
        target = str(mandatory(params, "target-index", self.name))
        target_body = copy.deepcopy(dict(mandatory(params, "target-body", self.name)))
        _, headers, timeout = request_options(params)
        response = await send(es, "GET", f"/{path_part(source)}", headers=headers, timeout=timeout)
        if response.status >= 400:
            return failed(response)
        sources = list((json_or_none(response) or {}).keys())
        stem = os.path.commonprefix(sources)  # noqa: RUF071 - Rally strips a character prefix
        nodes = await self._data_nodes(es, params)
        if isinstance(nodes, RunnerResult):
            return nodes
        target_body.setdefault("settings", {})
        target_body["settings"]["index.routing.allocation.require._name"] = None
        target_body["settings"]["index.blocks.write"] = None
        for index in sources:
            node = random.choice(nodes)
            response = await send(
                es,
                "PUT",
                f"/{path_part(index)}/_settings",
                query={"preserve_existing": True},
                body={
                    "settings": {"index.routing.allocation.require._name": node, "index.blocks.write": "true"}
                },
                headers=headers,
                timeout=timeout,
            )
            if response.status >= 400:
                return failed(response)
            await self._wait_for(es, index, f"shard relocation for index [{index}]", params)
            suffix = index.removeprefix(stem)
            final_target = target + suffix if suffix else target
            response = await send(
                es,
                "PUT",
                f"/{path_part(index)}/_shrink/{path_part(final_target)}",
                body=target_body,
                headers=headers,
                timeout=timeout,
            )
            if response.status >= 400:
                return failed(response)
            await self._wait_for(es, final_target, f"shrink for index [{final_target}]", params)
        return RunnerResult(weight=len(sources))


class Downsample(Runner):
    """``downsample``: ``POST /<source-index>/_downsample/<target-index>`` with
    ``{"fixed_interval": ..., "sampling_method": ...}`` (the latter only when given),
    ``request-params`` and ``headers``; 1 op. Not retried."""

    name = "downsample"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        body: dict[str, object] = {}
        for key in ("fixed-interval", "source-index", "target-index"):
            if mandatory(params, key, self.name) is None:
                raise ConfigError(
                    f"The param source of operation '{params.get('name') or self.name}' (downsample) did "
                    f"not provide the mandatory parameter '{key}'. Add it to the operation or its "
                    f"param source."
                )
        body["fixed_interval"] = params["fixed-interval"]
        if params.get("sampling-method"):
            body["sampling_method"] = params["sampling-method"]
        query, headers, timeout = request_options(params)
        path = f"/{path_part(params['source-index'])}/_downsample/{path_part(params['target-index'])}"
        response = await send(es, "POST", path, query=query, body=body, headers=headers, timeout=timeout)
        return result_of(response, module=DOWNSAMPLE)


class WaitForRecovery(Runner):
    """``wait-for-recovery``: polls ``GET /<index>/_recovery`` every
    ``completion-recheck-wait-period`` seconds (default 1) until every shard's stage is ``DONE``.

    Weight = recovered bytes of all shards (unit ``byte``); meta-data ``throughput`` (bytes/s between
    the earliest shard start and the latest shard stop), ``start_time_millis``,
    ``stop_time_millis`` (epoch ms).
    """

    name = "wait-for-recovery"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        index = mandatory(params, "index", self.name)
        wait = float(params.get("completion-recheck-wait-period", 1))
        query, headers, timeout = request_options(params)
        while True:
            response = await send(
                es, "GET", f"/{path_part(index)}/_recovery", query=query, headers=headers, timeout=timeout
            )
            if response.status >= 400:
                return failed(response)
            recovery = json_or_none(response)
            # An empty answer: the next recovery is not scheduled yet (Rally polls again).
            if recovery:
                done = _recovery_result(recovery)
                if done is not None:
                    return done
            await asyncio.sleep(wait)


def _recovery_result(recovery: Mapping[str, Any]) -> RunnerResult | None:
    """The result once every shard is done, else None."""
    recovered = 0
    start = sys.maxsize
    end = 0
    for data in recovery.values():
        for shards in data.values():
            for shard in shards:
                if shard["stage"] != "DONE":
                    return None
                start = min(start, shard["start_time_in_millis"])
                end = max(end, shard["stop_time_in_millis"])
                recovered += shard["index"]["size"]["recovered_in_bytes"]
    seconds = (end - start) / 1000
    return RunnerResult(
        weight=recovered,
        unit="byte",
        meta={
            # Rally divides unguarded; recoveries within the same millisecond have no throughput.
            "throughput": recovered / seconds if seconds > 0 else None,
            "start_time_millis": start,
            "stop_time_millis": end,
        },
    )
