"""The floor under esbench's search hot path: a minimal uvloop client (not a test: prints figures).

Run::

    python benchmarks/bench_bare_client.py                      # 16 connections, 200,000 requests
    python benchmarks/bench_bare_client.py --host 127.0.0.1:PORT --requests 400000

Starts the loopback nginx stub as ``bench_request_cost.py`` does (unless ``--host`` names a running one)
and sends esbench's own search request bytes (``GET /idx/_search`` with its headers and a
``match_all`` body) over ``--connections`` keep-alive connections, one request in flight on each,
from one uvloop event loop: a protocol that writes prebuilt bytes and counts response bytes by
Content-Length, and nothing else (no timing, no recording, no coroutines). Prints the process's CPU
per request (user + system, ``getrusage``) and requests/s.

Compare with ``python benchmarks/bench_request_cost.py --clients 16`` in the same hour: the
difference is what esbench's per-request Python (executor loop, runner, transport coroutine,
recording) costs above the event loop and the kernel's TCP path (docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import time
from pathlib import Path
from typing import cast

sys.path.insert(0, str(Path(__file__).resolve().parent))


class _Client(asyncio.Protocol):
    """One connection: send ``request``, read one response, send again until ``left`` is 0."""

    def __init__(self, request: bytes, left: list[int], done: asyncio.Future[None]) -> None:
        self.request = request
        self.left = left
        self.done = done
        self.buffer = b""
        self.need: int | None = None
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transport: not a subclass
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if self.need is None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = self.buffer[:end].lower()
            at = head.find(b"content-length:") + len(b"content-length:")
            self.need = end + 4 + int(head[at : head.find(b"\r\n", at)])
        if len(self.buffer) < self.need:
            return
        self.buffer, self.need = self.buffer[self.need :], None
        self.left[0] -= 1
        if self.left[0] > 0:
            assert self.transport is not None
            self.transport.write(self.request)
        elif not self.done.done():
            self.done.set_result(None)


async def _run(host: str, port: int, connections: int, requests: int) -> tuple[float, float, float]:
    body = b'{"query":{"match_all":{}}}'
    request = (
        b"GET /idx/_search HTTP/1.1\r\nhost: %s:%d\r\ncontent-type: application/json\r\n"
        b"accept: application/json\r\nuser-agent: esbench\r\ncontent-length: %d\r\n\r\n%s"
        % (host.encode(), port, len(body), body)
    )
    loop = asyncio.get_running_loop()
    left, done = [requests], loop.create_future()
    before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    clients = [
        await loop.create_connection(lambda: _Client(request, left, done), host, port)
        for _ in range(connections)
    ]
    await done
    after, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - start
    for transport, _ in clients:
        transport.close()
    user = (after.ru_utime - before.ru_utime) / requests * 1e6
    system = (after.ru_stime - before.ru_stime) / requests * 1e6
    return user, system, requests / wall


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", help="a running stub (HOST:PORT); default: start nginx")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--requests", type=int, default=200_000)
    parser.add_argument("--repetitions", type=int, default=3)
    args = parser.parse_args()
    import uvloop

    stub = None
    if args.host is None:
        from bench_request_cost import start_stub  # the same stub as the hot path is measured against

        stub = start_stub()
        args.host = stub.host  # type: ignore[attr-defined]
    host, port = args.host.rsplit(":", 1)
    print(f"command: python {' '.join(sys.argv)}")
    try:
        for rep in range(args.repetitions):
            user, system, rps = uvloop.run(_run(host, int(port), args.connections, args.requests))
            print(
                f"rep {rep}: {user + system:.1f} µs CPU/request (user {user:.1f}, system {system:.1f}), "
                f"{rps:,.0f} requests/s, {args.connections} connections"
            )
    finally:
        if stub is not None:
            stub.stop()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
