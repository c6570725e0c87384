"""Machine learning operations: ``create-ml-datafeed``, ``delete-ml-datafeed``,
``start-ml-datafeed``, ``stop-ml-datafeed``, ``create-ml-job``, ``delete-ml-job``, ``open-ml-job``,
``close-ml-job``.

Rally 2.13 (``esrally/driver/runner.py``, classes ``CreateMlDatafeed`` ... ``CloseMlJob``) calls the
elasticsearch-py ``ml`` client and, when that answers HTTP 400, repeats the request on the
pre-7.0 ``/_xpack/ml/...`` path (Elasticsearch 6.8). esbench sends the same requests, with the
body/query split of the client's ``ml`` methods (``force``/``timeout`` of stop and close in the
body, of deletes in the query string). The API is in the ``x-pack-ml`` module; a cluster without it
(the integ-test distribution) answers each with a failed request naming the module
(:func:`~.features.missing_module`). The result of each is 1 op.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from esbench.driver.worker.runners.base import (
    RallyParams,
    Runner,
    RunnerResult,
    mandatory,
    path_part,
)
from esbench.driver.worker.runners.features import ML, module_request, no_handler_message, result_of

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient


async def _ml_request(
    es: EsbenchClient,
    params: RallyParams,
    method: str,
    resource: str,
    *,
    query: Mapping[str, object] | None = None,
    body: object = None,
    ignore: tuple[int, ...] = (),
) -> RunnerResult:
    """``method /_ml/<resource>``; on a plain HTTP 400 the same on ``/_xpack/ml/<resource>``."""
    response = await module_request(es, params, method, f"/_ml/{resource}", query=query, body=body)
    if response.status == 400:
        # Rally retries every HTTP 400 on the legacy path, a missing module's answer too.
        legacy = await module_request(es, params, method, f"/_xpack/ml/{resource}", query=query, body=body)
        # An 8.x cluster has no legacy path: the first answer is the one that explains the failure.
        if no_handler_message(legacy) is None:
            response = legacy
    return result_of(response, module=ML, ignore=ignore)


def _id(params: RallyParams, key: str, operation: str) -> str:
    return path_part(mandatory(params, key, operation))


class CreateMlDatafeed(Runner):
    """``create-ml-datafeed``: ``PUT /_ml/datafeeds/<datafeed-id>`` with ``body``."""

    name = "create-ml-datafeed"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        datafeed = _id(params, "datafeed-id", self.name)
        body = mandatory(params, "body", self.name)
        return await _ml_request(es, params, "PUT", f"datafeeds/{datafeed}", body=body)


class DeleteMlDatafeed(Runner):
    """``delete-ml-datafeed``: ``DELETE /_ml/datafeeds/<datafeed-id>?force=<force>`` (default
    false); 404 is not an error."""

    name = "delete-ml-datafeed"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        datafeed = _id(params, "datafeed-id", self.name)
        query = {"force": bool(params.get("force", False))}
        return await _ml_request(es, params, "DELETE", f"datafeeds/{datafeed}", query=query, ignore=(404,))


class StartMlDatafeed(Runner):
    """``start-ml-datafeed``: ``POST /_ml/datafeeds/<datafeed-id>/_start`` with ``body``, or a body
    of the optional ``start``, ``end`` and ``timeout``."""

    name = "start-ml-datafeed"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        datafeed = _id(params, "datafeed-id", self.name)
        body = params.get("body")
        if body is None:
            body = {k: params[k] for k in ("start", "end", "timeout") if params.get(k) is not None} or None
        return await _ml_request(es, params, "POST", f"datafeeds/{datafeed}/_start", body=body)


class StopMlDatafeed(Runner):
    """``stop-ml-datafeed``: ``POST /_ml/datafeeds/<datafeed-id>/_stop`` with body ``force``
    (default false) and the optional ``timeout``."""

    name = "stop-ml-datafeed"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        datafeed = _id(params, "datafeed-id", self.name)
        return await _ml_request(
            es, params, "POST", f"datafeeds/{datafeed}/_stop", body=_force_timeout(params)
        )


class CreateMlJob(Runner):
    """``create-ml-job``: ``PUT /_ml/anomaly_detectors/<job-id>`` with ``body``."""

    name = "create-ml-job"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        job = _id(params, "job-id", self.name)
        body = mandatory(params, "body", self.name)
        return await _ml_request(es, params, "PUT", f"anomaly_detectors/{job}", body=body)


class DeleteMlJob(Runner):
    """``delete-ml-job``: ``DELETE /_ml/anomaly_detectors/<job-id>?force=<force>`` (default false);
    404 is not an error."""

    name = "delete-ml-job"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        job = _id(params, "job-id", self.name)
        query = {"force": bool(params.get("force", False))}
        return await _ml_request(es, params, "DELETE", f"anomaly_detectors/{job}", query=query, ignore=(404,))


class OpenMlJob(Runner):
    """``open-ml-job``: ``POST /_ml/anomaly_detectors/<job-id>/_open``."""

    name = "open-ml-job"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        job = _id(params, "job-id", self.name)
        return await _ml_request(es, params, "POST", f"anomaly_detectors/{job}/_open")


class CloseMlJob(Runner):
    """``close-ml-job``: ``POST /_ml/anomaly_detectors/<job-id>/_close`` with body ``force``
    (default false) and the optional ``timeout``."""

    name = "close-ml-job"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        job = _id(params, "job-id", self.name)
        return await _ml_request(
            es, params, "POST", f"anomaly_detectors/{job}/_close", body=_force_timeout(params)
        )


def _force_timeout(params: RallyParams) -> dict[str, object]:
    body: dict[str, object] = {"force": bool(params.get("force", False))}
    if params.get("timeout") is not None:
        body["timeout"] = params["timeout"]
    return body
