"""OSB's ``osbenchmark.context`` (2.4.0): ``RequestContextHolder``.

OSB's runners mark the start and end of their requests with ``on_client_request_start()`` /
``on_client_request_end()`` so that OSB can time them. esbench's transport times every request a
runner sends itself (``esbench.driver.transport.timing``: the earliest start and latest end of the
requests of one runner call, as OSB's holder keeps them), whether or not the runner marks them;
the marks are accepted so that OSB's runners import and run unchanged, and have no further effect.
"""

from __future__ import annotations

import contextvars
from typing import Any


class RequestContextHolder:
    """OSB's holder of the current request's context (a dict in a context variable)."""

    request_context: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar(
        "osbenchmark_request_context"
    )

    def on_client_request_start(self) -> None:
        """OSB: the client is about to send the request (timed by esbench's transport instead)."""

    def on_client_request_end(self) -> None:
        """OSB: the client has the response (timed by esbench's transport instead)."""

    def on_request_start(self) -> None:
        """OSB: the request is handed to the connection (timed by esbench's transport instead)."""

    def on_request_end(self) -> None:
        """OSB: the last response byte was read (timed by esbench's transport instead)."""
