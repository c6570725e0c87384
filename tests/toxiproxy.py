"""Toxiproxy (Shopify's TCP fault proxy) as a test fixture: a server process on loopback, driven
through its HTTP API with plain ``urllib`` calls.

The API used (toxiproxy v2 README, "HTTP API"): ``GET /version``; ``POST /proxies`` with
``{"name", "listen", "upstream", "enabled"}``; ``POST /proxies/{name}`` with ``{"enabled": bool}``
(disabling closes every connection and the listener); ``POST /proxies/{name}/toxics`` with
``{"name", "type", "stream", "toxicity", "attributes"}``; ``DELETE /proxies/{name}/toxics/{toxic}``.
Toxic attributes used here: ``latency`` ``{"latency": ms, "jitter": ms}``, ``bandwidth``
``{"rate": KB/s}``, ``reset_peer`` ``{"timeout": ms}`` (RST after ``timeout``, 0 = at once),
``timeout`` ``{"timeout": ms}`` (data stops; the connection closes after ``timeout``, never with 0).

The binary: ``$TOXIPROXY_SERVER``, else ``toxiproxy-server`` on ``PATH`` (where ``.ci/run`` installs
it), else ``$(go env GOPATH)/bin/server`` (what ``go install
github.com/Shopify/toxiproxy/v2/cmd/server@v2.12.0`` leaves) when its ``-version`` says toxiproxy.
A missing binary is a test failure that says how to install it, never a skip.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

INSTALL_HINT = (
    "Toxiproxy is not installed: `go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.12.0` and "
    "copy $(go env GOPATH)/bin/server to /usr/local/bin/toxiproxy-server (what .ci/run does), or set "
    "TOXIPROXY_SERVER to the binary."
)


def _is_toxiproxy(path: str) -> bool:
    try:
        out = subprocess.run([path, "-version"], capture_output=True, text=True, timeout=10, check=False)
    except OSError:
        return False
    return "toxiproxy" in (out.stdout + out.stderr).lower()


def server_binary() -> str:
    """Path of the toxiproxy server binary.

    Raises:
        RuntimeError: none found (the message says how to install it).
    """
    explicit = os.environ.get("TOXIPROXY_SERVER")
    if explicit:
        return explicit
    found = shutil.which("toxiproxy-server")
    if found:
        return found
    gopath = os.environ.get("GOPATH") or str(Path.home() / "go")
    candidate = Path(gopath) / "bin" / "server"
    if candidate.is_file() and _is_toxiproxy(str(candidate)):
        return str(candidate)
    raise RuntimeError(INSTALL_HINT)


def free_port() -> int:
    """A currently free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Toxiproxy:
    """A running toxiproxy server: ``api`` is its ``http://127.0.0.1:PORT`` API root."""

    api: str
    process: subprocess.Popen[bytes]

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One API call; returns the parsed JSON answer (None for an empty one).

        Raises:
            RuntimeError: the API answered with an error status (its body is in the message).
        """
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.api + path, data=data, method=method)
        request.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read()
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"toxiproxy {method} {path}: HTTP {exc.code}: {exc.read()[:300]!r}") from None
        return json.loads(text) if text.strip() else None

    def proxy(self, name: str, upstream: str) -> Proxy:
        """Create a proxy from a free loopback port to ``upstream`` (``host:port``)."""
        listen = f"127.0.0.1:{free_port()}"
        self.call("POST", "/proxies", {"name": name, "listen": listen, "upstream": upstream, "enabled": True})
        return Proxy(server=self, name=name, listen=listen)

    def stop(self) -> None:
        """End the server process (SIGTERM, then SIGKILL after 5 s)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@dataclass
class Proxy:
    """One proxy of a :class:`Toxiproxy`; ``listen`` is the ``127.0.0.1:PORT`` clients connect to."""

    server: Toxiproxy
    name: str
    listen: str

    def add_toxic(
        self, name: str, kind: str, attributes: dict[str, Any], *, stream: str = "downstream"
    ) -> None:
        """Add toxic ``name`` of type ``kind`` on ``stream`` (``downstream``: server to client)."""
        self.server.call(
            "POST",
            f"/proxies/{self.name}/toxics",
            {"name": name, "type": kind, "stream": stream, "toxicity": 1.0, "attributes": attributes},
        )

    def remove_toxic(self, name: str) -> None:
        self.server.call("DELETE", f"/proxies/{self.name}/toxics/{name}")

    def set_enabled(self, enabled: bool) -> None:
        """Enable or disable the proxy (disabled: every connection is closed, new ones are refused)."""
        self.server.call("POST", f"/proxies/{self.name}", {"enabled": enabled})

    @contextmanager
    def toxic(
        self, name: str, kind: str, attributes: dict[str, Any], *, stream: str = "downstream"
    ) -> Iterator[None]:
        """The toxic for the duration of the ``with`` block."""
        self.add_toxic(name, kind, attributes, stream=stream)
        try:
            yield
        finally:
            self.remove_toxic(name)


@contextmanager
def toxiproxy_server(log_path: Path, timeout_s: float = 15.0) -> Iterator[Toxiproxy]:
    """Start a toxiproxy server on a free loopback port, its output going to ``log_path``; yields it
    and stops it on exit.

    Raises:
        RuntimeError: no binary, or the API did not answer within ``timeout_s`` (with its output).
    """
    binary = server_binary()
    port = free_port()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [binary, "-host", "127.0.0.1", "-port", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = Toxiproxy(api=f"http://127.0.0.1:{port}", process=proc)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"toxiproxy exited with {proc.returncode} at start: {log_path.read_text()[-2000:]}"
                )
            try:
                server.call("GET", "/version")
                break
            except (OSError, RuntimeError):
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"toxiproxy did not answer on {server.api} within {timeout_s} s"
                    ) from None
                time.sleep(0.05)
        yield server
    finally:
        server.stop()
