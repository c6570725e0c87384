"""A loopback HTTP server in a thread, for tests that need one (file servers for corpora and
distributions, stand-ins for an Elasticsearch answer the test is about)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class QuietHandler(http.server.BaseHTTPRequestHandler):
    """A request handler that does not log each request to stderr."""

    def log_message(self, *args: object) -> None:
        pass


def directory_handler(
    root: Path, *, seen: list[tuple[str, str]] | None = None
) -> type[http.server.SimpleHTTPRequestHandler]:
    """A quiet handler serving the files under ``root``; appends ``(method, path)`` of every
    request to ``seen`` if given."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(root), **kwargs)

        def send_head(self) -> Any:
            if seen is not None:
                seen.append((self.command, self.path))
            return super().send_head()

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 at a free port in a daemon thread; yields ``"127.0.0.1:PORT"``
    and shuts the server down on exit."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
