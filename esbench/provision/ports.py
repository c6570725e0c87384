"""Find free loopback TCP ports for nodes.

A port found free can be taken by someone else before the node binds it; the launcher therefore
detects the node's bind failure and retries with fresh ports (see :mod:`esbench.provision.launcher`).
"""

from __future__ import annotations

import socket
from collections.abc import Iterable

LOOPBACK = "127.0.0.1"


def free_ports(count: int, *, host: str = LOOPBACK, exclude: Iterable[int] = ()) -> list[int]:
    """``count`` distinct ports that nothing listens on right now, chosen by the kernel (bind to port 0).

    All sockets stay open until every port is chosen, so the result has no duplicates; ports in
    ``exclude`` (e.g. ones that just failed) are skipped.
    """
    excluded = set(exclude)
    held: list[socket.socket] = []
    ports: list[int] = []
    try:
        while len(ports) < count:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            held.append(s)
            s.bind((host, 0))
            port = s.getsockname()[1]
            if port not in excluded and port not in ports:
                ports.append(port)
    finally:
        for s in held:
            s.close()
    return ports


def port_is_free(port: int, *, host: str = LOOPBACK) -> bool:
    """True if a listening socket could bind ``host:port`` now (no SO_REUSEADDR, like a strict check)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True
