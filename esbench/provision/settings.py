"""Provisioning settings: which Elasticsearch to install, with which car, how many nodes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

#: The newest 8.x release whose integ-test distribution runs on Java 17 (Maven Central carries it).
DEFAULT_DISTRIBUTION_VERSION = "8.19.0"


class DistributionRepository(StrEnum):
    """``--distribution-repository``: where the Elasticsearch distribution comes from."""

    #: The full distribution from Elastic's download server when it answers, else Maven's
    #: (:mod:`esbench.provision.repositories`).
    AUTO = "auto"
    #: The integ-test distribution through the ``mvn`` client.
    MAVEN = "maven"
    #: The full tar.gz from Elastic's download server.
    ELASTIC = "elastic"


#: Accepted values of ``--distribution-repository``.
REPOSITORIES = tuple(r.value for r in DistributionRepository)

#: Elastic's download server layout for the full Linux tar.gz (Rally's ``release_url`` for 7.x+).
DEFAULT_ELASTIC_URL_TEMPLATE = (
    "https://artifacts.elastic.co/downloads/elasticsearch/elasticsearch-{version}-{os}-{arch}.tar.gz"
)

#: Unprivileged account that runs the nodes when esbench itself runs as root.
DEFAULT_RUN_AS_USER = "esbench"


@dataclass(frozen=True, kw_only=True)
class ProvisionSettings:
    """What ``provision_cluster`` installs and starts.

    Attributes:
        distribution_version: Elasticsearch version, e.g. ``"8.19.0"``.
        distribution_repository: ``"auto"`` (the full distribution from ``elastic_url_template`` when
            reachable, else Maven's; see :mod:`esbench.provision.repositories`), ``"maven"``
            (integ-test-zip via the ``mvn`` client, honouring the user's ``settings.xml``) or
            ``"elastic"`` (full tar.gz from ``elastic_url_template``).
        distribution_path: a local ``.zip``/``.tar.gz``; overrides the repository when set.
        car: comma-separated car and mixin names (``"defaults,4gheap"``), found in the built-in ``cars/``
            and ``$ESBENCH_HOME/cars``.
        car_params: overrides of car variables (``heap_size``...), like Rally's ``--car-params``.
        nodes: number of nodes on loopback forming one cluster.
        preserve_install: keep the installation directory (config, data, logs) after stop.
        run_as_user: account that runs the nodes; ``None`` means ``esbench`` when running as root, else
            the current user.
        offline: never contact a remote repository (``mvn -o``; ``elastic`` needs a cached archive).
        elastic_url_template: URL template for ``elastic``; ``{version}``, ``{os}``, ``{arch}`` are
            substituted. ``None``: ``$ESBENCH_DISTRIBUTION_URL`` or :data:`DEFAULT_ELASTIC_URL_TEMPLATE`.
        start_timeout: seconds to wait for a green cluster after the nodes were launched.
        stop_timeout: seconds between SIGTERM and SIGKILL when stopping a node.
        distribution_flavor: ``"elasticsearch"`` or ``"opensearch"`` (see
            :mod:`esbench.provision.flavors`).
        cluster_name: ``cluster.name`` of the nodes (Rally's ``--cluster-name``); None:
            ``esbench-<first 8 characters of the installation id>``.
        runtime_jdk: the JDK major version that runs the nodes (Rally's ``--runtime-jdk``), or
            ``"bundled"`` for the distribution's own ``jdk/``; None: the first suitable JDK
            (:func:`esbench.provision.java.find_java`).
    """

    distribution_version: str = DEFAULT_DISTRIBUTION_VERSION
    distribution_repository: DistributionRepository = DistributionRepository.AUTO
    distribution_path: Path | None = None
    car: str = "defaults"
    car_params: Mapping[str, object] = field(default_factory=dict)
    nodes: int = 1
    preserve_install: bool = False
    run_as_user: str | None = None
    offline: bool = False
    elastic_url_template: str | None = None
    start_timeout: float = 180.0
    stop_timeout: float = 30.0
    distribution_flavor: str = "elasticsearch"
    cluster_name: str | None = None
    runtime_jdk: str | None = None
