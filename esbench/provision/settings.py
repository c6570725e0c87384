"""Provisioning settings: which Elasticsearch to install, with which car, how many nodes."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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
    #: Rally's and OSB's default, the product's own release server: Elastic's download server for
    #: Elasticsearch (taken as :attr:`ELASTIC`), ``artifacts.opensearch.org`` for OpenSearch (OSB 2.4.0
    #: ``osbenchmark/builder/supplier.py`` ``DistributionRepository``, the ``release_url`` of its
    #: bundled ``vanilla`` cluster config; :data:`OPENSEARCH_RELEASE_URL_TEMPLATE`).
    RELEASE = "release"


#: Accepted values of ``--distribution-repository``.
REPOSITORIES = tuple(r.value for r in DistributionRepository)

#: Elastic's download server layout for the full Linux tar.gz (Rally's ``release_url`` for 7.x+).
DEFAULT_ELASTIC_URL_TEMPLATE = (
    "https://artifacts.elastic.co/downloads/elasticsearch/elasticsearch-{version}-{os}-{arch}.tar.gz"
)

#: OpenSearch's release server layout of the full bundle, OSB 2.4.0's ``jdk.bundled.release_url``
#: (``osbenchmark/resources/cluster_configs/main/cluster_configs/v1/vanilla/config.ini``) written with
#: esbench's placeholders: ``{os}`` is ``linux``, ``{arch}`` ``x64`` or ``arm64`` (OpenSearch's names).
OPENSEARCH_RELEASE_URL_TEMPLATE = (
    "https://artifacts.opensearch.org/releases/bundle/opensearch/{version}/"
    "opensearch-{version}-{os}-{arch}.tar.gz"
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
            ``"elastic"`` (full tar.gz from ``elastic_url_template``); ``"release"`` is OpenSearch's
            full bundle from its release server (for Elasticsearch the CLI takes it as ``elastic``).
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
        installation_id: the id of the new installation (Rally's ``install --installation-id``); None:
            a new UUID.
        node_name: ``node.name`` of the node (Rally's ``--node-name``); with several nodes,
            ``NAME-0`` ... ; None: ``node-0`` ...
        node_java_options: called at install with the JDK major version the nodes run on and a
            node's telemetry directory (``<node dir>/telemetry``, writable by the node's account);
            returns JVM options added to that node's ``jvm.options.d/esbench.options``. Race
            control passes the telemetry devices' options here (``jit``, ``gc``, ``jfr``: Rally's
            ``instrument_java_opts``); files in the telemetry directory move to
            ``<race dir>/telemetry/<node>/`` when the node stops.
        team_path: a rally-teams checkout (``--team-path``): ``car`` names its ``cars/v1/*.ini`` and
            the node configuration is rendered from its templates (:mod:`esbench.provision.teams`).
        team_repository: a named team repository (``--team-repository``; ``[teams] NAME.url`` of
            esbench.ini, :mod:`esbench.provision.teamrepos`).
        team_revision: commit, tag or branch of the team repository (``--team-revision``).
        elasticsearch_plugins: ``--elasticsearch-plugins`` as given (``"analysis-icu,x:cfg"``), ``""``
            for none (:mod:`esbench.provision.plugins`).
        plugin_params: ``--plugin-params``: variables for every plugin's templates.
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
    installation_id: str | None = None
    node_name: str | None = None
    node_java_options: Callable[[int, Path], Sequence[str]] | None = None
    team_path: Path | None = None
    team_repository: str | None = None
    team_revision: str | None = None
    elasticsearch_plugins: str = ""
    plugin_params: Mapping[str, object] = field(default_factory=dict)
