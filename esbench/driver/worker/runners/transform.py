"""Transform operations: ``create-transform``, ``start-transform``, ``wait-for-transform``,
``delete-transform``, ``transform-stats``.

Requests, defaults and results follow Rally 2.13's ``esrally/driver/runner.py`` (``CreateTransform``
... ``TransformStats``) with the wire shape of elasticsearch-py's ``transform`` client. The API is
in the ``x-pack-transform`` module; a cluster without it answers with
a failed request naming the module (:func:`~.features.missing_module`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from esbench.driver.worker.runners.base import (
    RallyParams,
    Runner,
    RunnerResult,
    json_or_none,
    mandatory,
    path_part,
    value_at,
)
from esbench.driver.worker.runners.features import TRANSFORM, module_request, operation_failed, result_of

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient


async def _transform_request(
    es: EsbenchClient,
    operation: str,
    params: RallyParams,
    method: str,
    suffix: str = "",
    *,
    query: Mapping[str, object] | None = None,
    body: object = None,
    ignore: tuple[int, ...] = (),
) -> tuple[RunnerResult, Any]:
    """``method /_transform/<transform-id><suffix>``: (result, parsed body)."""
    transform = path_part(mandatory(params, "transform-id", operation))
    response = await module_request(
        es, params, method, f"/_transform/{transform}{suffix}", query=query, body=body
    )
    result = result_of(response, module=TRANSFORM, ignore=ignore)
    return result, json_or_none(response)


class CreateTransform(Runner):
    """``create-transform``: ``PUT /_transform/<transform-id>?defer_validation=<defer-validation>``
    (default false) with ``body``; 1 op."""

    name = "create-transform"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        body = mandatory(params, "body", self.name)
        query = {"defer_validation": bool(params.get("defer-validation", False))}
        result, _ = await _transform_request(es, self.name, params, "PUT", query=query, body=body)
        return result


class StartTransform(Runner):
    """``start-transform``: ``POST /_transform/<transform-id>/_start`` (optional ``timeout``); 1 op."""

    name = "start-transform"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query = {"timeout": params.get("timeout")}
        result, _ = await _transform_request(es, self.name, params, "POST", "/_start", query=query)
        return result


class DeleteTransform(Runner):
    """``delete-transform``: ``DELETE /_transform/<transform-id>?force=<force>`` (default false);
    404 is not an error; 1 op."""

    name = "delete-transform"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        query = {"force": bool(params.get("force", False))}
        result, _ = await _transform_request(es, self.name, params, "DELETE", query=query, ignore=(404,))
        return result


class TransformStats(Runner):
    """``transform-stats``: ``GET /_transform/<transform-id>/_stats`` (``request-params``); 1 op.

    With ``condition: {path: "a.b", expected-value: v}`` the operation succeeds only if the value at
    ``path`` of the first transform's stats equals ``v``; meta-data ``condition`` holds path, actual
    and expected value as strings (Rally's rule, so that metrics stores map them alike).
    """

    name = "transform-stats"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        result, data = await _transform_request(es, self.name, params, "GET", "/_stats")
        condition = params.get("condition")
        if not result.success or not condition:
            return result
        path = mandatory(condition, "path", self.name)
        expected = mandatory(condition, "expected-value", self.name)
        transforms = (data or {}).get("transforms") or [{}]
        actual = value_at(transforms[0], str(path))
        ok = actual == expected
        return RunnerResult(
            success=ok,
            error_type=None if ok else "condition",
            error_description=None
            if ok
            else f"transform stats [{path}] is {actual!r}, expected {expected!r}",
            meta={
                "condition": {
                    "path": path,
                    "actual-value": None if actual is None else str(actual),
                    "expected-value": None if expected is None else str(expected),
                }
            },
        )


class WaitForTransform(Runner):
    """``wait-for-transform``: stops the transform and waits until it has stopped.

    The first call sends ``POST /_transform/<id>/_stop`` with ``force`` (false),
    ``wait_for_completion=false``, ``wait_for_checkpoint`` (``wait-for-checkpoint``, true) and
    ``timeout``; every call then polls ``GET /_transform/<id>/_stats`` every ``poll-interval``
    seconds (0.5) until the transform is ``stopped`` (or at once with ``wait-for-completion: false``)
    or enough progress was made to report (> 5000 documents and > 500 ms processing time since the
    last report). Result: weight = documents processed, unit ``docs``, meta-data ``transform-id``
    and ``throughput`` (docs/s of processing time). The runner decides when its task ends
    (``completed``) and reports ``percent_completed`` from the next checkpoint's progress.

    Raises:
        OperationFailed: the transform failed, or ran longer than ``transform-timeout`` s (3600).
    """

    name = "wait-for-transform"

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._completed = False
        self._percent_completed = 0.0
        self._start_time: float | None = None
        self._last_documents = 0
        self._last_processing_time = 0

    @property
    def completed(self) -> bool:
        return self._completed

    @property
    def percent_completed(self) -> float:
        return self._percent_completed

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        if self._completed:
            # a later task of the same race waits for its own transform (Rally keeps the state of a
            # finished wait in the process-wide runner; the next wait would return at once)
            self._reset()
        transform_id = mandatory(params, "transform-id", self.name)
        wait_for_completion = params.get("wait-for-completion", True)
        transform_timeout = float(params.get("transform-timeout", 3600.0))
        poll_interval = float(params.get("poll-interval", 0.5))
        if self._start_time is None:
            self._start_time = time.monotonic()
            query = {
                "force": bool(params.get("force", False)),
                "timeout": params.get("timeout"),
                "wait_for_completion": False,
                "wait_for_checkpoint": bool(params.get("wait-for-checkpoint", True)),
            }
            stopped, _ = await _transform_request(es, self.name, params, "POST", "/_stop", query=query)
            if not stopped.success:
                return stopped
        while True:
            result, data = await _transform_request(es, self.name, params, "GET", "/_stats")
            if not result.success:
                return result
            entry = ((data or {}).get("transforms") or [{}])[0]
            if time.monotonic() - self._start_time > transform_timeout:
                raise operation_failed(
                    self.name,
                    params,
                    f"transform [{transform_id}] timed out after [{transform_timeout}] seconds; increase "
                    f"'transform-timeout' in the track.",
                )
            if entry.get("state") == "failed":
                reason = entry.get("reason", "unknown")
                raise operation_failed(
                    self.name, params, f"transform [{transform_id}] failed with [{reason}]."
                )
            if entry.get("state") == "stopped" or wait_for_completion is False:
                self._completed = True
                self._percent_completed = 1.0
            else:
                progress = value_at(entry, "checkpointing.next.checkpoint_progress.percent_complete")
                # ES reports percent_complete as a JSON number (absent before the first checkpoint).
                self._percent_completed = float(cast("float", progress or 0.0)) / 100.0
            report = self._progress(entry.get("stats") or {}, transform_id)
            if report is not None:
                return report
            await asyncio.sleep(poll_interval)

    def _progress(self, stats: Mapping[str, Any], transform_id: str) -> RunnerResult | None:
        documents = stats.get("documents_processed", 0)
        processing = (
            stats.get("search_time_in_ms", 0)
            + stats.get("processing_time_in_ms", 0)
            + stats.get("index_time_in_ms", 0)
        )
        documents_delta = documents - self._last_documents
        processing_delta = processing - self._last_processing_time
        if not (self._completed or (documents_delta > 5000 and processing_delta > 500)):
            return None
        if self._completed:
            throughput = documents / processing * 1000 if processing > 0 else 0
        else:
            throughput = documents_delta / processing_delta * 1000
        self._last_documents = documents
        self._last_processing_time = processing
        return RunnerResult(
            weight=documents, unit="docs", meta={"transform-id": transform_id, "throughput": throughput}
        )
