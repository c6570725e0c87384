"""Routing-aware bulk: split each bulk by the node (or shard) of each document's primary and send
each part straight to that node, so no node forwards documents to another (issue 13, seed 002's
``bulk_reshuffle`` gateway done in the load driver).

Enabled by the bulk operation's param ``"routing-aware": "node"`` (one sub-bulk per node holding
primaries of the documents) or ``"shard"`` (one sub-bulk per primary shard, each sent to its node).

* Shard of a document: :class:`esbench.driver.transport.routing.IndexRouting` over ``_routing`` (the action
  line's ``routing``) or ``_id``; primaries' nodes from
  :class:`esbench.driver.transport.shardmap.ShardMapCache`.
* Ids: a document whose ``index``/``create`` action line has no ``_id`` gets one here, since its
  shard depends on it. Scheme: ``<11 characters>-<counter in hex>``: 8 random bytes per load driver
  process (URL-safe base64, unpadded) and a per-process counter, so ids never repeat across clients,
  processes or looped passes. Unlike Elasticsearch's own ids these make every write an id lookup
  (ES skips it for auto-generated ids): compare against a direct bulk with ids too to isolate the
  forwarding hop (benchmarks/bench_routing.py does).
* Sub-bulks are sent concurrently (one connection each, per client) with the bulk's path and
  query string. Documents whose primary is unassigned go in one sub-bulk through the ordinary
  transport.
* Accounting: the whole bulk is one sample whose weight is the bulk's documents; its service
  time spans the first sub-bulk's start to the last one's end. ``meta["sub-bulks"]`` holds, per
  sub-bulk, ``node``, ``shard`` (shard mode), ``docs``, ``status`` and ``service_time`` (ms).
* Failed items are counted as in :mod:`esbench.driver.worker.runners.bulk`; an error status of a
  sub-bulk fails that sub-bulk's documents (weight only of the others). A transport error of any
  sub-bulk is raised after all have finished (so the request counts as a transport failure; the
  documents of the other sub-bulks were indexed but are not counted).
* The shard map is read again after a transport error, an HTTP 5xx or 404 of a sub-bulk, or items
  failing with a routing-related error, and every ``REFRESH_INTERVAL_S`` seconds.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from esbench.driver.transport import jsonutil
from esbench.driver.transport.routing import RoutingError
from esbench.driver.transport.shardmap import IndexShards, ShardMapCache
from esbench.driver.transport.timing import RequestTiming, current_timing
from esbench.driver.worker.runners.base import RallyParams, RunnerResult, bulk_result
from esbench.exceptions import ConfigError

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient
    from esbench.driver.transport.failures import DefaultTimeout
    from esbench.driver.transport.http import RawResponse
    from esbench.driver.worker.runners.bulk import PreparedBulk

#: Item error types after which the shard map is read again.
_STALE_ROUTING_ERRORS = frozenset(
    {
        "index_not_found_exception",
        "unavailable_shards_exception",
        "shard_not_found_exception",
        "no_shard_available_action_exception",
        "illegal_index_shard_state_exception",
    }
)
_ID_PLACEHOLDER = "\x00esbench-id\x00"
#: Distinct id-less action lines remembered per process (they repeat: one per corpus file).
_TEMPLATE_CACHE_SIZE = 1024
#: Distinct index names one bulk may load before the runner gives up (bounds the load loop).
_MAX_TARGETS = 64


class RoutingAware(StrEnum):
    """Values of the bulk param ``routing-aware``."""

    NODE = "node"
    SHARD = "shard"


def parse_routing_aware(value: object, operation: str) -> RoutingAware | None:
    """The ``routing-aware`` param of a bulk operation (None/absent/false: off).

    Raises:
        ConfigError: a value other than ``node``, ``shard`` or false.
    """
    if value is None or value is False:
        return None
    try:
        return RoutingAware(str(value).lower())
    except ValueError:
        raise ConfigError(
            f"Operation '{operation}' (bulk): 'routing-aware' must be \"node\" or \"shard\", got {value!r}. "
            f'"node" sends one sub-bulk per node holding primaries, "shard" one per primary shard.'
        ) from None


class IdGenerator:
    """Client-side document ids (scheme in the module doc); not thread-safe, one per process."""

    def __init__(self, seed: bytes | None = None) -> None:
        self.prefix = base64.urlsafe_b64encode(seed or os.urandom(8)).rstrip(b"=").decode() + "-"
        self._counter = itertools.count()

    def next(self) -> str:
        """A new id."""
        return f"{self.prefix}{next(self._counter):x}"


@dataclass(frozen=True, slots=True)
class _Action:
    index: str | None
    routing: str | None
    doc_id: str | None
    has_source: bool
    #: For id-less index/create lines: the line's bytes around the id to insert.
    template: tuple[bytes, bytes] | None


def _parse_action(line: bytes) -> _Action:
    try:
        parsed = jsonutil.loads(line)
        op, meta = next(iter(parsed.items()))
    except (ValueError, StopIteration, AttributeError):
        raise RoutingError(
            f"'routing-aware' bulk: cannot read the action line {line[:200]!r} (a JSON object "
            f'{{"index": {{...}}}} is expected; the bulk body must have action-metadata-present).'
        ) from None
    meta = meta if isinstance(meta, Mapping) else {}
    routing = meta.get("routing", meta.get("_routing"))
    doc_id = meta.get("_id")
    template = None
    if doc_id is None and op in ("index", "create"):
        head, tail = jsonutil.dumps({op: {**meta, "_id": _ID_PLACEHOLDER}}).split(
            jsonutil.dumps(_ID_PLACEHOLDER)
        )
        template = (head + b'"', b'"' + tail)
    return _Action(
        index=meta.get("_index"),
        routing=None if routing is None else str(routing),
        doc_id=None if doc_id is None else str(doc_id),
        has_source=op != "delete",
        template=template,
    )


class _UnknownTarget(Exception):
    def __init__(self, name: str) -> None:
        self.name = name


@dataclass(slots=True)
class SubBulk:
    """The lines of one sub-bulk and where it goes (node None: any node)."""

    node: str | None
    shard: int | None
    lines: list[bytes] = field(default_factory=list)
    docs: int = 0

    def body(self) -> bytes:
        """The NDJSON body (trailing newline included)."""
        self.lines.append(b"")
        return b"\n".join(self.lines)


class BulkSplitter:
    """Splits NDJSON bulk bodies by target node or shard (see module doc).

    Args:
        mode: node or shard.
        ids: the id generator for id-less documents.
    """

    def __init__(self, mode: RoutingAware, ids: IdGenerator) -> None:
        self.mode = mode
        self.ids = ids
        self._templates: dict[bytes, _Action] = {}

    def _action(self, line: bytes) -> _Action:
        action = self._templates.get(line)
        if action is not None:
            return action
        action = _parse_action(line)
        if action.doc_id is None:
            if len(self._templates) >= _TEMPLATE_CACHE_SIZE:
                self._templates.clear()
            self._templates[line] = action
        return action

    def split(
        self, body: bytes, default_index: str | None, targets: Mapping[str, IndexShards]
    ) -> list[SubBulk]:
        """Sub-bulks of ``body`` in first-seen order.

        Raises:
            _UnknownTarget: an index not in ``targets`` (load it, then split again).
            RoutingError: an unreadable action line, a document without index, missing routing.
        """
        lines = body.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        parts: dict[object, SubBulk] = {}
        by_node = self.mode is RoutingAware.NODE
        i = 0
        count = len(lines)
        while i < count:
            line = lines[i]
            if not line.strip():
                i += 1
                continue
            action = self._action(line)
            name = action.index or default_index
            if name is None:
                raise RoutingError(
                    f"'routing-aware' bulk: the action line {line[:200]!r} names no _index and the "
                    f"request has no default index."
                )
            shards = targets.get(name)
            if shards is None:
                raise _UnknownTarget(name)
            doc_id = action.doc_id
            if action.template is not None:
                doc_id = self.ids.next()
                line = action.template[0] + doc_id.encode() + action.template[1]
            if doc_id is None:
                raise RoutingError(
                    f"'routing-aware' bulk: the action line {line[:200]!r} has no _id (only index and "
                    f"create actions may omit it)."
                )
            shard = shards.routing.shard(doc_id, action.routing)
            node = shards.primaries[shard]
            key: object = node if by_node else (name, shard)
            part = parts.get(key)
            if part is None:
                part = parts[key] = SubBulk(node=node, shard=None if by_node else shard)
            part.lines.append(line)
            part.docs += 1
            if action.has_source and i + 1 < count:
                part.lines.append(lines[i + 1])
                i += 2
            else:
                i += 1
        return list(parts.values())


def _item_stats(parsed: Mapping[str, Any]) -> tuple[Counter[str], list[str], bool]:
    counts: Counter[str] = Counter()
    descriptions: list[str] = []
    stale = False
    for entry in parsed.get("items", ()):
        item = next(iter(entry.values()))
        status = item.get("status", 0)
        if status < 300:
            continue
        counts[str(status)] += 1
        error = item.get("error")
        kind = error.get("type") if isinstance(error, Mapping) else None
        stale = stale or kind in _STALE_ROUTING_ERRORS
        if len(descriptions) < 3:
            reason = error.get("reason") if isinstance(error, Mapping) else error
            text = f"HTTP status {status}, {kind}: {reason}"
            if text not in descriptions:
                descriptions.append(text)
    return counts, descriptions, stale


class RoutedBulk:
    """Sends one bulk as routing-aware sub-bulks (see module doc); one instance per process.

    Args:
        cache: the shard map cache (default: a new one).
        ids: the id generator (default: a new random prefix).
    """

    def __init__(self, cache: ShardMapCache | None = None, ids: IdGenerator | None = None) -> None:
        self.cache = cache or ShardMapCache()
        self.ids = ids or IdGenerator()
        self._splitters: dict[RoutingAware, BulkSplitter] = {}

    async def _targets(self, http: Any, names: set[str], secure: bool) -> dict[str, IndexShards]:
        targets: dict[str, IndexShards] = {}
        for name in names:
            known = self.cache.cached(name)
            targets[name] = known if known is not None else await self.cache.load(http, name, secure=secure)
        return targets

    async def split(
        self, http: Any, body: bytes, default_index: str | None, mode: RoutingAware
    ) -> list[SubBulk]:
        """``body`` split per ``mode``, loading the shard map of each target on first sight.

        Raises:
            RoutingError: see :class:`BulkSplitter` and :class:`ShardMapCache`.
        """
        splitter = self._splitters.get(mode)
        if splitter is None:
            splitter = self._splitters[mode] = BulkSplitter(mode, self.ids)
        secure = bool(getattr(http, "secure", False))
        names: set[str] = set()
        while len(names) <= _MAX_TARGETS:
            targets = await self._targets(http, names, secure)
            try:
                return splitter.split(body, default_index, targets)
            except _UnknownTarget as unknown:
                names.add(unknown.name)
        raise RoutingError(f"'routing-aware' bulk: one bulk names more than {_MAX_TARGETS} indices.")

    async def _send(
        self,
        http: Any,
        part: SubBulk,
        target: str,
        headers: Mapping[str, str] | None,
        timeout: float | DefaultTimeout,
    ) -> tuple[RawResponse, float]:
        url = self.cache.node_urls.get(part.node) if part.node is not None else None
        transport = http.node_transport(url) if url is not None else http
        parent = current_timing.get()
        own = RequestTiming()
        # Child task: setting the context variable here does not touch the parent's.
        current_timing.set(own)
        try:
            response = await transport.request(
                "POST", target, body=part.body(), headers=headers, timeout=timeout
            )
        finally:
            if parent is not None and own.observed:
                parent.observe(own.start, own.end, own.sent, own.received)
        return response, (own.end - own.start) * 1000.0 if own.observed else 0.0

    async def __call__(
        self, es: EsbenchClient, params: RallyParams, req: PreparedBulk, body: bytes, mode: RoutingAware
    ) -> RunnerResult:
        """One routing-aware bulk; ``req`` is the :class:`~esbench.driver.worker.runners.bulk.PreparedBulk`.

        Raises:
            RoutingError: the transport cannot address single nodes, or see :meth:`split`.
        """
        http = es.http
        if not hasattr(http, "node_transport"):
            raise RoutingError(
                "'routing-aware' bulk needs esbench's raw HTTP fast path (the default); the configured "
                "transport cannot send to one chosen node. Remove the fast-path override."
            )
        parts = await self.split(http, body, params.get("index"), mode)
        outcomes = await asyncio.gather(
            *(self._send(http, part, req.target, req.headers, req.timeout) for part in parts),
            return_exceptions=True,
        )
        return self._result(parts, outcomes, req.unit)

    def _result(
        self, parts: list[SubBulk], outcomes: list[tuple[RawResponse, float] | BaseException], unit: str
    ) -> RunnerResult:
        weight = 0
        counts: Counter[str] = Counter()
        descriptions: list[str] = []
        subs: list[dict[str, object]] = []
        stale = False
        error: BaseException | None = None
        last_status = None
        for part, outcome in zip(parts, outcomes, strict=True):
            sub: dict[str, object] = {"node": part.node, "docs": part.docs}
            if part.shard is not None:
                sub["shard"] = part.shard
            subs.append(sub)
            if isinstance(outcome, BaseException):
                error = error or outcome
                stale = True
                sub["error"] = type(outcome).__name__
                continue
            response, service_ms = outcome
            sub["status"] = last_status = response.status
            sub["service_time"] = service_ms
            if response.status >= 400:
                stale = stale or response.status >= 500 or response.status == 404
                counts[str(response.status)] += part.docs
                descriptions.append(f"sub-bulk to node {part.node}: HTTP status {response.status}")
                continue
            weight += part.docs
            if b'"errors":false' in response.body[:64]:
                continue
            item_counts, item_descriptions, item_stale = _item_stats(jsonutil.loads(response.body))
            counts.update(item_counts)
            stale = stale or item_stale
            descriptions.extend(d for d in item_descriptions if d not in descriptions)
        if stale:
            self.cache.invalidate()
        if error is not None:
            raise error
        meta = {"sub-bulks": subs, "error-count": sum(counts.values())}
        return bulk_result(
            weight=weight,
            unit=unit,
            counts=counts,
            descriptions=descriptions[:3],
            http_status=last_status,
            meta=meta,
        )
