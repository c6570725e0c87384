"""The elasticsearch-py client of one driver client (:class:`EsbenchClient`).

Apart from :mod:`esbench.driver.transport.client` so that importing the client options, the
connection settings or the fast path does not import elasticsearch-py (~8 MiB per process).
"""

from __future__ import annotations

from typing import Any

from elasticsearch import AsyncElasticsearch

from esbench.driver.transport.http import HttpTransport


class EsbenchClient(AsyncElasticsearch):
    """``AsyncElasticsearch`` plus ``http``, the transport built-in runners use (see
    :mod:`esbench.driver.transport.client`).

    elasticsearch-py's product check is off, as in Rally's ``RallyAsyncElasticsearch``
    (``esrally/client/asynchronous.py``): esbench identifies the target itself
    (:mod:`esbench.driver.transport.target`), and the check would refuse OpenSearch.
    """

    http: HttpTransport

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._verified_elasticsearch = True

    async def close(self) -> None:
        """Close the fast-path connections and the elasticsearch-py transport."""
        http = getattr(self, "http", None)
        if http is not None:
            await http.close()
        await super().close()
