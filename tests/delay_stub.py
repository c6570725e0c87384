"""A loopback stand-in for an Elasticsearch node that answers searches after a fixed delay.

Races against it measure the delay (plus the load driver's own overhead), so a test can plant a
latency change between races and know where it is: ``stub.set_delay(0.012)`` before the next race.
``GET /`` answers an 8.19 node's info (esbench reads the version), ``*/_search`` a short hit list
after the delay, ``PUT /_stub_delay?s=SECONDS`` sets the delay, anything else (cluster health, node
and index stats) ``{}``.

The stub runs in its own process (``python tests/delay_stub.py SECONDS`` prints its host and serves
until stdin closes): in the test's process its thread would wait for the GIL while an in-process
load driver holds it (up to the 5 ms switch interval), noise as large as the planted change.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from loopback_http import QuietHandler, serving

_INFO = {
    "name": "delay-stub",
    "cluster_name": "delay-stub",
    "cluster_uuid": "delay-stub-uuid",
    "version": {
        "number": "8.19.0",
        "build_flavor": "default",
        "lucene_version": "9.12.2",
        "minimum_wire_compatibility_version": "7.17.0",
        "minimum_index_compatibility_version": "7.0.0",
    },
    "tagline": "You Know, for Search",
}
_SEARCH = {
    "took": 1,
    "timed_out": False,
    "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
    "hits": {"total": {"value": 1, "relation": "eq"}, "max_score": 1.0, "hits": []},
}


@dataclass
class _State:
    delay_s: float


def _handler(state: _State) -> type[QuietHandler]:
    class Handler(QuietHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as Elasticsearch: no connection per request

        def setup(self) -> None:
            super().setup()
            # Headers and body go out in two writes; with Nagle's algorithm the second waits for the
            # client's delayed ACK (40 ms on Linux), which would dwarf the planted delay.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length:
                self.rfile.read(length)
            path, _, query = self.path.partition("?")
            body: dict[str, object] = {}
            if path in ("", "/"):
                body = _INFO
            elif path.endswith("/_search"):
                time.sleep(state.delay_s)
                body = _SEARCH
            elif path == "/_stub_delay":
                state.delay_s = float(query.removeprefix("s="))
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("X-Elastic-Product", "Elasticsearch")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _answer

    return Handler


@dataclass(frozen=True)
class DelayStub:
    """The running stub: ``host`` is ``127.0.0.1:PORT``."""

    host: str

    def set_delay(self, seconds: float) -> None:
        """Answer searches after ``seconds`` from now on."""
        request = urllib.request.Request(f"http://{self.host}/_stub_delay?s={seconds}", method="PUT")
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200


@contextmanager
def delay_stub(delay_s: float) -> Iterator[DelayStub]:
    """Start the stub process on a free loopback port; it stops when the block ends."""
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), str(delay_s)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        host = proc.stdout.readline().strip()
        assert host.startswith("127.0.0.1:"), host
        yield DelayStub(host=host)
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> None:
    """Serve with the delay of ``argv[1]`` seconds; print the host; stop when stdin closes."""
    with serving(_handler(_State(delay_s=float(sys.argv[1])))) as host:
        print(host, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
