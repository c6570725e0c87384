"""``bulk``: one bulk request; weight = documents in it (unit docs).

Params (from the bulk param source, or a plugin's): ``body`` (NDJSON bytes, text or a list of
lines; from the bulk param source possibly a read-only ``memoryview``), ``bulk-size`` (documents
in the body), ``unit`` (``docs``), ``action-metadata-present`` (False: ``index`` goes into the
path), ``pipeline``, ``timeout``, ``refresh``, ``request-params``, ``detailed-results``, plus the
common ``headers``, ``opaque-id``, ``request-timeout``, and
``routing-aware`` (``node``/``shard``: split each bulk by the node or shard of its documents'
primaries and send the parts straight there; :mod:`esbench.driver.worker.runners.routed_bulk`).

A bulk whose response says ``"errors": false`` is a success; the runner finds that flag in the
first bytes of the response and parses nothing else. With ``"errors": true`` the response is parsed
and the failed items are counted by HTTP status (``error_counts={"409": 12}``); the request counts
as failed (Rally: ``error-type: bulk``) with its full weight, since the other documents were
indexed. An error status for the whole request (413, 429...) is a failure of weight 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from esbench.driver.transport import jsonutil
from esbench.driver.worker.runners.base import (
    PREPARED,
    RallyParams,
    Runner,
    RunnerResult,
    build_target,
    bulk_result,
    failed,
    mandatory,
    path_part,
    request_options,
)
from esbench.driver.worker.runners.routed_bulk import RoutedBulk, RoutingAware, parse_routing_aware
from esbench.exceptions import ConfigError

NDJSON_HEADERS = {"content-type": "application/x-ndjson"}
_NO_ERRORS = b'"errors":false'
_HEAD = 64
SHARDS_FAILED = "shards-failed"

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient
    from esbench.driver.transport.failures import DefaultTimeout


@dataclass(frozen=True, slots=True)
class PreparedBulk:
    """The constant part of a task's bulk requests."""

    target: str
    headers: dict[str, str]
    timeout: float | DefaultTimeout
    detailed: bool
    unit: str
    routing_aware: RoutingAware | None = None


def prepare_bulk(params: RallyParams) -> PreparedBulk:
    """Path, query string and headers of a bulk request from Rally-style params.

    Raises:
        esbench.exceptions.ConfigError: a bad ``routing-aware`` value, or ``routing-aware`` without
            action lines (``action-metadata-present: false``).
    """
    request_params, headers, timeout = request_options(params)
    for key in ("pipeline", "timeout", "refresh"):
        if params.get(key) is not None:
            request_params[key] = params[key]
    with_meta = params.get("action-metadata-present", True)
    index = params.get("index")
    path = "/_bulk" if with_meta or not index else f"/{path_part(index)}/_bulk"
    routing_aware = parse_routing_aware(params.get("routing-aware"), str(params.get("name", "bulk")))
    if routing_aware is not None and not with_meta:
        raise ConfigError(
            f"Operation '{params.get('name', 'bulk')}' (bulk): 'routing-aware' needs an action line per "
            f"document to route it; remove 'action-metadata-present: false' or 'routing-aware'."
        )
    return PreparedBulk(
        target=build_target(path, request_params),
        headers={**NDJSON_HEADERS, **(headers or {})},
        timeout=timeout,
        detailed=bool(params.get("detailed-results", False)),
        unit=str(params.get("unit", "docs")),
        routing_aware=routing_aware,
    )


def _item_error_key(item: Mapping[str, Any]) -> str | None:
    status = item.get("status", 0)
    if status > 299:
        return str(status)
    shards = item.get("_shards")
    if isinstance(shards, Mapping) and shards.get("failed", 0) > 0:
        return SHARDS_FAILED
    return None


def _describe(item: Mapping[str, Any]) -> str:
    error = item.get("error")
    reason = error.get("reason") if isinstance(error, Mapping) else error
    kind = error.get("type") if isinstance(error, Mapping) else None
    text = f"HTTP status {item.get('status')}"
    if kind:
        text += f", {kind}"
    if reason:
        text += f": {reason}"
    return text


def _bulk_stats(
    response: Mapping[str, Any], bulk_size: object, unit: str
) -> tuple[Counter[str], list[str], dict[str, object]]:
    counts: Counter[str] = Counter()
    descriptions: list[str] = []
    success = 0
    for entry in response.get("items", ()):
        item = next(iter(entry.values()))
        key = _item_error_key(item)
        if key is None:
            success += 1
            continue
        counts[key] += 1
        if len(descriptions) < 3:
            text = _describe(item)
            if text not in descriptions:
                descriptions.append(text)
    meta: dict[str, object] = {
        "took": response.get("took"),
        "success-count": success,
        "error-count": sum(counts.values()),
    }
    return counts, descriptions, meta


