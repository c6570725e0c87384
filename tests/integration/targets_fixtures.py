"""Session fixtures for the targets other than the default Elasticsearch node: an OpenSearch node
and a secured (TLS + basic auth) Elasticsearch node, both provisioned with esbench's own code.

* ``opensearch_hosts``: ``["127.0.0.1:PORT"]`` of OpenSearch (``ESBENCH_TEST_OPENSEARCH_VERSION``,
  default the flavor's default version, from its Maven integ-test zip), car ``defaults`` with a
  512 MiB heap;
* ``secured_es``: a :class:`SecuredCluster` — Elasticsearch (``ESBENCH_TEST_ES_VERSION``) with the
  car ``defaults,x-pack-security`` (generated CA and node certificate, file-realm superuser), 512 MiB.

Each lives in its own session esbench home (the distribution cache is shared, as for ``es_hosts``)
and is stopped and deleted at the end of the session. Neither is skipped: CI provisions both.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from esbench.provision import (
    DEFAULT_DISTRIBUTION_VERSION,
    ProvisionedCluster,
    ProvisionSettings,
    provision_cluster,
)
from esbench.provision.flavors import OPENSEARCH


@dataclass(frozen=True)
class SecuredCluster:
    """A running secured node: its hosts (HTTPS only), CA certificate and superuser."""

    hosts: list[str]
    ca_cert: Path
    user: str
    password: str = field(repr=False)


def _provision(
    tmp_path_factory: pytest.TempPathFactory, name: str, settings: ProvisionSettings
) -> ProvisionedCluster:
    session_home = tmp_path_factory.mktemp(f"esbench-session-{name}")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ESBENCH_HOME", str(session_home))
        mp.setenv(
            "ESBENCH_DIST_CACHE",
            os.environ.get("ESBENCH_DIST_CACHE") or str(Path.home() / ".cache" / "esbench" / "distributions"),
        )
        return provision_cluster(settings, race_dir=session_home / "race")


@pytest.fixture(scope="session")
def opensearch_hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """HTTP ``host:port`` of an OpenSearch node provisioned for the session."""
    settings = ProvisionSettings(
        distribution_flavor="opensearch",
        distribution_version=os.environ.get("ESBENCH_TEST_OPENSEARCH_VERSION", OPENSEARCH.default_version),
        car="defaults",
        car_params={"heap_size": "512m"},
    )
    cluster = _provision(tmp_path_factory, "opensearch", settings)
    try:
        yield list(cluster.hosts)
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def secured_es(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredCluster]:
    """A TLS + basic-auth Elasticsearch node provisioned for the session."""
    settings = ProvisionSettings(
        distribution_version=os.environ.get("ESBENCH_TEST_ES_VERSION", DEFAULT_DISTRIBUTION_VERSION),
        car="defaults,x-pack-security",
        car_params={"heap_size": "512m"},
    )
    cluster = _provision(tmp_path_factory, "secured", settings)
    try:
        assert cluster.security is not None
        yield SecuredCluster(
            hosts=list(cluster.hosts),
            ca_cert=cluster.security.ca_cert,
            user=cluster.security.user,
            password=cluster.security.password(),
        )
    finally:
        cluster.stop()
