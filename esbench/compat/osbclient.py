"""The client an OSB workload's plugin runner gets: esbench's, with opensearch-py's transport.

OSB hands plugin runners an opensearch-py ``AsyncOpenSearch``, whose
``transport.perform_request(method, url, headers=None, params=None, body=None)`` returns the
deserialized response body (opensearch-py ``AsyncTransport.perform_request``). esbench's client is
elasticsearch-py's, whose ``transport.perform_request`` returns a ``(meta, body)`` pair: the public
vectorsearch workload's ``warmup-knn-indices`` runner indexes that pair with ``['_shards']`` and
fails. :func:`osb_client` wraps a client so that ``transport.perform_request`` answers as
opensearch-py's does; everything else is the client itself (a Rally-style runner sees no
difference). Errors stay elasticsearch-py's (``ApiError`` for a 4xx/5xx), not opensearch-py's.
"""

from __future__ import annotations

from typing import Any


class OsbTransport:
    """``transport`` of :class:`OsbClient`: opensearch-py's ``perform_request`` over esbench's client."""

    def __init__(self, client: Any) -> None:
        self._client = client

    async def perform_request(
        self,
        method: str,
        url: str,
        headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None,
        body: Any = None,
    ) -> Any:
        """Send the request; the response body (a dict for JSON), as opensearch-py returns it.

        Raises:
            elasticsearch.ApiError: the server answered with an error status.
        """
        response = await self._client.perform_request(method, url, params=params, headers=headers, body=body)
        return response.body

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client.transport, name)


class OsbClient:
    """esbench's client as an OSB plugin runner expects it (module doc)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.transport = OsbTransport(client)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def osb_client(client: Any) -> Any:
    """``client`` for an OSB plugin runner; a multi-cluster runner's ``{name: client}`` likewise."""
    if isinstance(client, dict):
        return {name: OsbClient(c) for name, c in client.items()}
    return OsbClient(client)
