"""Whether the cluster has the REST API of an optional feature (CCR, transforms, searchable snapshots,
GeoIP: x-pack plugins and modules that minimal distributions lack).

A distribution without the plugin has no handler for the path: Elasticsearch answers 400 ("no
handler found for uri") or, when another route shares the path with another method, 405
("Incorrect HTTP method ... allowed: [POST]"; the integ-test build 8.8.2 answers this to
``GET /_ccr/stats`` and ``GET /_searchable_snapshots/stats``, seen in Rally's log of a race there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from elasticsearch import ApiError

#: HTTP statuses with which Elasticsearch says it has no such endpoint.
_NO_ENDPOINT = (400, 404, 405)


def missing_api_reason(error: ApiError) -> str | None:
    """Why the cluster lacks the endpoint that raised ``error`` (its status and message), or None
    when ``error`` is another failure (a 400 about a parameter, a 404 of a missing resource)."""
    status = error.meta.status
    text = str(error.message) + " " + str(error.body)
    if status in _NO_ENDPOINT and ("no handler found" in text or "Incorrect HTTP method" in text):
        return f"HTTP {status}: {error.message}"
    return None
