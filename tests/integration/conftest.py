"""Integration fixtures: a real Elasticsearch node for the whole test session.

``es_hosts`` returns ``["127.0.0.1:PORT", ...]``:

* ``ESBENCH_TEST_HOSTS=host:port[,host:port]`` set: those nodes are used as they are (nothing started);
* otherwise one node (car ``defaults``: 1 GiB heap, security off, free loopback ports) is provisioned
  with esbench's own provisioning code and stopped/deleted at the end of the session. Its distribution
  comes from ``$ESBENCH_DIST_CACHE`` (default ``~/.cache/esbench/distributions``, shared across
  sessions so CI unpacks once) and its state lives in a session temp dir, never in the per-test
  isolated ``ESBENCH_HOME``. ``ESBENCH_TEST_ES_VERSION`` picks another version.

Every test below ``tests/integration`` is marked ``integration``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# OpenSearch and secured-Elasticsearch session fixtures (opensearch_hosts, secured_es).
from targets_fixtures import opensearch_hosts, secured_es  # noqa: F401

from esbench.provision import DEFAULT_DISTRIBUTION_VERSION, ProvisionSettings, provision_cluster

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def es_hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """HTTP ``host:port`` of a running Elasticsearch for the session (see the module docstring)."""
    external = os.environ.get("ESBENCH_TEST_HOSTS", "").strip()
    if external:
        yield [h.strip() for h in external.split(",") if h.strip()]
        return
    session_home = tmp_path_factory.mktemp("esbench-session-home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ESBENCH_HOME", str(session_home))
        mp.setenv(
            "ESBENCH_DIST_CACHE",
            os.environ.get("ESBENCH_DIST_CACHE") or str(Path.home() / ".cache" / "esbench" / "distributions"),
        )
        settings = ProvisionSettings(
            distribution_version=os.environ.get("ESBENCH_TEST_ES_VERSION", DEFAULT_DISTRIBUTION_VERSION),
            car="defaults",
            nodes=1,
        )
        cluster = provision_cluster(settings, race_dir=session_home / "race")
    try:
        yield list(cluster.hosts)
    finally:
        cluster.stop()
