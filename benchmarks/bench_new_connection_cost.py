"""What a new HTTP connection adds to a short task's requests (issue 38).

    python benchmarks/bench_new_connection_cost.py --host http://127.0.0.1:9200 [--index NAME]
        [--clients N] [--rounds R] [--body JSON]

Rally's ``AsyncIoAdapter.run`` (esrally/driver/driver.py) creates each client's Elasticsearch
client, and so its connections, anew for every task and closes them when the task ends; esbench's
workers keep theirs for the race. In a task of one request per client, every request Rally sends
opens a connection first, and its service time and the task's interval include that.

Each round sends ``--clients`` concurrent searches, either each on a connection opened for it
(Rally's first request of a task) or each on a connection kept from before (esbench's), the two
kinds of round taking turns so that neither meets a warmer node. The client is plain asyncio
streams, the same for both kinds, so the difference is the node's and the kernel's. Prints the
median over the rounds of the round's time (first send to last response, ms) and of one request's
time (send to response, ms) for both kinds, and the command.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from urllib.parse import urlsplit

# rally-eventdata-track's fieldstats request (eventdata/runners/fieldstats_runner.py)
DEFAULT_BODY = {
    "query": {"match_all": {}},
    "size": 0,
    "aggs": {"maxval": {"max": {"field": "@timestamp"}}, "minval": {"min": {"field": "@timestamp"}}},
}


def _request(host: str, port: int, index: str, body: bytes) -> bytes:
    head = (
        f"POST /{index}/_search HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("ascii") + body


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes) -> None:
    """Send one request and read its whole response (ES answers with a content-length).

    Raises:
        RuntimeError: the node answered with a status other than 200, or without a content-length.
    """
    writer.write(request)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status = head.split(b" ", 2)[1]
    if status != b"200":
        raise RuntimeError(f"the node answered {status.decode()}: {head.decode(errors='replace')}")
    lengths = [
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    ]
    if not lengths:
        raise RuntimeError(f"the node answered without a content-length: {head.decode(errors='replace')}")
    length = lengths[0]
    await reader.readexactly(length)


async def _timed(
    host: str, port: int, request: bytes, kept: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None
) -> tuple[float, float]:
    """(send, response end) of one request, perf_counter s; a new connection when ``kept`` is None."""
    start = time.perf_counter()
    if kept is None:
        reader, writer = await asyncio.open_connection(host, port)
    else:
        reader, writer = kept
    await _exchange(reader, writer, request)
    end = time.perf_counter()
    if kept is None:
        writer.close()
        await writer.wait_closed()
    return start, end


async def _main(args: argparse.Namespace) -> None:
    url = urlsplit(args.host)
    host, port = url.hostname or "127.0.0.1", url.port or 9200
    request = _request(host, port, args.index, json.dumps(json.loads(args.body)).encode())
    kept = [await asyncio.open_connection(host, port) for _ in range(args.clients)]
    for r, w in kept:  # one request each, so that the kept connections are not new to the node
        await _exchange(r, w, request)
    rounds: dict[str, list[float]] = {"new": [], "kept": []}
    requests: dict[str, list[float]] = {"new": [], "kept": []}
    for i in range(2 * args.rounds):
        kind = "new" if i % 2 == 0 else "kept"
        spans = await asyncio.gather(
            *(_timed(host, port, request, None if kind == "new" else kept[c]) for c in range(args.clients))
        )
        rounds[kind].append((max(e for _, e in spans) - min(s for s, _ in spans)) * 1000)
        requests[kind].extend((e - s) * 1000 for s, e in spans)
    for _, w in kept:
        w.close()
    print(f"{args.clients} concurrent searches per round, {args.rounds} rounds of each kind, taking turns")
    print(f"{'connection':<12}{'round ms (median)':>20}{'request ms (median)':>22}")
    for kind in ("new", "kept"):
        print(f"{kind:<12}{statistics.median(rounds[kind]):>20.2f}{statistics.median(requests[kind]):>22.2f}")
    print("command: python " + " ".join(sys.argv))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", required=True, help="the node, http://HOST:PORT")
    parser.add_argument("--index", default="elasticlogs-*")
    parser.add_argument("--clients", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--body", default=json.dumps(DEFAULT_BODY), help="the search body, JSON")
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
