"""Snapshot operations: ``create-snapshot-repository``, ``delete-snapshot-repository``,
``create-snapshot``, ``wait-for-snapshot-create``, ``wait-for-current-snapshots-create``,
``restore-snapshot``.

Request shapes, defaults and results follow Rally 2.13's ``esrally/driver/runner.py`` (classes of
the same names); the Elasticsearch APIs are core (no module needed; an ``fs`` repository needs the
node setting ``path.repo``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

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
from esbench.driver.worker.runners.features import operation_failed, result_of

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient


def _repository_path(params: RallyParams, operation: str) -> str:
    return f"/_snapshot/{path_part(mandatory(params, 'repository', operation))}"


class CreateSnapshotRepository(Runner):
    """``create-snapshot-repository``: ``PUT /_snapshot/<repository>`` with ``body`` and
    ``request-params``; 1 op."""

    name = "create-snapshot-repository"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        path = _repository_path(params, self.name)
        body = mandatory(params, "body", self.name)
        response = await send(es, "PUT", path, query=query, body=body, headers=headers, timeout=timeout)
        return result_of(response)


class DeleteSnapshotRepository(Runner):
    """``delete-snapshot-repository``: ``DELETE /_snapshot/<repository>``; a missing repository
    (404) is not an error (Rally passes ``ignore=[404]``); 1 op."""

    name = "delete-snapshot-repository"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        path = _repository_path(params, self.name)
        response = await send(es, "DELETE", path, query=query, headers=headers, timeout=timeout)
        return result_of(response, ignore=(404,))


class CreateSnapshot(Runner):
    """``create-snapshot``: ``PUT /_snapshot/<repository>/<snapshot>?wait_for_completion=<...>``
    (``wait-for-completion`` default False) with the mandatory ``body`` and ``request-params``;
    1 op. Not retried: creating a snapshot is not idempotent."""

    name = "create-snapshot"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        snapshot = mandatory(params, "snapshot", self.name)
        body = mandatory(params, "body", self.name)
        query["wait_for_completion"] = bool(params.get("wait-for-completion", False))
        path = f"{_repository_path(params, self.name)}/{path_part(snapshot)}"
        response = await send(es, "PUT", path, query=query, body=body, headers=headers, timeout=timeout)
        return result_of(response)


class RestoreSnapshot(Runner):
    """``restore-snapshot``: ``POST /_snapshot/<repository>/<snapshot>/_restore`` with ``body``
    (default ``{}``), ``request-params`` and ``wait_for_completion`` (``wait-for-completion``,
    default False); 1 op. Not retried."""

    name = "restore-snapshot"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        snapshot = mandatory(params, "snapshot", self.name)
        query["wait_for_completion"] = bool(params.get("wait-for-completion", False))
        path = f"{_repository_path(params, self.name)}/{path_part(snapshot)}/_restore"
        body = params.get("body") or {}
        response = await send(es, "POST", path, query=query, body=body, headers=headers, timeout=timeout)
        return result_of(response)


class WaitForSnapshotCreate(Runner):
    """``wait-for-snapshot-create``: waits until ``snapshot`` in ``repository`` has finished.

    Polls ``GET /_snapshot/<repository>/_current?verbose=false`` every
    ``completion-recheck-wait-period`` seconds (default 1) while the snapshot is listed there, then
    ``GET /_snapshot/<repository>/<snapshot>/_status?ignore_unavailable=true`` until its state is
    ``SUCCESS``. Result: weight = the snapshot's total size in ``byte``, with meta-data
    ``throughput`` (bytes/s over the snapshot's own duration), ``start_time_millis``,
    ``stop_time_millis``, ``duration`` (ms) and ``file_count``.

    Raises:
        OperationFailed: the snapshot ends in state ``FAILED`` (Rally: ``RallyAssertionError``).
    """

    name = "wait-for-snapshot-create"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        repository = _repository_path(params, self.name)
        snapshot = str(mandatory(params, "snapshot", self.name))
        wait = float(params.get("completion-recheck-wait-period", 1))
        while True:
            response = await send(
                es,
                "GET",
                f"{repository}/_current",
                query={**query, "verbose": False},
                headers=headers,
                timeout=timeout,
            )
            if response.status >= 400:
                return failed(response)
            current = json_or_none(response) or {}
            if snapshot in [s.get("snapshot") for s in current.get("snapshots", [])]:
                await asyncio.sleep(wait)
                continue
            response = await send(
                es,
                "GET",
                f"{repository}/{path_part(snapshot)}/_status",
                query={**query, "ignore_unavailable": True},
                headers=headers,
                timeout=timeout,
            )
            if response.status >= 400:
                return failed(response)
            status = json_or_none(response) or {}
            if status.get("snapshots"):
                entry = status["snapshots"][0]
                if entry.get("state") == "FAILED":
                    raise operation_failed(self.name, params, f"snapshot [{snapshot}] is in state FAILED.")
                if entry.get("state") == "SUCCESS":
                    return _snapshot_result(entry["stats"])
            await asyncio.sleep(wait)


def _snapshot_result(stats: Mapping[str, Any]) -> RunnerResult:
    size = stats["total"]["size_in_bytes"]
    start = stats["start_time_in_millis"]
    duration = stats["time_in_millis"]
    return RunnerResult(
        weight=size,
        unit="byte",
        meta={
            # Rally divides by the duration unguarded; a 0 ms snapshot has no meaningful throughput.
            "throughput": size / (duration / 1000) if duration else None,
            "start_time_millis": start,
            "stop_time_millis": start + duration,
            "duration": duration,
            "file_count": stats["total"]["file_count"],
        },
    )


#: ``index_names`` of the get-snapshots API exists from Elasticsearch 8.3.0 on (elasticsearch#86269).
_INDEX_NAMES_SINCE = (8, 3, 0)


class WaitForCurrentSnapshotsCreate(Runner):
    """``wait-for-current-snapshots-create``: polls ``GET /_snapshot/<repository>/_current`` with
    ``verbose=false`` (and ``index_names=false`` on Elasticsearch >= 8.3.0) every
    ``completion-recheck-wait-period`` seconds (default 1) until its ``total`` is 0; 1 op, the
    service time is the wait.

    Rally reads the version from ``GET /``, which the integ-test distribution of 8.9+ does not
    serve; esbench reads it from ``GET /_nodes/_local`` (once per runner).
    """

    name = "wait-for-current-snapshots-create"

    def __init__(self) -> None:
        self._version: tuple[int, ...] | None = None

    async def _es_version(self, es: EsbenchClient) -> tuple[int, ...]:
        if self._version is None:
            response = await send(es, "GET", "/_nodes/_local", query={"filter_path": "nodes.*.version"})
            nodes: dict[str, Any] = (json_or_none(response) or {}).get("nodes") or {}
            first: dict[str, Any] = next(iter(nodes.values()), {})
            number = first.get("version", "8.3.0")
            self._version = tuple(int(p) for p in str(number).split("-")[0].split(".")[:3] if p.isdigit())
        return self._version

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query, headers, timeout = request_options(params)
        path = f"{_repository_path(params, self.name)}/_current"
        wait = float(params.get("completion-recheck-wait-period", 1))
        query["verbose"] = False
        if await self._es_version(es) >= _INDEX_NAMES_SINCE:
            query["index_names"] = False
        while True:
            response = await send(es, "GET", path, query=query, headers=headers, timeout=timeout)
            if response.status >= 400:
                return failed(response)
            if int((json_or_none(response) or {}).get("total", 0)) == 0:
                return RunnerResult()
            await asyncio.sleep(wait)
