"""The one place that turns request exceptions into a recorded failure.

Elasticsearch rejecting a request is measured, not raised: an HTTP error status, a client-side
timeout, a connection refused, reset or closed mid-request and similar become a failed sample with
an ``error_type`` (the HTTP status as text, or ``timeout``/``connection``/``transport``) and a
reason; with ``--on-error=continue`` the client goes on with its schedule (a node that restarts, a
flaky network: the requests in between are errors, the race is not lost), with ``--on-error=abort``
the first one stops the race. (Rally 2.13's ``execute_single`` aborts on a plain ``ConnectionError``
unless ``--on-error=continue-on-network``; esbench's ``continue`` records it like any other
failure, issue #26.) Only TLS failures are *fatal* whatever ``--on-error`` says: they come from the
configuration (certificates, protocol), and every later request would fail the same way. Anything
that is not an Elasticsearch/transport error (a bug or a missing parameter in a plugin runner) is
not classified here: the executor fails the race with the task name and the error.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from esbench.driver.worker.errors import body_error

if TYPE_CHECKING:
    from elasticsearch import ApiError

TIMEOUT = "timeout"
CONNECTION = "connection"
TLS = "tls"
TRANSPORT = "transport"


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestFailure:
    """A failed request.

    Attributes:
        error_type: short class of error: HTTP status (``"404"``), ``timeout``, ``connection``,
            ``tls`` or ``transport``.
        description: one line for messages (never contains credentials).
        http_status: the HTTP status, if a response arrived.
        fatal: True if the race cannot continue whatever ``--on-error`` says (a TLS failure).
    """

    error_type: str
    description: str
    http_status: int | None = None
    fatal: bool = False


def _api_error_description(exc: ApiError) -> str:
    return body_error(exc.body) or str(exc.message)


def classify(exc: BaseException) -> RequestFailure | None:
    """The failure an exception stands for, or None if it is not a request failure.

    Args:
        exc: an exception raised while running a request.
    """
    # Only elasticsearch-py's API methods raise ApiError, and a worker imports elasticsearch-py only
    # when a runner first uses them (esbench.driver.transport.lazyclient): not imported, not an ApiError.
    elasticsearch = sys.modules.get("elasticsearch")
    if elasticsearch is not None and isinstance(exc, elasticsearch.ApiError):
        status = exc.meta.status if exc.meta is not None else None
        return RequestFailure(
            error_type=str(status) if status is not None else TRANSPORT,
            description=_api_error_description(exc),
            http_status=status,
        )
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return RequestFailure(error_type=TIMEOUT, description="the request timed out on the client side")
    if sys.modules.get("elastic_transport") is None:
        # Its classes were never imported (the fast path imports it with its first failure,
        # esbench.driver.transport.failures): exc is none of them.
        return None
    import elastic_transport  # already imported

    if isinstance(exc, elastic_transport.ConnectionTimeout):
        return RequestFailure(error_type=TIMEOUT, description="the request timed out on the client side")
    if isinstance(exc, elastic_transport.TlsError):
        return RequestFailure(error_type=TLS, description=f"TLS error: {exc.message}", fatal=True)
    if isinstance(exc, elastic_transport.ConnectionError):
        return RequestFailure(error_type=CONNECTION, description=f"connection error: {exc.message}")
    if isinstance(exc, elastic_transport.TransportError):
        return RequestFailure(error_type=TRANSPORT, description=str(exc.message))
    return None
