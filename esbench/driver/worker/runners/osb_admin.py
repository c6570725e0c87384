"""OpenSearch Benchmark's own administrative operations: search pipelines, ingest pipeline
deletion, point in time (OpenSearch's API), concurrent segment search settings and k-NN models.

Source: OSB 2.4.0, ``osbenchmark/worker_coordinator/runner.py`` (``CreateSearchPipeline``,
``DeletePipeline``, ``CreatePointInTime``, ``DeletePointInTime``, ``ListAllPointInTime``,
``UpdateConcurrentSegmentSearchSettings``, ``TrainKnnModel``, ``DeleteKnnModel``) and the paths
opensearch-py 2.8 sends for the client methods they call. Each runner sends the requests OSB
sends, in the same order, and returns what OSB's returns (1 op unless said otherwise); where OSB's
runner raises on an error response, esbench's returns a failed result for that response. Which
of them the registry wraps in :class:`~esbench.driver.worker.runners.base.Retry` is OSB's choice
(``register_default_runners``), recorded in the table of operation types.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from esbench.driver.worker.context import race_context
from esbench.driver.worker.runners.base import (
    RallyParams,
    Runner,
    RunnerResult,
    failed,
    json_or_none,
    mandatory,
    path_part,
    send,
)

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient

_OK = RunnerResult()
_NOT_FOUND = 404


class CreateSearchPipeline(Runner):
    """``create-search-pipeline``: ``PUT /_search/pipeline/<id>`` with ``body`` (both mandatory)."""

    name = "create-search-pipeline"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        pipeline = mandatory(params, "id", self.name)
        body = mandatory(params, "body", self.name)
        response = await send(es, "PUT", f"/_search/pipeline/{path_part(pipeline)}", body=body)
        return failed(response) if response.status >= 400 else _OK


class DeletePipeline(Runner):
    """``delete-pipeline``: ``DELETE /_ingest/pipeline/<id>`` (``master-timeout``, ``timeout``
    as ``master_timeout``/``timeout``); a missing pipeline (404) is a success, as in OSB."""

    name = "delete-pipeline"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        pipeline = mandatory(params, "id", self.name)
        query = {"master_timeout": params.get("master-timeout"), "timeout": params.get("timeout")}
        response = await send(es, "DELETE", f"/_ingest/pipeline/{path_part(pipeline)}", query=query)
        if response.status >= 400 and response.status != _NOT_FOUND:
            return failed(response)
        return _OK


class CreatePointInTime(Runner):
    """``create-point-in-time``: ``POST /<index>/_search/point_in_time?keep_alive=<keep-alive>``
    (default ``1m``, plus ``request-params``); the response's ``pit_id`` is stored under the
    operation's ``name`` for ``with-point-in-time-from`` (OSB's ``CompositeContext``)."""

    name = "create-point-in-time"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        op_name = mandatory(params, "name", self.name)
        index = mandatory(params, "index", self.name)
        query = dict(params.get("request-params") or {})
        query["keep_alive"] = params.get("keep-alive", "1m")
        response = await send(es, "POST", f"/{path_part(index)}/_search/point_in_time", query=query)
        if response.status >= 400:
            return failed(response)
        race_context().put(str(op_name), (json_or_none(response) or {}).get("pit_id"))
        return _OK


class DeletePointInTime(Runner):
    """``delete-point-in-time``: with ``with-point-in-time-from``, ``DELETE /_search/point_in_time``
    of that operation's id (which is then forgotten); without, ``DELETE
    /_search/point_in_time/_all``. ``request-params`` become the query string."""

    name = "delete-point-in-time"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        source = params.get("with-point-in-time-from")
        query = params.get("request-params") or {}
        if source is None:
            response = await send(es, "DELETE", "/_search/point_in_time/_all", query=query)
        else:
            ctx = race_context()
            body = {"pit_id": [ctx.get(str(source))]}
            response = await send(es, "DELETE", "/_search/point_in_time", query=query, body=body)
            if response.status < 400:
                ctx.remove(str(source))
        return failed(response) if response.status >= 400 else _OK


class ListAllPointInTime(Runner):
    """``list-all-point-in-time``: ``GET /_search/point_in_time/_all`` (``request-params``)."""

    name = "list-all-point-in-time"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query = params.get("request-params") or {}
        response = await send(es, "GET", "/_search/point_in_time/_all", query=query)
        return failed(response) if response.status >= 400 else _OK


class UpdateConcurrentSegmentSearchSettings(Runner):
    """``update-concurrent-segment-search-settings``: ``PUT /_cluster/settings`` with the persistent
    ``search.concurrent_segment_search.enabled`` = ``enable`` (default ``"false"``) and, when
    given, ``search.concurrent.max_slice_count`` = ``max_slice_count``."""

    name = "update-concurrent-segment-search-settings"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        persistent: dict[str, object] = {
            "search.concurrent_segment_search.enabled": params.get("enable", "false")
        }
        if params.get("max_slice_count") is not None:
            persistent["search.concurrent.max_slice_count"] = params["max_slice_count"]
        response = await send(es, "PUT", "/_cluster/settings", body={"persistent": persistent})
        return failed(response) if response.status >= 400 else _OK


class TrainKnnModel(Runner):
    """``train-knn-model``: ``POST /_plugins/_knn/models/<model_id>/_train`` with ``body``, then
    ``GET /_plugins/_knn/models/<model_id>`` every ``poll_period`` s (0.5) while the model's state
    is ``training``, at most ``retries`` (1000) + 1 times. Service time spans the training.

    Returns 1 op; a failure (training ``failed``, an unknown state, an answer without a state) is
    a failed result of 0 ops (OSB raises).

    Raises:
        TimeoutError: still training when the polls are used up (retried by ``Retry``, as in OSB).
    """

    name = "train-knn-model"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        body = params["body"]
        model_id = str(mandatory(params, "model_id", self.name))
        max_polls = int(params.get("retries", 1000))
        poll_period = float(params.get("poll_period", 0.5))
        uri = f"/_plugins/_knn/models/{path_part(model_id)}"
        started = await send(es, "POST", f"{uri}/_train", body=body)
        if started.status >= 400:
            return failed(started)
        polls = 0
        while True:
            response = await send(es, "GET", uri)
            state = (json_or_none(response) or {}).get("state") if response.status < 400 else None
            if state is None:
                return _knn_failure(f"Failed to create model {model_id}: the model has no state", response)
            if polls > max_polls:
                # Raised, as OSB does: its Retry wrapper retries a TimeoutError (socket.timeout),
                # so "retries" > 0 trains the model again, here too.
                raise TimeoutError(f"Failed to create model: {model_id} within {max_polls} retries")
            if state == "training":
                polls += 1
                await asyncio.sleep(poll_period)
                continue
            if state == "created":
                return _OK
            return _knn_failure(f"Failed to create model {model_id}: its state is '{state}'", response)


def _knn_failure(description: str, response: object) -> RunnerResult:
    status = getattr(response, "status", None)
    # 0 ops, as OSB's execute_single counts a runner that raised.
    return RunnerResult(
        weight=0,
        success=False,
        error_type=str(status) if status and status >= 400 else "knn-model",
        error_description=description,
        http_status=status,
    )


class DeleteKnnModel(Runner):
    """``delete-knn-model``: ``DELETE /_plugins/_knn/models/<model_id>``. Success when the model
    was deleted, or when it did not exist (404) and ``ignore-if-model-does-not-exist`` is true;
    otherwise a failed result of 1 op (OSB's ``{"weight": 1, "unit": "ops", "success": False}``)."""

    name = "delete-knn-model"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        model_id = str(mandatory(params, "model_id", self.name))
        ignore_missing = bool(params.get("ignore-if-model-does-not-exist", False))
        response = await send(es, "DELETE", f"/_plugins/_knn/models/{path_part(model_id)}")
        data = json_or_none(response) or {}
        if data.get("result") == "deleted":
            return _OK
        if response.status == _NOT_FOUND and ignore_missing:
            return _OK
        return RunnerResult(
            weight=1,
            success=False,
            error_type=str(response.status) if response.status >= 400 else "knn-model",
            error_description=f"model '{model_id}' was not deleted (HTTP {response.status})",
            http_status=response.status,
        )
