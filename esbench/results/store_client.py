"""The elasticsearch-py client of the metrics store, for Elasticsearch (Rally's layout) and
OpenSearch (OSB's layout).

elasticsearch-py 8 refuses a server that does not say ``X-Elastic-Product: Elasticsearch`` and sends
its REST-compatibility media types (``application/vnd.elasticsearch+json; compatible-with=8``),
which OpenSearch rejects with ``406``. OSB's store is OpenSearch (osbenchmark/metrics.py talks to it
with opensearch-py), and one store may hold both tools' races, so the client skips the product
check, as Rally's own client does, and sends plain ``application/json`` / ``application/x-ndjson``,
which both products accept (Elasticsearch 8 and 9 too). Whether the store suits a layout is the
writer's version check (:mod:`esbench.results.store_writer`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from elastic_transport import HttpHeaders, Urllib3HttpNode
from elastic_transport._node import NodeApiResponse
from elastic_transport.client_utils import DEFAULT, DefaultType
from elasticsearch import Elasticsearch

from esbench.mediatypes import plain_media_headers

if TYPE_CHECKING:
    from esbench.results.metrics_store import MetricsStoreSettings


class PlainMediaTypeNode(Urllib3HttpNode):
    """elastic-transport's urllib3 node that sends plain media types (see the module docstring)."""

    def perform_request(
        self,
        method: str,
        target: str,
        body: bytes | None = None,
        headers: HttpHeaders | None = None,
        request_timeout: float | DefaultType | None = DEFAULT,
    ) -> NodeApiResponse:
        return super().perform_request(
            method, target, body=body, headers=plain_media_headers(headers), request_timeout=request_timeout
        )


class StoreClient(Elasticsearch):
    """``Elasticsearch`` without the product check; ``options()`` copies keep it off (they are
    built by ``type(self)(...)``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # elasticsearch-py's own switch of the product check (set once a server said Elasticsearch).
        self._verified_elasticsearch = True


def store_client(settings: MetricsStoreSettings) -> Elasticsearch:
    """A client of the store of ``settings`` (hosts, TLS, credentials, timeout in s) that talks to
    Elasticsearch and OpenSearch alike (see the module docstring). Nothing is sent yet."""
    kwargs: dict[str, Any] = {
        "hosts": list(settings.hosts),
        "request_timeout": settings.timeout_s,
        "verify_certs": settings.verify_certs,
    }
    if settings.ca_certs is not None:
        kwargs["ca_certs"] = str(settings.ca_certs)
    if not settings.verify_certs:
        kwargs["ssl_show_warn"] = False
    if settings.api_key:
        kwargs["api_key"] = settings.api_key
    elif settings.username is not None:
        kwargs["basic_auth"] = (settings.username, settings.password or "")
    return StoreClient(node_class=PlainMediaTypeNode, **kwargs)
