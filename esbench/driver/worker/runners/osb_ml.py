"""OpenSearch Benchmark's ML-commons operations: register, deploy and delete models, remote
models and connectors (the ``ml-commons`` plugin's ``/_plugins/_ml`` API).

Source: OSB 2.4.0, ``osbenchmark/worker_coordinator/runner.py`` (``RegisterMlModel``,
``RegisterRemoteMlModel``, ``DeployMlModel``, ``DeleteMlModel``, ``CreateMlConnector``,
``DeleteMlConnector``). The requests, their order and the polling are OSB's; every runner
returns 1 op and service time spans all its requests (OSB's ``time_func``).

One deliberate difference: OSB hands the model id from ``register-ml-model`` to
``deploy-ml-model`` (and the connector id to ``register-remote-ml-model``) through the files
``model_id.json`` and ``connector_id.json`` in its working directory; esbench keeps them in the
race context (:func:`~esbench.driver.worker.context.race_context`, keys :data:`MODEL_ID_KEY`,
:data:`CONNECTOR_ID_KEY`), which every worker of the race sees, and writes no files.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from esbench.driver.worker.context import race_context
from esbench.driver.worker.runners.base import (
    RallyParams,
    Runner,
    RunnerResult,
    failed,
    json_or_none,
    mandatory,
    send,
)
from esbench.exceptions import ConfigError

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient

_OK = RunnerResult()
#: Race-context keys of the ids OSB keeps in model_id.json / connector_id.json.
MODEL_ID_KEY = "__osb_ml_model_id__"
CONNECTOR_ID_KEY = "__osb_ml_connector_id__"
#: Seconds between two polls of an ML task (OSB: 5).
TASK_POLL_PERIOD = 5.0
#: Seconds between two checks that a model is undeployed (OSB: 1).
UNDEPLOY_POLL_PERIOD = 1.0

_MODELS = "/_plugins/_ml/models"


class _Failure(Exception):
    """Ends a runner with a failed result (OSB raises)."""

    def __init__(self, result: RunnerResult) -> None:
        super().__init__(result.error_description)
        self.result = result


async def _json(es: EsbenchClient, method: str, path: str, body: object = None) -> dict[str, Any]:
    response = await send(es, method, path, body=body)
    if response.status >= 400:
        raise _Failure(failed(response))
    data = json_or_none(response)
    return data if isinstance(data, dict) else {}


def _error(error_type: str, description: str) -> _Failure:
    # 0 ops, as OSB's execute_single counts a runner that raised.
    return _Failure(
        RunnerResult(weight=0, success=False, error_type=error_type, error_description=description)
    )


async def _await_task(
    es: EsbenchClient, task_id: object, waiting: str, timeout: float, what: str
) -> dict[str, Any]:
    """Poll ``GET _plugins/_ml/tasks/<task_id>`` every :data:`TASK_POLL_PERIOD` s while the task's
    state is ``waiting`` and ``timeout`` s have not passed; the last answer."""
    end = time.time() + timeout
    state = waiting
    answer: dict[str, Any] = {}
    while state == waiting and time.time() < end:
        await asyncio.sleep(TASK_POLL_PERIOD)
        answer = await _json(es, "GET", f"/_plugins/_ml/tasks/{task_id}")
        state = answer.get("state", "")
    if state == "FAILED":
        raise _error("ml-task", f"Failed to {what}. Error: {answer.get('error')}")
    if state == waiting:
        raise _error("timeout", f"Timeout when {what}.")
    return answer


class _MlRunner(Runner):
    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        try:
            await self.run(es, params)
        except _Failure as failure:
            return failure.result
        return _OK

    async def run(self, es: EsbenchClient, params: RallyParams) -> None:
        raise NotImplementedError


class RegisterMlModel(_MlRunner):
    """``register-ml-model``: looks the model up by name (``POST _plugins/_ml/models/_search``),
    registers it when absent (``POST .../_register``, then polls the task while ``CREATED``, for
    ``timeout`` s, default 120) and keeps its id for ``deploy-ml-model``. The model is
    ``model-config-file`` (a JSON file) or ``model-name``/``model-version``/``model-format``."""

    name = "register-ml-model"

    async def run(self, es: EsbenchClient, params: RallyParams) -> None:
        config_file = params.get("model-config-file")
        if config_file:
            try:
                body = json.loads(Path(config_file).read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise ConfigError(
                    f"register-ml-model cannot read 'model-config-file' {config_file}: {exc}. Point it at "
                    f"the model's JSON configuration."
                ) from None
        else:
            body = {
                "name": params.get("model-name"),
                "version": params.get("model-version"),
                "model_format": params.get("model-format"),
            }
        search = {
            "query": {
                "bool": {
                    "should": [{"term": {"name.keyword": body["name"]}}],
                    "must_not": {"exists": {"field": "chunk_number"}},
                }
            }
        }
        found = await _json(es, "POST", f"{_MODELS}/_search", search)
        model_id = _first_source_value(found, "model_id")
        if not model_id:
            task = await _json(es, "POST", f"{_MODELS}/_register", body)
            timeout = float(params.get("timeout", 120))
            done = await _await_task(es, task.get("task_id"), "CREATED", timeout, "register ml-model")
            model_id = done.get("model_id")
        race_context().put(MODEL_ID_KEY, model_id)


class RegisterRemoteMlModel(_MlRunner):
    """``register-remote-ml-model``: ``POST _plugins/_ml/models/_register`` with ``body`` (its
    ``connector_id`` defaults to the one ``create-ml-connector`` kept), then polls the task while
    ``CREATED`` for 120 s; keeps the model id for ``deploy-ml-model``."""

    name = "register-remote-ml-model"

    async def run(self, es: EsbenchClient, params: RallyParams) -> None:
        body = dict(mandatory(params, "body", self.name))
        if "connector_id" not in body:
            body["connector_id"] = race_context().get(CONNECTOR_ID_KEY)
        task = await _json(es, "POST", f"{_MODELS}/_register", body)
        done = await _await_task(
            es, task.get("task_id"), "CREATED", 120.0, f"registering remote ml-model {body.get('name')}"
        )
        race_context().put(MODEL_ID_KEY, done.get("model_id"))


class DeployMlModel(_MlRunner):
    """``deploy-ml-model``: ``POST _plugins/_ml/models/<id>/_deploy`` of the model the last
    ``register-ml-model``/``register-remote-ml-model`` kept, then polls the task while
    ``RUNNING`` for ``timeout`` s (120)."""

    name = "deploy-ml-model"

    async def run(self, es: EsbenchClient, params: RallyParams) -> None:
        model_id = race_context().get(MODEL_ID_KEY)
        task = await _json(es, "POST", f"{_MODELS}/{model_id}/_deploy")
        timeout = float(params.get("timeout", 120))
        await _await_task(es, task.get("task_id"), "RUNNING", timeout, "deploy ml-model")


class DeleteMlModel(_MlRunner):
    """``delete-ml-model``: finds the models named ``model-name`` (``match_phrase``, at most
    ``number-of-hits-to-return``, 1000), undeploys each, waits up to ``undeploy-timeout`` s (10)
    until it is no longer (partially) deployed, then deletes it."""

    name = "delete-ml-model"

    async def run(self, es: EsbenchClient, params: RallyParams) -> None:
        search = {
            "query": {"match_phrase": {"name": {"query": params.get("model-name")}}},
            "size": params.get("number-of-hits-to-return", 1000),
        }
        found = await _json(es, "POST", f"{_MODELS}/_search", search)
        # OSB collects the ids in a set (an arbitrary order); esbench keeps the hits' order.
        model_ids = list(dict.fromkeys(_source_values(found, "model_id")))
        for model_id in model_ids:
            await _json(es, "POST", f"{_MODELS}/{model_id}/_undeploy")
        for model_id in model_ids:
            timeout = float(params.get("undeploy-timeout", 10))
            end = time.time() + timeout
            while await self._deployed(es, model_id):
                await asyncio.sleep(UNDEPLOY_POLL_PERIOD)
                if time.time() > end:
                    raise _error("timeout", "Timeout when undeploying ml-model.")
            await _json(es, "DELETE", f"{_MODELS}/{model_id}")

    @staticmethod
    async def _deployed(es: EsbenchClient, model_id: str) -> bool:
        answer = await _json(es, "GET", f"{_MODELS}/{model_id}")
        return answer.get("model_state") in ("PARTIALLY_DEPLOYED", "DEPLOYED")


class CreateMlConnector(_MlRunner):
    """``create-ml-connector``: ``POST _plugins/_ml/connectors/_create`` with ``body``; keeps the
    connector id for ``register-remote-ml-model``."""

    name = "create-ml-connector"

    async def run(self, es: EsbenchClient, params: RallyParams) -> None:
        body = mandatory(params, "body", self.name)
        answer = await _json(es, "POST", "/_plugins/_ml/connectors/_create", body)
        race_context().put(CONNECTOR_ID_KEY, answer.get("connector_id"))


class DeleteMlConnector(_MlRunner):
    """``delete-ml-connector``: searches the connectors whose ``name.keyword`` is
    ``connector_name`` and deletes the first hit whose source has an ``_id`` (OSB's rule)."""

    name = "delete-ml-connector"

    async def run(self, es: EsbenchClient, params: RallyParams) -> None:
        search = {"query": {"term": {"name.keyword": params.get("connector_name")}}}
        found = await _json(es, "POST", "/_plugins/_ml/connectors/_search", search)
        connector_id = _first_source_value(found, "_id")
        if connector_id:
            await _json(es, "DELETE", f"/_plugins/_ml/connectors/{connector_id}")


def _source_values(answer: dict[str, Any], key: str) -> list[Any]:
    values = []
    for hit in (answer.get("hits") or {}).get("hits") or []:
        source = hit.get("_source")
        if source and source.get(key):
            values.append(source[key])
    return values


def _first_source_value(answer: dict[str, Any], key: str) -> Any:
    values = _source_values(answer, key)
    return values[0] if values else None
