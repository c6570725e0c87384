"""A scripted Elasticsearch for runner unit tests: answers by (method, path), records each request
as (method, path, query dict, decoded body)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from driver_helpers import static_es

from esbench.driver.worker.context import RaceContext, current_context
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.runners.base import RunnerResult

NO_HANDLER = (400, b'{"error":"no handler found for uri [/x] and method [PUT]"}')


class Wire:
    """``answers``: (method, path) -> (status, body) or a list of them (consumed in order)."""

    def __init__(self, answers: dict[tuple[str, str], Any] | None = None) -> None:
        self.answers = answers or {}
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []

    def __call__(self, method: str, target: str, body: bytes | None) -> tuple[int, bytes]:
        parts = urlsplit(target)
        self.requests.append(
            (method, parts.path, dict(parse_qsl(parts.query)), json.loads(body) if body else None)
        )
        answer = self.answers.get((method, parts.path), (200, b"{}"))
        if isinstance(answer, list):
            answer = answer.pop(0) if len(answer) > 1 else answer[0]
        status, payload = answer
        return status, payload if isinstance(payload, bytes) else json.dumps(payload).encode()


async def call(
    op_type: str, wire: Wire, params: dict[str, Any], context: RaceContext | None = None
) -> RunnerResult:
    """Run the registered runner of ``op_type`` with ``params`` as given (no param source)."""
    token = current_context.set(context or RaceContext())
    try:
        return await default_registry().runner(op_type)(static_es(wire), params)
    finally:
        current_context.reset(token)
