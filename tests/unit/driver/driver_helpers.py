"""Helpers of the driver tests: model builders, a simulated clock, a loopback Elasticsearch stub."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from esbench.driver.transport.http import StaticTransport
from esbench.track.model import Challenge, Index, Operation, Task, Track

SEARCH_RESPONSE = (
    b'{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},'
    b'"hits":{"total":{"value":1,"relation":"eq"},"max_score":1.0,"hits":[]}}'
)
BULK_OK = b'{"errors":false,"took":3,"items":[]}'


def op(op_type: str, name: str | None = None, **params: Any) -> Operation:
    """An operation with hyphenated params given as keyword arguments with underscores."""
    return Operation(
        name=name or op_type,
        operation_type=op_type,
        params={k.replace("_", "-"): v for k, v in params.items()},
        include_in_reporting=True,
    )


def task(operation: Operation, name: str | None = None, **fields: Any) -> Task:
    return Task(name=name or operation.name, operation=operation, **fields)


def track(*, indices: tuple[str, ...] = ("idx",), **fields: Any) -> Track:
    return Track(
        name="t",
        root=Path("/nonexistent-track-root"),
        challenges=(),
        indices=tuple(Index(name=n, body={"settings": {"number_of_shards": 1}}) for n in indices),
        **fields,
    )


def challenge(*items: Any) -> Challenge:
    return Challenge(name="c", schedule=tuple(items), default=True)


class FakeClock:
    """Simulated perf_counter: sleeps advance it at once."""

    def __init__(self, start: float = 1000.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds

    async def sleep(self, seconds: float, wake: asyncio.Future[None]) -> None:
        self.t += seconds
        await asyncio.sleep(0)


def static_es(responder: Callable[[str, str, bytes | None], Any], clock: FakeClock | None = None) -> Any:
    """An ``es`` object for runners: only ``es.http`` (a StaticTransport)."""
    transport = StaticTransport(responder, clock=clock.now if clock else time.perf_counter)
    return SimpleNamespace(http=transport)


class EsStub:
    """A loopback HTTP/1.1 server answering like Elasticsearch, with a controllable delay.

    Attributes:
        delay: seconds before each response is sent.
        stalls: request number (1-based) -> extra seconds before that response.
        requests: number of requests answered.
        log: (method, target) of each request.
        peers: the client's ``host:port`` of each request (same order as ``log``): one per
            connection, so requests can be counted per client connection.
    """

    def __init__(self, *, delay: float = 0.0) -> None:
        self.delay = delay
        self.stalls: dict[int, float] = {}
        self.requests = 0
        self.log: list[tuple[str, str]] = []
        self.peers: list[str] = []
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._server: asyncio.AbstractServer | None = None

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> EsStub:
        self._thread = threading.Thread(target=self._run, name="es-stub", daemon=True)
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError("ES stub did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._server = loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
        self.port = self._server.sockets[0].getsockname()[1]
        self._started.set()
        try:
            loop.run_forever()
        finally:
            self._server.close()
            loop.run_until_complete(self._server.wait_closed())
            loop.close()

    def body_for(self, method: str, target: str) -> tuple[int, bytes]:
        if "_search" in target:
            return 200, SEARCH_RESPONSE
        if "_bulk" in target:
            return 200, BULK_OK
        return 200, b"{}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer_address = writer.get_extra_info("peername")
        peer = f"{peer_address[0]}:{peer_address[1]}" if peer_address else "?"
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                method, target, _ = line.decode("latin-1").split(" ", 2)
                length = 0
                while True:
                    header = await reader.readline()
                    if header in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = header.decode("latin-1").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length:
                    await reader.readexactly(length)
                self.requests += 1
                number = self.requests
                self.log.append((method, target))
                self.peers.append(peer)
                wait = self.delay + self.stalls.get(number, 0.0)
                if wait > 0:
                    # A sleeping thread on a busy machine wakes up late (ms); delays are spun so
                    # the server's own timing is exact (the race's worker is another process).
                    # Long stalls only need to be long: they sleep.
                    until = time.perf_counter() + wait
                    while (rest := until - time.perf_counter()) > 0.05:
                        await asyncio.sleep(rest - 0.05)
                    while time.perf_counter() < until:
                        pass
                status, body = self.body_for(method, target)
                body_out = b"" if method == "HEAD" else body
                head = (
                    f"HTTP/1.1 {status} OK\r\ncontent-type: application/json\r\n"
                    f"x-elastic-product: Elasticsearch\r\ncontent-length: {len(body)}\r\n\r\n"
                ).encode("latin-1")
                writer.write(head + body_out)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


class StubProcess:
    """An :class:`EsStub` in a child process, so that nothing in the test process (GIL, garbage
    collection) delays its responses. Use as a context manager.
    """

    def __init__(self, *, delay: float = 0.0, stalls: dict[int, float] | None = None) -> None:
        self.delay = delay
        self.stalls = dict(stalls or {})
        self.port = 0
        self._proc: Any = None

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def __enter__(self) -> StubProcess:
        import subprocess
        import sys

        args = [
            sys.executable,
            __file__,
            str(self.delay),
            json.dumps({str(k): v for k, v in self.stalls.items()}),
        ]
        self._proc = subprocess.Popen(args, stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
        line = self._proc.stdout.readline()
        if not line.strip().isdigit():
            self._proc.kill()
            raise RuntimeError(f"ES stub process did not start: {line!r}")
        self.port = int(line)
        return self

    def received(self) -> list[tuple[str, str, str]]:
        """(method, target, client ``host:port``) of every request the stub has read so far, in
        order of arrival (asked of the child process over its stdin/stdout)."""
        self._proc.stdin.write("log\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError("ES stub process ended")
        return [tuple(entry) for entry in json.loads(line)]

    def __exit__(self, *exc: object) -> None:
        self._proc.stdin.close()  # the child exits when its stdin closes
        try:
            self._proc.wait(10)
        except Exception:
            self._proc.kill()


if __name__ == "__main__":
    import sys

    stub = EsStub(delay=float(sys.argv[1]))
    stub.stalls = {int(k): v for k, v in json.loads(sys.argv[2]).items()}
    stub.start()
    print(stub.port, flush=True)
    for command in sys.stdin:
        if command.strip() == "log":
            # Copies: the stub's thread appends while this one reads.
            log, peers = list(stub.log), list(stub.peers)
            print(json.dumps([[m, t, p] for (m, t), p in zip(log, peers, strict=False)]), flush=True)
    stub.stop()
