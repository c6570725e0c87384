"""A byte pipe between a TCP port and a Unix socket, so that a process in a private network
namespace (Rally's races, tests/integration/rally_oracle.py) reaches a node of the host's namespace.

A Unix socket file is reachable from every network namespace that sees the file system; a TCP port
is not. So the test process listens on a Unix socket and connects each of its connections to the
node (:func:`serve_unix_to_tcp`, a thread), and inside the namespace this module, run as a script,
listens on a TCP port and connects each connection to that Unix socket::

    python socket_bridge.py 127.0.0.1:9200 /tmp/.../node.sock
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import sys
import threading
from pathlib import Path


def _pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        # The other direction may still be sending: close only this one.
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)


def _join(client: socket.socket, upstream: socket.socket) -> None:
    # Forward each write at once: with Nagle's algorithm a request written in two parts waits for the
    # peer's delayed ACK, adding tens of ms to the latency Rally measures.
    for sock in (client, upstream):
        if sock.family != socket.AF_UNIX:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    back.start()
    _pump(client, upstream)
    back.join()
    upstream.close()


class _UnixToTcp(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    target: tuple[str, int]


class _TcpToUnix(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    target_path: str


class _ToTcp(socketserver.BaseRequestHandler):
    server: _UnixToTcp

    def handle(self) -> None:
        _join(self.request, socket.create_connection(self.server.target))


class _ToUnix(socketserver.BaseRequestHandler):
    server: _TcpToUnix

    def handle(self) -> None:
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(self.server.target_path)
        _join(self.request, upstream)


def serve_unix_to_tcp(path: Path, host: str, port: int) -> socketserver.BaseServer:
    """Listen on the Unix socket ``path`` and connect each connection to ``host:port``, in a daemon
    thread; ``shutdown()`` and ``server_close()`` the returned server to stop."""
    server = _UnixToTcp(str(path), _ToTcp)
    server.target = (host, port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(listen: str, path: str) -> None:
    """Listen on ``HOST:PORT`` and connect each connection to the Unix socket ``path``, until killed."""
    host, _, port = listen.rpartition(":")
    server = _TcpToUnix((host, int(port)), _ToUnix)
    server.target_path = path
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
