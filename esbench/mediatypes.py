"""Plain JSON media types for servers that refuse elasticsearch-py's compatibility ones.

elasticsearch-py 8 sends ``application/vnd.elasticsearch+json; compatible-with=8`` (and
``+x-ndjson``) in ``Accept`` and ``Content-Type``; OpenSearch and Elasticsearch before 8 answer
``406``. Both the load driver's client (:mod:`esbench.driver.transport.target`) and the metrics
store's (:mod:`esbench.results.store_client`) send the plain types instead to such servers.
"""

from __future__ import annotations

import re

from elastic_transport import HttpHeaders

_COMPAT_MEDIA_TYPE = re.compile(r"application/vnd\.elasticsearch\+([\w.-]+)(\s*;\s*compatible-with=\d+)?")


def plain_media_type(value: str) -> str:
    """``application/vnd.elasticsearch+json; compatible-with=8`` -> ``application/json``
    (``x-ndjson`` likewise); other values unchanged."""
    return _COMPAT_MEDIA_TYPE.sub(r"application/\1", value)


def plain_media_headers(headers: HttpHeaders | None) -> HttpHeaders | None:
    """A copy of ``headers`` whose ``Accept`` and ``Content-Type`` carry the plain media types
    (``headers`` itself is left alone); None stays None."""
    if not headers:
        return headers
    headers = headers.copy()
    for name in ("accept", "content-type"):
        if name in headers:
            headers[name] = plain_media_type(headers[name])
    return headers
