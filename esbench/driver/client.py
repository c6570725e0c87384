"""The per-client factory of the load driver: :class:`EsbenchClient` and :func:`create_client`.

Client options, credentials and hosts are in :mod:`esbench.driver.connection` (re-exported here).

Every client of the driver gets its own :class:`EsbenchClient`: an ``AsyncElasticsearch`` whose
nodes are :class:`esbench.driver.http.TimedAiohttpNode` (for plugin runners that use the client
API) plus ``client.http``, the :class:`esbench.driver.http.HttpTransport` the built-in runners send
through: by default the lean :class:`esbench.driver.rawhttp.RawHttpTransport` (one keep-alive
connection per client, like Rally). Clients live for the whole race in their worker, so connections are reused
from task to task. Against OpenSearch (``ClientOptions.distribution_flavor``) the client API's nodes
are :class:`esbench.driver.target.PlainMediaTypeNode` (plain JSON media types; see that module).
"""

from __future__ import annotations

import functools
from typing import Any

from elasticsearch import AsyncElasticsearch

from esbench.driver.connection import (
    DEFAULT_TIMEOUT,
    ENV_API_KEY,
    ENV_PASSWORD,
    ENV_USERNAME,
    ClientOptions,
    ConnectionSettings,
    Credentials,
    client_options_from_mapping,
    host_for_display,
    host_urls,
    parse_client_options,
    resolve_credentials,
    split_credentials,
)
from esbench.driver.http import HttpTransport, NodeHttpTransport, TimedAiohttpNode
from esbench.driver.rawhttp import RawHttpTransport, ssl_context_for
from esbench.driver.target import PlainMediaTypeNode, uses_compat_media_types

__all__ = [
    "BASE_HEADERS",
    "DEFAULT_TIMEOUT",
    "ENV_API_KEY",
    "ENV_PASSWORD",
    "ENV_USERNAME",
    "ClientOptions",
    "ConnectionSettings",
    "Credentials",
    "EsbenchClient",
    "client_options_from_mapping",
    "create_client",
    "host_for_display",
    "host_urls",
    "parse_client_options",
    "resolve_credentials",
    "split_credentials",
]


class EsbenchClient(AsyncElasticsearch):
    """``AsyncElasticsearch`` plus ``http``, the transport built-in runners use (see module doc).

    elasticsearch-py's product check is off, as in Rally's ``RallyAsyncElasticsearch``
    (``esrally/client/asynchronous.py``): esbench identifies the target itself
    (:mod:`esbench.driver.target`), and the check would refuse OpenSearch.
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


#: Headers of the fast path (elasticsearch-py negotiates its own for API calls).
BASE_HEADERS = {"content-type": "application/json", "accept": "application/json"}


@functools.lru_cache(maxsize=8)
def _shared_ssl_context(
    verify_certs: bool, ca_certs: str | None, client_cert: str | None, client_key: str | None
) -> Any:
    # One TLS context per process (worker) and settings: loading CA files is slow, and a context
    # can serve any number of connections.
    return ssl_context_for(
        verify_certs=verify_certs, ca_certs=ca_certs, client_cert=client_cert, client_key=client_key
    )


def create_client(
    settings: ConnectionSettings, *, http: HttpTransport | None = None, fast_path: str = "raw"
) -> EsbenchClient:
    """A new client for one driver client.

    Args:
        settings: hosts, options and credentials.
        http: the transport of ``client.http`` (e.g. static responses); default: see ``fast_path``.
        fast_path: ``"raw"`` (:class:`esbench.driver.rawhttp.RawHttpTransport`, the default) or
            ``"elasticsearch-py"`` (:class:`esbench.driver.http.NodeHttpTransport` through the
            client's aiohttp nodes).
    """
    options = settings.options
    compat = uses_compat_media_types(options.distribution_flavor, options.distribution_version)
    kwargs: dict[str, Any] = {
        "request_timeout": options.timeout,
        "node_class": TimedAiohttpNode if compat else PlainMediaTypeNode,
        # A benchmark must see every failure: no transparent retries.
        "max_retries": 0,
        "retry_on_timeout": False,
        "http_compress": options.http_compress,
    }
    if options.max_connections:
        kwargs["connections_per_node"] = options.max_connections
    if any(url.startswith("https://") for url in settings.urls):
        kwargs["verify_certs"] = options.verify_certs
        if not options.verify_certs:
            kwargs["ssl_show_warn"] = False
        if options.ca_certs:
            kwargs["ca_certs"] = options.ca_certs
        if options.client_cert:
            kwargs["client_cert"] = options.client_cert
        if options.client_key:
            kwargs["client_key"] = options.client_key
    credentials = settings.credentials
    if credentials.api_key:
        key = credentials.api_key
        kwargs["api_key"] = tuple(key.split(":", 1)) if ":" in key else key
    elif credentials.username is not None:
        kwargs["basic_auth"] = (credentials.username, credentials.password or "")
    client = EsbenchClient(list(settings.urls), **kwargs)
    if http is None:
        headers = {**BASE_HEADERS, **credentials.headers()}
        if fast_path == "elasticsearch-py":
            if options.http_compress:
                headers["accept-encoding"] = "gzip"
            http = NodeHttpTransport(client.transport.node_pool.all(), headers)
        else:
            secure = any(url.startswith("https://") for url in settings.urls)
            http = RawHttpTransport(
                settings.urls,
                headers,
                timeout=options.timeout,
                ssl_context=_shared_ssl_context(
                    options.verify_certs, options.ca_certs, options.client_cert, options.client_key
                )
                if secure
                else None,
                http_compress=options.http_compress,
            )
    client.http = http
    return client
