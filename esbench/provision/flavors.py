"""Distribution flavors: what differs between provisioning Elasticsearch and OpenSearch.

OpenSearch 2.x is a fork of Elasticsearch 7.10 and keeps its layout, so one provisioning code path
serves both; a :class:`Flavor` names the few things that differ:

* Maven integ-test zip: ``org.elasticsearch.distribution.integ-test-zip:elasticsearch:<v>:zip`` /
  ``org.opensearch.distribution.integ-test-zip:opensearch:<v>:zip``; the release server
  (``--distribution-repository=release``): Elastic's download server / OpenSearch's
  (:func:`esbench.provision.repositories.opensearch_release_url`, OSB 2.4.0's ``release`` repository);
* launcher and settings file: ``bin/elasticsearch``, ``elasticsearch.yml`` / ``bin/opensearch``,
  ``opensearch.yml``;
* launcher environment: ``ES_JAVA_HOME``, ``ES_PATH_CONF``, ``ES_TMPDIR`` /
  ``OPENSEARCH_JAVA_HOME``, ``OPENSEARCH_PATH_CONF``, ``OPENSEARCH_TMPDIR``;
* version jar: ``lib/elasticsearch-<v>.jar`` / ``lib/opensearch-<v>.jar``;
* multi-node bootstrap: ``cluster.initial_master_nodes`` / ``cluster.initial_cluster_manager_nodes``.

Sources: the OpenSearch distribution's ``bin/opensearch-env`` (environment variables), the
OpenSearch 2.0 release notes (``cluster.initial_cluster_manager_nodes`` replaces the deprecated
``initial_master_nodes``), and OpenSearch's "Installing OpenSearch: compatible Java versions" page
(2.x runs on Java 11, 17 and 21; 2.x still uses the Java Security Manager, which JDK 24 removed, so
Java 23 is the newest that starts it; 3.0 dropped the Security Manager and needs Java 21+).
The integ-test zip of OpenSearch carries only the ``transport-netty4`` module: no security plugin.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from esbench.exceptions import SupplyError, UserError
from esbench.provision import distributions
from esbench.provision.archives import COMPLETE_MARKER, file_lock, unpack
from esbench.provision.distributions import Distribution
from esbench.provision.java import java_requirement
from esbench.provision.repositories import distributions_cache, opensearch_release_url
from esbench.provision.settings import DEFAULT_DISTRIBUTION_VERSION, DistributionRepository, ProvisionSettings
from esbench.provision.versions import parse_version

#: Majors of the OpenSearch releases (1.0.0 in 2021 to 3.x) that name no Elasticsearch esbench can
#: provision: Elasticsearch 3 never existed, 1.x and 2.x are far below the oldest Elasticsearch esbench
#: starts (its node files use ``jvm.options.d``, read since Elasticsearch 7.7) and below Rally 2.13's
#: floor (``esrally/min-es-version.txt``: 6.8.0). OSB 2.4.0's floor is OpenSearch 1.0.0
#: (``osbenchmark/min-os-version.txt``).
OPENSEARCH_ONLY_MAJORS = frozenset({1, 2, 3})


class DistributionFlavor(StrEnum):
    """Accepted values of ``--distribution-flavor``."""

    ELASTICSEARCH = "elasticsearch"
    OPENSEARCH = "opensearch"


@dataclass(frozen=True, kw_only=True)
class Flavor:
    """The flavor-specific names of a distribution (see the module docstring for the values).

    Attributes:
        name: the ``--distribution-flavor`` value.
        product: the product name used in messages (``"OpenSearch"``).
        executable: the launcher below ``bin/`` and the prefix of ``lib/<executable>-<version>.jar``.
        config_file: the node settings file in the config directory.
        java_home_env / path_conf_env / tmpdir_env: environment variables of the launcher.
        initial_masters_setting: the setting that bootstraps a multi-node cluster.
        maven_group / maven_artifact: Maven coordinates of the integ-test zip.
        default_version: the version provisioned when ``--distribution-version`` is not given.
    """

    name: DistributionFlavor
    product: str
    executable: str
    config_file: str
    java_home_env: str
    path_conf_env: str
    tmpdir_env: str
    initial_masters_setting: str
    maven_group: str
    maven_artifact: str
    default_version: str

    def maven_coordinates(self, version: str) -> str:
        """``group:artifact:version:zip`` of the integ-test distribution."""
        return f"{self.maven_group}:{self.maven_artifact}:{version}:zip"

    def java_requirement(self, version: str) -> tuple[int, int | None]:
        """The (minimum, maximum or None) Java feature version that runs ``version``."""
        if self.name is DistributionFlavor.ELASTICSEARCH:
            return java_requirement(version)
        v = parse_version(version)
        if v.major >= 3:
            return 21, None
        if v.major == 2:
            return 11, 23
        return 8, 15

    def detect_version(self, home: Path) -> str | None:
        """The version of the distribution at ``home``, from ``lib/<executable>-<version>.jar``."""
        return distributions.detect_version(home, self.executable)


ELASTICSEARCH = Flavor(
    name=DistributionFlavor.ELASTICSEARCH,
    product="Elasticsearch",
    executable="elasticsearch",
    config_file="elasticsearch.yml",
    java_home_env="ES_JAVA_HOME",
    path_conf_env="ES_PATH_CONF",
    tmpdir_env="ES_TMPDIR",
    initial_masters_setting="cluster.initial_master_nodes",
    maven_group=distributions.MAVEN_GROUP,
    maven_artifact=distributions.MAVEN_ARTIFACT,
    default_version=DEFAULT_DISTRIBUTION_VERSION,
)

OPENSEARCH = Flavor(
    name=DistributionFlavor.OPENSEARCH,
    product="OpenSearch",
    executable="opensearch",
    config_file="opensearch.yml",
    java_home_env="OPENSEARCH_JAVA_HOME",
    path_conf_env="OPENSEARCH_PATH_CONF",
    tmpdir_env="OPENSEARCH_TMPDIR",
    initial_masters_setting="cluster.initial_cluster_manager_nodes",
    maven_group="org.opensearch.distribution.integ-test-zip",
    maven_artifact="opensearch",
    # The newest 2.x on Maven Central when this was written; runs on the Java 17 of the project machines.
    default_version="2.18.0",
)

FLAVORS: dict[str, Flavor] = {f.name.value: f for f in (ELASTICSEARCH, OPENSEARCH)}


def get_flavor(name: str | None) -> Flavor:
    """The flavor called ``name`` (None: Elasticsearch).

    Raises:
        UserError: unknown flavor name.
    """
    if name is None:
        return ELASTICSEARCH
    try:
        return FLAVORS[str(name).lower()]
    except KeyError:
        raise UserError(f"Unknown --distribution-flavor '{name}': use one of {', '.join(FLAVORS)}.") from None


def flavor_of_version(version: str | None) -> DistributionFlavor | None:
    """OpenSearch when ``version``'s major is one of :data:`OPENSEARCH_ONLY_MAJORS` (``2.19.1``), else
    None (an Elasticsearch version, or not a version: the supply step says so)."""
    if version is None:
        return None
    try:
        major = parse_version(version).major
    except UserError:
        return None
    return DistributionFlavor.OPENSEARCH if major in OPENSEARCH_ONLY_MAJORS else None


def _check_repository(settings: ProvisionSettings, flavor: Flavor) -> None:
    if settings.distribution_path is None and settings.distribution_repository not in (
        "maven",
        "auto",
        "release",
    ):
        raise UserError(
            f"--distribution-repository={settings.distribution_repository} serves Elasticsearch only. "
            f"{flavor.product} comes from its Maven integ-test zip "
            f"({flavor.maven_coordinates(settings.distribution_version)}, --distribution-repository=maven) "
            f"or its release server (--distribution-repository=release, as in OSB), or give a local "
            f"archive with --distribution-path=FILE."
        )


def _release_archive(settings: ProvisionSettings) -> Path:
    """OpenSearch's full bundle from its release server (OSB 2.4.0's ``release`` repository), cached
    as ``release/<file name of the URL>``.

    Raises:
        SupplyError: ``--offline`` without the archive in the cache, an HTTP error or an unreachable
            server (the message names the URL and the other sources).
    """
    url = opensearch_release_url(settings.distribution_version)
    archive = distributions_cache() / "release" / url.rsplit("/", 1)[-1]
    if archive.is_file():
        return archive
    if settings.offline:
        raise SupplyError(
            f"OpenSearch {settings.distribution_version} is not in the distribution cache ({archive}) and "
            f"--offline forbids downloading it from {url}. Run 'esbench download "
            f"--distribution-repository=release --distribution-version={settings.distribution_version}' "
            "while online, or use --distribution-repository=maven (its integ-test zip from your Maven "
            "repository) or --distribution-path=FILE."
        )
    archive.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(archive.with_name(archive.name + ".lock")):
        if not archive.is_file():
            distributions._download(url, archive, product="OpenSearch", server="OpenSearch's release server")
    return archive


def download_archive(settings: ProvisionSettings) -> Path:
    """The distribution archive of ``settings.distribution_flavor`` in the cache (``esbench
    download``), like :func:`esbench.provision.distributions.download_archive`.

    Raises:
        UserError: unknown flavor, or ``--distribution-repository=elastic`` for OpenSearch.
        SupplyError: mvn missing or failing, unknown version, a missing ``--distribution-path``, the
            release server unreachable or ``--offline`` without the release archive in the cache.
    """
    flavor = get_flavor(settings.distribution_flavor)
    if flavor is ELASTICSEARCH or settings.distribution_path is not None:
        return distributions.download_archive(settings)
    _check_repository(settings, flavor)
    parse_version(settings.distribution_version)
    if settings.distribution_repository == DistributionRepository.RELEASE:
        return _release_archive(settings)
    return distributions._maven_archive(
        settings.distribution_version,
        distributions_cache(),
        offline=settings.offline,
        coordinates=flavor.maven_coordinates(settings.distribution_version),
        stem=flavor.executable,
        product=flavor.product,
    )


def obtain(settings: ProvisionSettings) -> Distribution:
    """The unpacked distribution of ``settings.distribution_flavor``, supplied like
    :func:`esbench.provision.distributions.obtain_distribution` (Maven with the ``mvn`` client,
    OpenSearch's release server with ``release``, or ``--distribution-path``; cached, unpacked once).

    Raises:
        UserError: unknown flavor, or ``--distribution-repository=elastic`` for OpenSearch.
        SupplyError: see :func:`download_archive`; also an archive without the flavor's
            ``bin/<executable>``.
    """
    flavor = get_flavor(settings.distribution_flavor)
    if flavor is ELASTICSEARCH:
        return distributions.obtain_distribution(settings)
    _check_repository(settings, flavor)
    cache = distributions_cache()
    if settings.distribution_path is not None:
        _, target = distributions.local_archive(settings, cache)
        packaging = "local"
    elif settings.distribution_repository == DistributionRepository.RELEASE:
        parse_version(settings.distribution_version)
        name = opensearch_release_url(settings.distribution_version).rsplit("/", 1)[-1]
        target = cache / "release" / name.removesuffix(".tar.gz")
        packaging = "default"
    else:
        parse_version(settings.distribution_version)
        target = cache / "maven" / f"{flavor.executable}-{settings.distribution_version}"
        packaging = "integ-test"
    if not (target / COMPLETE_MARKER).exists():
        archive = download_archive(settings)
        target.parent.mkdir(parents=True, exist_ok=True)
        unpack(archive, target)
    if not (target / "bin" / flavor.executable).is_file():
        raise SupplyError(
            f"'{target}' has no bin/{flavor.executable}: it is not an {flavor.product} distribution "
            f"(--distribution-flavor={flavor.name})."
        )
    return Distribution(
        version=flavor.detect_version(target) or settings.distribution_version, home=target, flavor=packaging
    )
