"""Runs one operation against a real node as a client of the driver would (param source of the
registry, runner, request timing, race context); shared by the ``test_operations_*`` modules."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from esbench.driver.transport.client import ClientOptions, ConnectionSettings, EsbenchClient, create_client
from esbench.driver.transport.timing import RequestTiming, current_timing
from esbench.driver.worker.context import RaceContext, current_context
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.runners.base import RunnerResult
from esbench.track.model import Operation, Task, Track


def unique(prefix: str) -> str:
    """A fresh lower-case name (indices, repositories, snapshots) for one test."""
    return f"esbench-it-{prefix}-{uuid.uuid4().hex[:8]}"


def make_track(**fields: Any) -> Track:
    return Track(name="it", root=Path("/nonexistent"), challenges=(), **fields)


class Harness:
    """One client: ``run(op_type, **params)`` -> (result, timing of the call)."""

    def __init__(self, es: EsbenchClient) -> None:
        self.es = es
        self.registry = default_registry()
        self.context = RaceContext()
        self.last_timing = RequestTiming()

    async def run(self, op_type: str, track: Track | None = None, **params: Any) -> RunnerResult:
        params = {k.replace("_", "-"): v for k, v in params.items()}
        operation = Operation(name=params.pop("name", op_type), operation_type=op_type, params=params)
        task = Task(name=operation.name, operation=operation)
        source = self.registry.param_source(task, track or make_track()).partition(0, 1)
        self.last_timing = timing = RequestTiming()
        t1, t2 = current_timing.set(timing), current_context.set(self.context)
        try:
            return await self.registry.runner(op_type)(self.es, source.params())
        finally:
            current_timing.reset(t1)
            current_context.reset(t2)

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None and not isinstance(body, bytes) else body
        headers = {"content-type": "application/x-ndjson" if isinstance(body, bytes) else "application/json"}
        response = await self.es.http.request(method, path, body=data, headers=headers)
        return response.status, (json.loads(response.body) if response.body else None)

    async def index_docs(self, index: str, count: int, *, shards: int = 1) -> None:
        status, _ = await self.call(
            "PUT", f"/{index}", {"settings": {"number_of_shards": shards, "number_of_replicas": 0}}
        )
        assert status == 200
        lines = "".join(
            json.dumps({"index": {"_index": index}}) + "\n" + json.dumps({"n": i, "k": i % 3}) + "\n"
            for i in range(count)
        )
        status, body = await self.call("POST", "/_bulk?refresh=true", lines.encode())
        assert status == 200 and not body["errors"]

    async def count(self, index: str) -> int:
        status, body = await self.call("GET", f"/{index}/_count")
        assert status == 200, body
        return body["count"]


@pytest.fixture(name="h")
async def harness(es_hosts: list[str]) -> AsyncIterator[Harness]:
    """Fixture ``h``: a :class:`Harness` with its own client (import ``harness`` to use it)."""
    client = create_client(ConnectionSettings.create(es_hosts, ClientOptions(timeout=60)))
    try:
        yield Harness(client)
    finally:
        await client.close()
