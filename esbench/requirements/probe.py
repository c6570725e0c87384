"""What a cluster has: its modules, plugins and ingest processor types (``GET _nodes/plugins,ingest``).

A feature counts as present only when *every* node has it: a pipeline or analyzer that one node
lacks fails on that node (Elasticsearch validates pipelines and index analysis on all nodes).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from esbench.driver.settings import timeout_text
from esbench.driver.transport.client import ClientOptions, ConnectionSettings, create_client, host_for_display
from esbench.exceptions import ConnectionFailed

if TYPE_CHECKING:
    from elasticsearch import AsyncElasticsearch


@dataclass(frozen=True, kw_only=True)
class ClusterCapabilities:
    """The modules, plugins and ingest processors present on every node of a cluster.

    Attributes:
        modules: module names (``"analysis-common"``, ``"x-pack-ml"``...).
        plugins: installed plugin names (``"analysis-icu"``...).
        processors: ingest processor types (``"set"``, ``"grok"``...).
        nodes: number of nodes that answered.
        version: the version of the first node, e.g. ``"8.19.0"``.
    """

    modules: frozenset[str]
    plugins: frozenset[str]
    processors: frozenset[str]
    nodes: int
    version: str | None = None

    def has_module(self, name: str) -> bool:
        """True if ``name`` is a module or an installed plugin on every node."""
        return name in self.modules or name in self.plugins


def capabilities_from_nodes_info(body: Mapping[str, Any]) -> ClusterCapabilities:
    """Build :class:`ClusterCapabilities` from a ``GET _nodes/plugins,ingest`` response body.

    Response shape (Elasticsearch nodes info API): ``{"nodes": {id: {"version": ..., "modules":
    [{"name": ...}], "plugins": [{"name": ...}], "ingest": {"processors": [{"type": ...}]}}}}``.
    """
    nodes = list((body.get("nodes") or {}).values())
    if not nodes:
        return ClusterCapabilities(modules=frozenset(), plugins=frozenset(), processors=frozenset(), nodes=0)

    def common(extract: Any) -> frozenset[str]:
        sets = [frozenset(extract(node)) for node in nodes]
        return frozenset.intersection(*sets)

    return ClusterCapabilities(
        modules=common(lambda n: (m.get("name") for m in n.get("modules") or ())),
        plugins=common(lambda n: (p.get("name") for p in n.get("plugins") or ())),
        processors=common(lambda n: (p.get("type") for p in (n.get("ingest") or {}).get("processors") or ())),
        nodes=len(nodes),
        version=nodes[0].get("version"),
    )


async def probe_capabilities(es: AsyncElasticsearch) -> ClusterCapabilities:
    """Ask a cluster through an ``AsyncElasticsearch`` client what it has (one request).

    Raises:
        Exception: whatever the client raises (the caller translates it).
    """
    response = await es.nodes.info(metric="plugins,ingest")
    return capabilities_from_nodes_info(response.body)


def probe_cluster(hosts: Sequence[str], client_options: ClientOptions | None = None) -> ClusterCapabilities:
    """Synchronous :func:`probe_capabilities` against ``hosts`` (``host:port`` strings).

    Raises:
        ConnectionFailed: the cluster cannot be reached or refuses the request.
    """

    async def run() -> ClusterCapabilities:
        es = create_client(ConnectionSettings.create(hosts, client_options or ClientOptions()))
        try:
            return await probe_capabilities(es)
        finally:
            await es.close()

    try:
        return asyncio.run(run())
    except ConnectionFailed:
        raise
    except Exception as e:  # translated into one user-facing paragraph
        where = ", ".join(host_for_display(h) for h in hosts)
        timeout = timeout_text((client_options or ClientOptions()).timeout)
        raise ConnectionFailed(
            f"Cannot ask Elasticsearch at {where} for its modules (GET _nodes/plugins,ingest): "
            f"{type(e).__name__}: {e}. Check --target-hosts and --client-options (a host that does not "
            f"answer is given up after the client timeout, {timeout}).",
            cause=e,
        ) from e
