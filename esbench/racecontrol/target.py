"""Stages 2 and 3 of a race: provision the target cluster (from-distribution) and connect to it.

The pipeline is Rally's: ``benchmark-only`` races the cluster at ``--target-hosts``,
``from-distribution`` provisions a local cluster from ``cars/`` first (and stops it after the race).
Connecting asks the product and version (GET /), the health and a stats snapshot; the snapshot
taken after the race gives the cluster metrics.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import elastic_transport

from esbench.console import Console
from esbench.driver.settings import ClusterTarget
from esbench.driver.transport.client import ConnectionSettings, EsbenchClient, create_client
from esbench.driver.transport.target import TargetDistribution, TargetHttpError, detect_distribution
from esbench.exceptions import ConfigError, ConnectionFailed
from esbench.metrics.cluster import ClusterStatsSnapshot, take_cluster_snapshot
from esbench.provision import ProvisionedCluster, provision_cluster
from esbench.provision.flavors import get_flavor
from esbench.provision.repositories import RepositoryChoice, pin_repository
from esbench.settings import PIPELINE_BENCHMARK_ONLY, PIPELINE_FROM_DISTRIBUTION, RaceSettings
from esbench.targets import secured_client_options, unreachable_message
from esbench.telemetry.race import node_java_options

# The race log names the logger: race control keeps the one name it had as a module.
logger = logging.getLogger("esbench.racecontrol")


@dataclass(frozen=True, kw_only=True)
class ClusterInfo:
    """What the race records about the target cluster: version and node count, and the product
    (``elasticsearch`` or ``opensearch``, :mod:`esbench.driver.transport.target`)."""

    version: str | None
    nodes: int | None
    flavor: str | None = None


@dataclass(frozen=True, kw_only=True)
class TargetCluster:
    """The cluster a race runs against.

    Attributes:
        hosts: ``host:port`` strings to connect to.
        settings: the race settings, with the client options of a provisioned secured cluster.
        car: the provisioned cluster's car, or ``external`` (benchmark-only).
        distribution_version: the provisioned version, or None (benchmark-only).
        repository: where the provisioned distribution came from, or None (benchmark-only).
        provisioned: the provisioned cluster, stopped by :meth:`stop`; None (benchmark-only).
    """

    hosts: tuple[str, ...]
    settings: RaceSettings
    car: str = "external"
    distribution_version: str | None = None
    repository: RepositoryChoice | None = None
    provisioned: ProvisionedCluster | None = None

    def stop(self, console: Console) -> None:
        """Stop a provisioned cluster (keeping its installation with ``--preserve-install``)."""
        if self.provisioned is not None:
            console.info("Stopping the cluster...")
            self.provisioned.stop(preserve_install=self.settings.provision.preserve_install)


#: The cluster ``benchmark-only`` races when no ``--target-hosts`` are given: Rally's and OSB's
#: default (Rally 2.13 ``esrally/racecontrol.py`` ``set_default_hosts``, called by its
#: ``benchmark_only`` pipeline; OSB 2.4.0 ``osbenchmark/test_run_orchestrator.py`` likewise).
DEFAULT_TARGET_HOSTS = ("127.0.0.1:9200",)


def resolve_pipeline(settings: RaceSettings) -> str:
    """The pipeline to run: the explicit one, else ``benchmark-only`` with target hosts and
    ``from-distribution`` without. An explicit ``benchmark-only`` without target hosts races
    :data:`DEFAULT_TARGET_HOSTS` (:func:`provision`), as Rally and OSB do.

    Raises:
        ConfigError: ``from-distribution`` with target hosts; team or plugin options with target
            hosts.
    """
    pipeline = settings.pipeline
    prov = settings.provision
    if settings.target_hosts and (
        prov.team_path or prov.team_repository or prov.team_revision or prov.elasticsearch_plugins
    ):
        # These options shape a cluster esbench provisions; on someone else's cluster they would do nothing.
        raise ConfigError(
            "--team-path, --team-repository, --team-revision and --elasticsearch-plugins configure the "
            "cluster esbench provisions, but --target-hosts races an existing one: drop them, or drop "
            "--target-hosts to race a node provisioned from that team."
        )
    if pipeline is None:
        return PIPELINE_BENCHMARK_ONLY if settings.target_hosts else PIPELINE_FROM_DISTRIBUTION
    if pipeline == PIPELINE_FROM_DISTRIBUTION and settings.target_hosts:
        raise ConfigError(
            "--pipeline=from-distribution provisions its own cluster and cannot be combined with "
            "--target-hosts: drop one of the two options."
        )
    return pipeline


def provision(settings: RaceSettings, pipeline: str, race_dir: Path, console: Console) -> TargetCluster:
    """The cluster at ``--target-hosts`` (benchmark-only; :data:`DEFAULT_TARGET_HOSTS` without
    them), or one provisioned into ``race_dir``.

    Raises:
        EsbenchError: the distribution cannot be found or downloaded, or the nodes do not start.
    """
    if pipeline != PIPELINE_FROM_DISTRIBUTION:
        if not settings.target_hosts:
            console.info(
                f"No --target-hosts: racing {', '.join(DEFAULT_TARGET_HOSTS)}, the default of Rally's "
                "and OSB's benchmark-only pipeline."
            )
            settings = replace(settings, target_hosts=DEFAULT_TARGET_HOSTS)
        return TargetCluster(hosts=settings.target_hosts, settings=settings)
    prov = settings.provision
    console.info(
        f"Provisioning {get_flavor(prov.distribution_flavor).product} {prov.distribution_version} "
        f"({prov.nodes} node{'s' if prov.nodes != 1 else ''}, car {prov.car})..."
    )
    prov = replace(
        prov,
        offline=settings.offline or prov.offline,
        # jit, gc, jfr: their JVM options, for each node's JDK and telemetry directory.
        node_java_options=partial(node_java_options, settings.telemetry),
    )
    prov, repository = pin_repository(prov, notify=console.warn)
    if not repository.fallback:
        console.info(f"Distribution: {repository.reason}")
    cluster = provision_cluster(prov, race_dir=race_dir)
    console.info(f"Cluster up at {', '.join(cluster.hosts)}")
    if cluster.security is not None:
        options = secured_client_options(settings.client_options, cluster.security)
        settings = replace(settings, client_options=options)
        console.info(f"The cluster speaks HTTPS with basic auth; CA certificate: {cluster.security.ca_cert}")
    return TargetCluster(
        hosts=cluster.hosts,
        settings=settings,
        car=cluster.car,
        distribution_version=cluster.version,
        repository=repository,
        provisioned=cluster,
    )


def connect(
    hosts: tuple[str, ...], settings: RaceSettings, known: TargetDistribution | None = None
) -> tuple[ClusterInfo, ClusterStatsSnapshot | None]:
    """Check that the cluster answers; return its version and node count and a stats snapshot.

    ``known`` is the product and version already detected at ``hosts`` in this race (then not
    asked again).

    Raises:
        ConnectionFailed: the hosts are unreachable or reject the credentials.
    """

    async def probe() -> tuple[ClusterInfo, ClusterStatsSnapshot | None]:
        # The product decides the media types the client API may send, so it is asked first,
        # through the raw HTTP path that both products accept.
        target = known or await detect(hosts, settings)
        options = replace(
            settings.client_options,
            distribution_flavor=target.flavor.value,
            distribution_version=target.version,
        )
        es = create_client(ConnectionSettings.create(hosts, options))
        try:
            try:
                health = await es.cluster.health()
            except Exception as e:  # translated into one user-facing error
                raise ConnectionFailed(unreachable_message(hosts, e, settings.client_options), cause=e) from e
            snapshot = await take_cluster_snapshot(es)
            info = ClusterInfo(
                version=target.version, nodes=health.body.get("number_of_nodes"), flavor=target.flavor.value
            )
            return info, snapshot
        finally:
            await es.close()

    return asyncio.run(probe())


def with_cluster(settings: RaceSettings, info: ClusterInfo) -> RaceSettings:
    """``settings`` whose client options know the connected cluster's product and version."""
    return replace(
        settings,
        client_options=replace(
            settings.client_options, distribution_flavor=info.flavor, distribution_version=info.version
        ),
    )


