"""Which product and version a target cluster runs: Elasticsearch or OpenSearch.

esbench talks to both through one client (:mod:`esbench.driver.transport.client`), but two things depend on
the product: elasticsearch-py's product check (it refuses any server that does not send
``X-Elastic-Product: Elasticsearch``) and its REST-compatibility media types
(``application/vnd.elasticsearch+json; compatible-with=8``), which OpenSearch rejects with
``406 Content-Type header [...] is not supported``. :func:`detect_distribution` asks the cluster
through esbench's raw HTTP path with plain ``application/json``, which every version of both
products accepts, before any elasticsearch-py request is made.

Detection, in order:

1. ``GET /``: ``version.distribution`` is ``"opensearch"`` on OpenSearch (absent on
   Elasticsearch); ``version.number`` is the version.
2. When ``GET /`` is not answered with 200 (the Elasticsearch integ-test distribution answers 405
   from 8.9): ``GET /_nodes/_local`` and the ``version`` of the local node; the product is
   Elasticsearch (OpenSearch always answers ``GET /``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum

from elastic_transport import HttpHeaders
from elastic_transport._node import NodeApiResponse
from elastic_transport.client_utils import DEFAULT, DefaultType

from esbench.driver.transport.http import HttpTransport, RawResponse
from esbench.driver.transport.nodes import TimedAiohttpNode
from esbench.mediatypes import plain_media_headers


class TargetFlavor(StrEnum):
    """The product a cluster runs."""

    ELASTICSEARCH = "elasticsearch"
    OPENSEARCH = "opensearch"


#: Product names for messages and reports.
PRODUCT_NAMES = {TargetFlavor.ELASTICSEARCH: "Elasticsearch", TargetFlavor.OPENSEARCH: "OpenSearch"}


@dataclass(frozen=True, kw_only=True)
class TargetDistribution:
    """What :func:`detect_distribution` found.

    Attributes:
        flavor: ``elasticsearch`` or ``opensearch``.
        version: the version the node reports (``"2.18.0"``), None if it reported none.
    """

    flavor: TargetFlavor
    version: str | None

    @property
    def product(self) -> str:
        """``"Elasticsearch"`` or ``"OpenSearch"``."""
        return PRODUCT_NAMES[self.flavor]


class TargetHttpError(Exception):
    """The cluster answered the detection request with an error status.

    Attributes:
        status_code: the HTTP status (401: credentials rejected, 403: privilege missing).
        reason: the error ``type``/``reason`` from the body, or its start.
    """

    def __init__(self, status_code: int, reason: str) -> None:
        super().__init__(f"HTTP {status_code}: {reason}")
        self.status_code = status_code
        self.reason = reason


def _json(resp: RawResponse) -> dict[str, object]:
    try:
        body = json.loads(resp.body or b"{}")
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _reason(resp: RawResponse) -> str:
    error = _json(resp).get("error")
    if isinstance(error, dict):
        return f"{error.get('type', '')}: {error.get('reason', '')}".strip(": ")
    if isinstance(error, str):
        return error
    return resp.body[:200].decode("utf-8", errors="replace")


async def detect_distribution(http: HttpTransport) -> TargetDistribution:
    """Ask the cluster behind ``http`` which product and version it runs (see the module doc).

    Raises:
        TargetHttpError: 401 or 403 (credentials), or ``_nodes/_local`` answered an error.
        elastic_transport.ConnectionError / TlsError / ConnectionTimeout: transport failures.
    """
    root = await http.request("GET", "/")
    if root.status in (401, 403):
        raise TargetHttpError(root.status, _reason(root))
    if root.status == 200:
        version = _json(root).get("version")
        if isinstance(version, dict):
            flavor = (
                TargetFlavor.OPENSEARCH
                if version.get("distribution") == TargetFlavor.OPENSEARCH.value
                else TargetFlavor.ELASTICSEARCH
            )
            number = version.get("number")
            return TargetDistribution(flavor=flavor, version=str(number) if number else None)
    local = await http.request("GET", "/_nodes/_local?filter_path=nodes.*.version")
    if not local.ok:
        raise TargetHttpError(local.status, _reason(local))
    nodes = _json(local).get("nodes")
    version = next((n.get("version") for n in nodes.values()), None) if isinstance(nodes, dict) else None
    return TargetDistribution(flavor=TargetFlavor.ELASTICSEARCH, version=str(version) if version else None)


def uses_compat_media_types(flavor: str | None, version: str | None) -> bool:
    """Whether elasticsearch-py's ``compatible-with`` media types may be sent to the target.

    Rally's rule (``esrally/client/asynchronous.py``, ``RallyAsyncElasticsearch.perform_request``):
    only to Elasticsearch 8 or newer. Unknown flavor and version (no detection yet) keep
    elasticsearch-py's default.
    """
    if flavor is None:
        return True
    if flavor != TargetFlavor.ELASTICSEARCH.value:
        return False
    major = re.match(r"(\d+)\.", version or "")
    return major is None or int(major.group(1)) >= 8


class PlainMediaTypeNode(TimedAiohttpNode):
    """:class:`esbench.driver.transport.nodes.TimedAiohttpNode` that sends plain ``application/json`` and
    ``application/x-ndjson`` instead of elasticsearch-py's compatibility media types, for targets
    that reject them (OpenSearch, Elasticsearch before 8)."""

    # elastic-transport declares BaseNode.perform_request synchronous; its async nodes override it
    # with a coroutine, as this one does.
    async def perform_request(  # type: ignore[override]
        self,
        method: str,
        target: str,
        body: bytes | None = None,
        headers: HttpHeaders | None = None,
        request_timeout: float | DefaultType | None = DEFAULT,
    ) -> NodeApiResponse:
        return await super().perform_request(
            method, target, body=body, headers=plain_media_headers(headers), request_timeout=request_timeout
        )