def _detailed_meta(params: RallyParams, response: Mapping[str, Any], body: bytes) -> dict[str, object]:
    ops: dict[str, Counter[str]] = {}
    histogram: dict[str, dict[str, Any]] = {}
    for entry in response.get("items", ()):
        op, item = next(iter(entry.items()))
        counter = ops.setdefault(op, Counter())
        counter["item-count"] += 1
        if "result" in item:
            counter[item["result"]] += 1
        shards = item.get("_shards")
        if isinstance(shards, Mapping):
            key = f"{shards.get('total')}-{shards.get('successful')}-{shards.get('failed')}"
            slot = histogram.setdefault(key, {"item-count": 0, "shards": dict(shards)})
            slot["item-count"] += 1
    lines = body.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    with_meta = params.get("action-metadata-present", True)
    documents = lines[1::2] if with_meta else lines
    meta: dict[str, object] = {
        "ops": {op: dict(c) for op, c in ops.items()},
        "shards_histogram": list(histogram.values()),
        "bulk-request-size-bytes": sum(len(line) for line in lines),
        "total-document-size-bytes": sum(len(line) for line in documents),
    }
    if "ingest_took" in response:
        meta["ingest_took"] = response["ingest_took"]
    return meta


def ndjson_body(body: object) -> bytes | memoryview:
    """A bulk body as NDJSON bytes ending in a newline, accepted in every form Rally's client
    accepts (elastic_transport ``NdjsonSerializer``): ``bytes`` or ``str`` (with or without the
    final newline), or a list/tuple of lines (``str``, ``bytes`` or JSON-serializable objects).
    A ``memoryview`` (the bulk param source's views, see :attr:`Bulk.takes_body_views`) that
    ends in a newline is passed on as it is, without a copy."""
    if isinstance(body, bytes):
        return body if body.endswith(b"\n") else body + b"\n"
    if isinstance(body, memoryview):
        return body if body[-1:].tobytes() == b"\n" else bytes(body) + b"\n"
    if isinstance(body, str):
        return (body if body.endswith("\n") else body + "\n").encode("utf-8")
    if isinstance(body, list | tuple):
        out = bytearray()
        for line in body:
            if isinstance(line, str):
                line = line.encode("utf-8")
            out += line if isinstance(line, bytes) else jsonutil.dumps(line)
            if not out.endswith(b"\n"):
                out += b"\n"
        return bytes(out)
    return jsonutil.body_bytes(body) or b""


#: Distinct (documents, unit) results kept by :meth:`Bulk._success` (a task's bodies have one
#: size, and a smaller last one per file slice).
_SUCCESS_CACHE_SIZE = 64


class Bulk(Runner):
    """The bulk runner (see module doc)."""

    name = "bulk"
    takes_body_views = True
    #: Shard map and id generator of routing-aware bulks, made on first use (one per process).
    _routed: RoutedBulk | None = None

    def __init__(self) -> None:
        #: The result of a bulk without errors, by (documents, unit): results are immutable, and
        #: making one costs about as much as the rest of the runner's Python (a frozen dataclass).
        self._successes: dict[tuple[object, str], RunnerResult] = {}

    def _success(self, bulk_size: object, unit: str) -> RunnerResult:
        key = (bulk_size, unit)
        result = self._successes.get(key)
        if result is None:
            if len(self._successes) >= _SUCCESS_CACHE_SIZE:
                self._successes.clear()
            result = self._successes[key] = RunnerResult(weight=bulk_size, unit=unit)  # type: ignore[arg-type]
        return result

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        req = params.get(PREPARED) or prepare_bulk(params)
        body = ndjson_body(mandatory(params, "body", self.name))
        bulk_size = mandatory(params, "bulk-size", self.name)
        unit = req.unit
        if req.routing_aware is not None:
            if self._routed is None:
                self._routed = RoutedBulk()
            return await self._routed(es, params, req, bytes(body), req.routing_aware)
        response = await es.http.request(
            "POST", req.target, body=body, headers=req.headers, timeout=req.timeout
        )
        if response.status >= 400:
            return failed(response, weight=0, unit=unit)
        raw = response.body
        if not req.detailed and _NO_ERRORS in raw[:_HEAD]:
            return self._success(bulk_size, unit)
        parsed = jsonutil.loads(raw)
        counts, descriptions, meta = _bulk_stats(parsed, bulk_size, unit)
        if req.detailed:
            meta.update(_detailed_meta(params, parsed, bytes(body)))
        return bulk_result(
            weight=bulk_size,
            unit=unit,
            counts=counts,
            descriptions=descriptions,
            http_status=response.status,
            meta=meta,
        )