async def detect(hosts: tuple[str, ...], settings: RaceSettings) -> TargetDistribution:
    """The product and version at ``hosts`` (GET /, or its fallback).

    Raises:
        ConnectionFailed: the hosts do not answer.
    """
    es = admin_client(hosts, settings)
    try:
        return await detect_distribution(es.http)
    except (TargetHttpError, elastic_transport.TransportError) as e:
        raise ConnectionFailed(unreachable_message(hosts, e, settings.client_options), cause=e) from e
    finally:
        await es.close()


def admin_client(hosts: tuple[str, ...], settings: RaceSettings) -> EsbenchClient:
    """A client for race control's own requests (probes, snapshots, telemetry)."""
    return create_client(ConnectionSettings.create(hosts, settings.client_options))


def cluster_admin_clients(settings: RaceSettings) -> dict[str, Callable[[], EsbenchClient]]:
    """Factories of race control's clients of a multi-cluster race's other clusters, by name
    (telemetry samples them too)."""

    def factory(cluster: ClusterTarget) -> Callable[[], EsbenchClient]:
        return lambda: create_client(ConnectionSettings.create(cluster.hosts, cluster.options))

    return {c.name: factory(c) for c in settings.driver.other_clusters}


def final_snapshot(hosts: tuple[str, ...], settings: RaceSettings) -> ClusterStatsSnapshot | None:
    """The stats snapshot after the race, or None when the cluster no longer answers."""

    async def take() -> ClusterStatsSnapshot:
        es = admin_client(hosts, settings)
        try:
            return await take_cluster_snapshot(es)
        finally:
            await es.close()

    try:
        return asyncio.run(take())
    except Exception:  # a lost node must not lose the race's measurements
        logger.warning("could not take the final cluster snapshot", exc_info=True)
        return None
