"""Where each primary shard lives: the client's copy of the cluster's routing table.

For a bulk target (index, alias or data stream) :class:`ShardMapCache` resolves the concrete index
that receives the writes (``GET /_resolve/index/NAME``: the index itself, the single index of an
alias, or a data stream's write index, its last backing index), reads its routing metadata and its
primaries' nodes (``GET /_cluster/state/metadata,routing_table/INDEX``) and the nodes' HTTP
addresses (``GET /_nodes/http``). The copy is dropped after :data:`REFRESH_INTERVAL_S` (so a
relocated primary is found within that time) and whenever a routed bulk sees a transport error or
a routing-related failure (:meth:`ShardMapCache.invalidate`).

Sources: Elasticsearch's ``RestResolveIndexAction`` (``_resolve/index``), the cluster state's
``routing_table`` (``IndexShardRoutingTable``: one entry per copy with ``primary``, ``state``,
``node``, ``relocating_node``) and ``IndexMetadata.toXContent`` (``routing_num_shards``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from esbench.driver.transport import jsonutil
from esbench.driver.transport.routing import IndexRouting, RoutingError

if TYPE_CHECKING:
    from esbench.driver.transport.http import HttpTransport

#: Seconds after which the shard map is read again (finds relocated primaries).
REFRESH_INTERVAL_S = 10.0


@dataclass(frozen=True, slots=True)
class IndexShards:
    """One write target's routing and the node id holding each primary (None: unassigned).

    Attributes:
        name: the name the bulk uses (index, alias or data stream).
        routing: the concrete write index's routing.
        primaries: node id per shard number, ``len == routing.number_of_shards``.
    """

    name: str
    routing: IndexRouting
    primaries: tuple[str | None, ...]


async def _get_json(http: HttpTransport, target: str) -> tuple[int, Any]:
    response = await http.request("GET", target)
    try:
        body = jsonutil.loads(response.body) if response.body else None
    except ValueError:
        body = None
    return response.status, body


def _error_reason(body: object) -> str:
    error = body.get("error") if isinstance(body, Mapping) else None
    if isinstance(error, Mapping):
        return f"{error.get('type')}: {error.get('reason')}"
    return str(error or body)[:200]


async def resolve_write_index(http: HttpTransport, name: str) -> str:
    """The concrete index a bulk with ``_index: name`` writes to.

    Raises:
        RoutingError: the name matches nothing (the index does not exist yet), several indices, or
            an alias over several indices.
    """
    status, body = await _get_json(http, f"/_resolve/index/{quote(name, safe=',*')}")
    found = body if status == 200 and isinstance(body, Mapping) else {}
    indices = found.get("indices") or []
    aliases = found.get("aliases") or []
    streams = found.get("data_streams") or []
    if not (indices or aliases or streams):
        reason = f" ({_error_reason(body)})" if status != 200 else ""
        raise RoutingError(
            f"'routing-aware' bulk: the target '{name}' does not exist (yet){reason}. Routing-aware "
            f"bulks need the index, with its shard count, before the first bulk: create it in an "
            f"earlier task of the challenge (create-index, or an index template plus a first "
            f"ordinary bulk), or drop 'routing-aware'."
        )
    if streams and len(streams) == 1 and not indices and not aliases:
        backing = streams[0].get("backing_indices") or []
        if backing:
            return str(backing[-1])
    if aliases and len(aliases) == 1 and not indices and not streams:
        members = aliases[0].get("indices") or []
        if len(members) == 1:
            return str(members[0])
    if indices and len(indices) == 1 and not aliases and not streams:
        return str(indices[0]["name"])
    raise RoutingError(
        f"'routing-aware' bulk: the target '{name}' resolves to several indices ({found}); the client "
        f"cannot tell which one receives the writes. Target one index, a single-index alias or a "
        f"data stream, or drop 'routing-aware'."
    )


def _primaries(index: str, table: Mapping[str, Any], shards: int) -> tuple[str | None, ...]:
    nodes: list[str | None] = [None] * shards
    for number, copies in (table.get("shards") or {}).items():
        for copy in copies:
            if copy.get("primary") and copy.get("state") in ("STARTED", "RELOCATING"):
                nodes[int(number)] = copy.get("node")
    return tuple(nodes)


async def load_index_shards(http: HttpTransport, name: str) -> IndexShards:
    """Routing and primary nodes of the write index behind ``name`` (see module doc).

    Raises:
        RoutingError: see :func:`resolve_write_index` and :meth:`IndexRouting.from_metadata`.
    """
    index = await resolve_write_index(http, name)
    status, state = await _get_json(
        http,
        f"/_cluster/state/metadata,routing_table/{quote(index, safe='')}?filter_path="
        "metadata.indices.*.settings,metadata.indices.*.mappings,metadata.indices.*.routing_num_shards,"
        "routing_table.indices",
    )
    try:
        metadata = state["metadata"]["indices"][index]
        table = state["routing_table"]["indices"][index]
    except (KeyError, TypeError):
        raise RoutingError(
            f"'routing-aware' bulk: the cluster state has no metadata or routing table for index "
            f"'{index}' (HTTP {status}: {_error_reason(state)})."
        ) from None
    routing = IndexRouting.from_metadata(index, metadata)
    return IndexShards(
        name=name, routing=routing, primaries=_primaries(index, table, routing.number_of_shards)
    )


def _http_url(address: str, secure: bool) -> str:
    # publish_address is "host:port" or "hostname/ip:port" (a node that has a name for its address).
    host_port = address.rsplit("/", 1)[-1]
    return f"{'https' if secure else 'http'}://{host_port}"


async def load_node_urls(http: HttpTransport, *, secure: bool) -> dict[str, str]:
    """Node id -> HTTP base URL from ``GET /_nodes/http`` (``publish_address``).

    Raises:
        RoutingError: the response lacks the nodes' HTTP addresses.
    """
    status, body = await _get_json(http, "/_nodes/http?filter_path=nodes.*.http.publish_address")
    nodes = body.get("nodes") if isinstance(body, Mapping) else None
    if status != 200 or not isinstance(nodes, Mapping):
        raise RoutingError(
            f"'routing-aware' bulk needs the nodes' HTTP addresses (GET /_nodes/http answered HTTP "
            f"{status}: {_error_reason(body)}). The user needs the 'monitor' cluster privilege."
        )
    return {
        node_id: _http_url(info["http"]["publish_address"], secure)
        for node_id, info in nodes.items()
        if isinstance(info, Mapping) and "http" in info
    }


class ShardMapCache:
    """The shard map of one load driver process, shared by its clients (see module doc).

    Args:
        refresh_interval: seconds after which everything is read again.
        clock: monotonic seconds (tests pass their own).
    """

    def __init__(
        self, refresh_interval: float = REFRESH_INTERVAL_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._interval = refresh_interval
        self._clock = clock
        self._indices: dict[str, IndexShards] = {}
        self._nodes: dict[str, str] | None = None
        self._loaded_at = 0.0
        self._lock = asyncio.Lock()
        #: How often the map was (re)loaded: one per index and node-address read.
        self.loads = 0

    def invalidate(self) -> None:
        """Forget everything: the next bulk reads the cluster state again."""
        self._indices.clear()
        self._nodes = None

    def _expire(self) -> None:
        if self._clock() - self._loaded_at > self._interval:
            self.invalidate()
            self._loaded_at = self._clock()

    def cached(self, name: str) -> IndexShards | None:
        """``name``'s shards if known and fresh, else None (then call :meth:`load`)."""
        self._expire()
        return self._indices.get(name)

    @property
    def node_urls(self) -> Mapping[str, str]:
        """Node id -> HTTP URL of the last load (empty before the first)."""
        return self._nodes or {}

    async def load(self, http: HttpTransport, name: str, *, secure: bool) -> IndexShards:
        """Read ``name``'s shards (and the node addresses if unknown); one reader at a time.

        Raises:
            RoutingError: see :func:`load_index_shards` and :func:`load_node_urls`.
        """
        async with self._lock:
            known = self.cached(name)
            if known is not None and self._nodes is not None:
                return known
            shards = await load_index_shards(http, name)
            if self._nodes is None:
                self._nodes = await load_node_urls(http, secure=secure)
            self._indices[name] = shards
            self.loads += 1
            return shards
