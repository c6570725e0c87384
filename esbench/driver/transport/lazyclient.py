"""The ``es`` of a worker's client: the fast path at once, elasticsearch-py on first use.

Built-in runners send through ``es.http`` (:class:`esbench.driver.transport.rawhttp.RawHttpTransport`)
and never call elasticsearch-py's API methods; importing elasticsearch-py costs a worker ~8 MiB
(issue 25). :class:`LazyClient` therefore holds the fast path from the start and builds the
:class:`esbench.driver.transport.esclient.EsbenchClient` (same settings, same ``http``) the first
time anything else is asked of it (``es.indices``, ``es.search``, ``es.options``...), then forwards
every attribute to that client, so runners that use the client API (plugins, Rally's runners) see
the same methods, connections and settings as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from esbench.driver.transport.client import ConnectionSettings, create_client, raw_transport
from esbench.driver.transport.http import HttpTransport

if TYPE_CHECKING:
    from esbench.driver.transport.esclient import EsbenchClient


class LazyClient:
    """One driver client: ``http`` now, the elasticsearch-py client when first needed.

    Args:
        settings: hosts, options and credentials (as for
            :func:`esbench.driver.transport.client.create_client`).
        http: the fast path; default :func:`esbench.driver.transport.client.raw_transport`.

    Attribute access other than ``http``, ``settings`` and :meth:`close` goes to :attr:`api`; errors
    are elasticsearch-py's own.
    """

    def __init__(self, settings: ConnectionSettings, *, http: HttpTransport | None = None) -> None:
        self.settings = settings
        self.http: HttpTransport = http if http is not None else raw_transport(settings)
        self._api: EsbenchClient | None = None
        self._clusters: dict[str, Any] | None = None

    def clusters(self) -> dict[str, Any]:
        """This client as ``default`` and one client of each other cluster of a multi-cluster race
        (``settings.others``), built on first call and kept: what a track plugin's runner that
        declares ``multi_cluster`` receives (Rally's ``MultiClientRunner``)."""
        if self._clusters is None:
            self._clusters = {"default": self}
            for name, settings in self.settings.others:
                self._clusters[name] = LazyClient(settings)
        return self._clusters

    @property
    def api(self) -> EsbenchClient:
        """The elasticsearch-py client (built, and elasticsearch-py imported, on first access)."""
        if self._api is None:
            self._api = create_client(self.settings, http=self.http)
        return self._api

    @property
    def api_created(self) -> bool:
        """True once :attr:`api` was built."""
        return self._api is not None

    def __getattr__(self, name: str) -> Any:
        # Only called for names this object lacks: the client API.
        if name.startswith("__") or name == "_api":
            raise AttributeError(name)
        return getattr(self.api, name)

    async def close(self) -> None:
        """Close the fast path's connections and, if it was built, the elasticsearch-py client (and
        the other clusters' clients)."""
        for name, other in (self._clusters or {}).items():
            if name != "default":
                await other.close()
        if self._api is not None:
            await self._api.close()  # closes http too
        else:
            await self.http.close()
