"""Direct vs routing-aware bulk indexing on a 3-node cluster (issue 13, seed 002).

Seed 002's set-up, scaled to one host: an index with ``refresh_interval: -1``,
``translog.durability: async``, 0 replicas and 3 or 30 shards; nginx-log-like documents from a
template (generated here with a fixed seed); bulks of ``--bulk-size`` documents from ``--clients``
concurrent clients for ``--duration`` seconds after ``--warmup`` seconds. Each case runs esbench's
own ``bulk`` runner (raw HTTP fast path) in this process:

* ``direct``: the documents without ids, round-robin over the nodes (what a race does);
* ``direct+ids``: the same with client-side ids (the id scheme of the routing-aware mode), to
  separate the cost of ids (an id lookup per document in ES) from the forwarding hop;
* ``node`` / ``shard``: ``"routing-aware": "node"`` / ``"shard"``.

Printed per case: docs/s, the service time of the whole bulk (p50/p99, ms), CPU seconds used by the
three ES nodes (``_nodes/stats/process`` ``cpu.total_in_millis``) and by this client process, and
the bytes the nodes sent each other (``_nodes/stats/transport`` ``tx_size_in_bytes``, summed; rx
is the same traffic seen from the other end). Figures go to docs/performance.md with the command.

    python3 benchmarks/bench_routing.py                       # provisions 3 nodes (maven, 1 GiB heap)
    python3 benchmarks/bench_routing.py --hosts H1,H2,H3      # a running 3-node cluster
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from esbench.driver.transport.client import ClientOptions, ConnectionSettings, create_client
from esbench.driver.transport.routing import IndexRouting, default_routing_num_shards
from esbench.driver.transport.shardmap import IndexShards
from esbench.driver.worker.runners.base import PREPARED
from esbench.driver.worker.runners.bulk import Bulk, prepare_bulk
from esbench.driver.worker.runners.routed_bulk import BulkSplitter, IdGenerator, RoutingAware

INDEX = "bench-routing"
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
MODES = ("direct", "direct+ids", "node", "shard")

_METHODS = ["GET"] * 8 + ["POST", "PUT", "DELETE"]
_PATHS = [
    "/",
    "/index.html",
    "/api/v1/items",
    "/api/v1/users",
    "/static/app.js",
    "/static/style.css",
    "/login",
]
_AGENTS = [
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1",
    "curl/8.4.0",
    "Go-http-client/1.1",
]
_STATUS = [200] * 20 + [201, 204, 301, 304, 400, 401, 403, 404, 404, 500, 502, 503]


def nginx_documents(count: int, seed: int = 2) -> list[bytes]:
    """Seed 002's template documents: one nginx access-log event per JSON line (bytes)."""
    rng = random.Random(seed)
    start = 1_700_000_000
    docs = []
    for i in range(count):
        ip = f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
        method = rng.choice(_METHODS)
        path = f"{rng.choice(_PATHS)}?id={rng.randrange(100000)}"
        status = rng.choice(_STATUS)
        size = rng.randrange(200, 50000)
        ts = time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(start + i // 50))
        agent = rng.choice(_AGENTS)
        message = f'{ip} - - [{ts}] "{method} {path} HTTP/1.1" {status} {size} "-" "{agent}"'
        doc = {
            "@timestamp": (start + i // 50) * 1000,
            "source": {"ip": ip},
            "http": {"request": {"method": method}, "response": {"status_code": status, "bytes": size}},
            "url": {"original": path},
            "user_agent": {"original": agent},
            "message": message,
        }
        docs.append(json.dumps(doc, separators=(",", ":")).encode())
    return docs


_ID = "\x00id\x00"


def bodies(docs: list[bytes], bulk_size: int, with_ids: bool) -> list[list[bytes]]:
    """NDJSON bulk bodies of ``bulk_size`` documents, each as the parts around its ids' places
    (one part without ids): :func:`fill` puts fresh ids in, so looping never re-indexes an id."""
    out = []
    for start in range(0, len(docs) - bulk_size + 1, bulk_size):
        lines = []
        for doc in docs[start : start + bulk_size]:
            meta: dict[str, Any] = {"_index": INDEX}
            if with_ids:
                meta["_id"] = _ID
            lines.append(json.dumps({"index": meta}).encode())
            lines.append(doc)
        out.append((b"\n".join(lines) + b"\n").split(json.dumps(_ID).encode()))
    return out


def fill(parts: list[bytes], ids: IdGenerator) -> bytes:
    """A body from :func:`bodies`' parts with fresh ids of the routing-aware id scheme."""
    if len(parts) == 1:
        return parts[0]
    pieces = [parts[0]]
    for part in parts[1:]:
        pieces.append(b'"%s"' % ids.next().encode())
        pieces.append(part)
    return b"".join(pieces)


def call(host: str, method: str, path: str, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"http://{host}{path}", data=data, method=method, headers={"content-type": "application/json"}
    )
    with _OPENER.open(request, timeout=120) as response:
        return json.loads(response.read() or b"null")


def node_counters(host: str) -> dict[str, tuple[int, int, int]]:
    """Node id -> (CPU ms, transport tx bytes, transport rx bytes)."""
    stats = call(host, "GET", "/_nodes/stats/process,transport")
    return {
        node: (
            info["process"]["cpu"]["total_in_millis"],
            info["transport"]["tx_size_in_bytes"],
            info["transport"]["rx_size_in_bytes"],
        )
        for node, info in stats["nodes"].items()
    }


def recreate_index(host: str, shards: int) -> None:
    with contextlib.suppress(urllib.error.HTTPError):
        call(host, "DELETE", f"/{INDEX}")
    call(
        host,
        "PUT",
        f"/{INDEX}?wait_for_active_shards=all",
        {
            "settings": {
                "number_of_shards": shards,
                "number_of_replicas": 0,
                "refresh_interval": "-1",
                "translog.durability": "async",
            }
        },
    )
    call(host, "GET", f"/_cluster/health/{INDEX}?wait_for_status=green&timeout=60s")


async def run_case(
    hosts: list[str], mode: str, payloads: list[list[bytes]], opts: argparse.Namespace
) -> dict[str, Any]:
    runner = Bulk()
    ids = IdGenerator()
    base: dict[str, Any] = {}
    if mode in ("node", "shard"):
        base["routing-aware"] = mode
    prepared = prepare_bulk(base)
    settings = ConnectionSettings.create(hosts, ClientOptions(timeout=120))
    clients = [create_client(settings) for _ in range(opts.clients)]
    loop = asyncio.get_running_loop()
    started = loop.time()
    measure_from = started + opts.warmup
    stop_at = measure_from + opts.duration
    docs = 0
    service: list[float] = []
    errors = 0
    cursor = 0

    async def client_loop(es: Any) -> None:
        nonlocal docs, errors, cursor
        while loop.time() < stop_at:
            body = fill(payloads[cursor % len(payloads)], ids)
            cursor += 1
            params = {"body": body, "bulk-size": opts.bulk_size, PREPARED: prepared, **base}
            t0 = loop.time()
            result = await runner(es, params)
            t1 = loop.time()
            if t0 >= measure_from and t1 <= stop_at:
                docs += int(result.weight)
                service.append((t1 - t0) * 1000)
                errors += 0 if result.success else 1

    warm = asyncio.create_task(asyncio.sleep(opts.warmup))
    tasks = [asyncio.create_task(client_loop(es)) for es in clients]
    await warm
    before = node_counters(hosts[0])
    client_cpu0 = time.process_time()
    await asyncio.gather(*tasks)
    after = node_counters(hosts[0])
    client_cpu = time.process_time() - client_cpu0
    for es in clients:
        await es.close()
    service.sort()
    return {
        "mode": mode,
        "docs_per_s": docs / opts.duration,
        "bulks": len(service),
        "errors": errors,
        "p50_ms": statistics.median(service) if service else None,
        "p99_ms": service[min(len(service) - 1, int(len(service) * 0.99))] if service else None,
        "es_cpu_s": sum(after[n][0] - before[n][0] for n in after) / 1000,
        "docs": docs,
        "client_cpu_s": client_cpu,
        "transport_tx_mb": sum(after[n][1] - before[n][1] for n in after) / 1e6,
        "transport_rx_mb": sum(after[n][2] - before[n][2] for n in after) / 1e6,
    }


def split_cost_us(payloads: list[list[bytes]], shards: int) -> float:
    """Client CPU per document (µs) of splitting id-less bodies by node (3 nodes), ids included."""
    routing = IndexRouting(INDEX, shards, default_routing_num_shards(shards))
    targets = {INDEX: IndexShards(INDEX, routing, tuple(f"n{i % 3}" for i in range(shards)))}
    splitter = BulkSplitter(RoutingAware.NODE, IdGenerator())
    docs = 0
    start = time.process_time()
    for parts in payloads:
        docs += sum(p.docs for p in splitter.split(parts[0], None, targets))
    return (time.process_time() - start) / docs * 1e6


def provision(opts: argparse.Namespace) -> tuple[list[str], Any]:
    from esbench.provision import ProvisionSettings, provision_cluster

    settings = ProvisionSettings(
        nodes=3, car_params={"heap_size": opts.heap}, distribution_repository="maven"
    )
    cluster = provision_cluster(settings, race_dir=None)
    return list(cluster.hosts), cluster


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hosts", help="HOST:PORT,... of a running 3-node cluster (default: provision one)")
    parser.add_argument("--shards", default="3,30")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--bulk-size", type=int, default=1000)
    parser.add_argument("--documents", type=int, default=40000, help="distinct documents generated")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds measured per case")
    parser.add_argument("--heap", default="1g", help="heap per provisioned node")
    parser.add_argument("--repeat", type=int, default=3, help="rounds over all cases (medians reported)")
    opts = parser.parse_args()
    cluster = None
    if opts.hosts:
        hosts = [h.strip() for h in opts.hosts.split(",")]
    else:
        hosts, cluster = provision(opts)
    try:
        docs = nginx_documents(opts.documents)
        payloads = {False: bodies(docs, opts.bulk_size, False), True: bodies(docs, opts.bulk_size, True)}
        mean_doc = sum(map(len, docs)) / len(docs)
        print(f"command: python3 {' '.join(sys.argv)}")
        print(
            f"cluster: {len(call(hosts[0], 'GET', '/_nodes/_all/none')['nodes'])} nodes, {hosts}; "
            f"cpus: {os.cpu_count()}"
        )
        print(
            f"documents: {len(docs)} nginx-log events, {mean_doc:.0f} bytes each; "
            f"bulk-size {opts.bulk_size}; "
            f"clients {opts.clients}; warmup {opts.warmup} s; measured {opts.duration} s per case"
        )
        print(f"client split cost: {split_cost_us(payloads[False], 30):.2f} µs CPU per document")
        header = (
            "| round | shards | mode | docs/s | bulk p50 ms | bulk p99 ms | ES CPU s per 1M docs "
            "| client CPU s per 1M docs | transport tx MB per 1M docs | errors |"
        )
        print(header)
        print("|" + "---|" * (header.count("|") - 1))
        results: dict[tuple[int, str], list[dict[str, Any]]] = {}
        # Rounds interleave the modes, so a burst of load from elsewhere on the host hits them alike.
        for round_no in range(1, opts.repeat + 1):
            for shards in (int(s) for s in opts.shards.split(",")):
                for mode in opts.modes.split(","):
                    recreate_index(hosts[0], shards)
                    result = asyncio.run(run_case(hosts, mode, payloads[mode != "direct"], opts))
                    per_million = 1e6 / max(result["docs"], 1)
                    result["es_cpu_per_m"] = result["es_cpu_s"] * per_million
                    result["client_cpu_per_m"] = result["client_cpu_s"] * per_million
                    result["tx_mb_per_m"] = result["transport_tx_mb"] * per_million
                    results.setdefault((shards, mode), []).append(result)
                    print(
                        f"| {round_no} | {shards} | {mode} | {result['docs_per_s']:,.0f} | "
                        f"{result['p50_ms']:.0f} | {result['p99_ms']:.0f} | {result['es_cpu_per_m']:.1f} | "
                        f"{result['client_cpu_per_m']:.1f} | {result['tx_mb_per_m']:.1f} | "
                        f"{result['errors']} |",
                        flush=True,
                    )
        print(f"\nmedians over {opts.repeat} round(s)")
        print(
            "| shards | mode | docs/s | bulk p50 ms | ES CPU s per 1M docs | client CPU s per 1M docs "
            "| transport tx MB per 1M docs |"
        )
        print("|---|---|---|---|---|---|---|")
        for (shards, mode), rows in results.items():

            def med(key: str, rows: list[dict[str, Any]] = rows) -> float:
                return statistics.median(r[key] for r in rows)

            print(
                f"| {shards} | {mode} | {med('docs_per_s'):,.0f} | {med('p50_ms'):.0f} | "
                f"{med('es_cpu_per_m'):.1f} | {med('client_cpu_per_m'):.1f} | {med('tx_mb_per_m'):.1f} |"
            )
        call(hosts[0], "DELETE", f"/{INDEX}")
    finally:
        if cluster is not None:
            cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
