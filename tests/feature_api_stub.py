"""A loopback proxy in front of a real Elasticsearch node that answers the APIs of features the
node lacks (CCR, transforms, searchable snapshots, GeoIP: x-pack plugins and a module that no
distribution on these machines has) with responses of the shapes Elasticsearch's API reference
documents, and forwards every other request to the node.

It lets a race prove what happens to those telemetry devices' samples (series, report rows), not
that Elasticsearch answers so: the answers are written here. Each endpoint counts its calls ``n``
and its numbers grow with ``n`` (a follower ``10`` operations behind its leader, a transform that
processed ``100 n`` documents in ``10 n`` ms of search, processing and indexing each, ``3 n`` GeoIP
cache hits).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from loopback_http import QuietHandler, serving

TRANSFORM_ID = "stub-transform"
FOLLOWER = "stub-follower"
LAG_OPS = 10

_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


def _ccr(n: int, node_id: str) -> dict[str, Any]:
    shard = {
        "remote_cluster": "leader",
        "leader_index": "stub-leader",
        "follower_index": FOLLOWER,
        "shard_id": 0,
        "leader_global_checkpoint": 100 * n + LAG_OPS,
        "follower_global_checkpoint": 100 * n,
        "operations_written": 100 * n,
        "time_since_last_read_millis": 7,
        "read_exceptions": [],
    }
    return {"auto_follow_stats": {}, "follow_stats": {"indices": [{"index": FOLLOWER, "shards": [shard]}]}}


def _transform(n: int, node_id: str) -> dict[str, Any]:
    stats = {
        "pages_processed": n,
        "documents_processed": 100 * n,
        "documents_indexed": 10 * n,
        "index_total": n,
        "index_failures": 0,
        "search_total": n,
        "search_failures": 0,
        "processing_total": n,
        "search_time_in_ms": 10 * n,
        "processing_time_in_ms": 10 * n,
        "index_time_in_ms": 10 * n,
    }
    return {"count": 1, "transforms": [{"id": TRANSFORM_ID, "state": "indexing", "stats": stats}]}


def _searchable_snapshots(n: int, node_id: str) -> dict[str, Any]:
    fdt = {"file_ext": "fdt", "num_files": 1, "total_size": 4096, "open_count": n}
    return {"total": [fdt]}


def _geoip(n: int, node_id: str) -> dict[str, Any]:
    cache = {
        "count": n,
        "hits": 3 * n,
        "misses": n,
        "evictions": 0,
        "hits_time_in_millis": n,
        "misses_time_in_millis": 2 * n,
    }
    return {"stats": {"successful_downloads": 1}, "nodes": {node_id: {"cache_stats": cache}}}


#: Path (without the query string) -> response of the ``n``-th call for the node ``node_id``.
ENDPOINTS: dict[str, Callable[[int, str], dict[str, Any]]] = {
    "/_ccr/stats": _ccr,
    "/_transform/_all/_stats": _transform,
    "/_searchable_snapshots/stats": _searchable_snapshots,
    "/_ingest/geoip/stats": _geoip,
}


def _handler(upstream: str, node_id: str, calls: Counter[str]) -> type[QuietHandler]:
    class Handler(QuietHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self, status: int, body: bytes, headers: list[tuple[str, str]]) -> None:
            self.send_response(status)
            for key, value in headers:
                if key.lower() not in _HOP_BY_HOP:
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            path = self.path.split("?", 1)[0]
            if self.command == "GET" and path in ENDPOINTS:
                calls[path] += 1
                payload = json.dumps(ENDPOINTS[path](calls[path], node_id)).encode()
                headers = [("Content-Type", "application/json"), ("X-Elastic-Product", "Elasticsearch")]
                self._answer(200, payload, headers)
                return
            request = urllib.request.Request(
                f"http://{upstream}{self.path}",
                data=body,
                method=self.command,
                headers={k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP},
            )
            try:
                with _NO_PROXY.open(request, timeout=120) as resp:
                    self._answer(resp.status, resp.read(), list(resp.headers.items()))
            except urllib.error.HTTPError as e:
                self._answer(e.code, e.read(), list(e.headers.items()))

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _handle

    return Handler


@contextmanager
def feature_api_stub(upstream: str) -> Iterator[tuple[str, Counter[str]]]:
    """Serve the proxy for the node at ``upstream`` (``host:port``); yields its ``host:port`` and
    the call count per stubbed path."""
    with _NO_PROXY.open(f"http://{upstream}/_nodes/_local", timeout=30) as resp:
        node_id = next(iter(json.loads(resp.read())["nodes"]))
    calls: Counter[str] = Counter()
    with serving(_handler(upstream, node_id, calls)) as host:
        yield host, calls
