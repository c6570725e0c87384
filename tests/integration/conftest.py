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
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

# OpenSearch and secured-Elasticsearch session fixtures (opensearch_hosts, secured_es).
from targets_fixtures import opensearch_hosts, secured_es  # noqa: F401

# One race with node-stats and os telemetry on a provisioned node, read by two test modules.
from telemetry_race import telemetry_race  # noqa: F401

from esbench.provision import DEFAULT_DISTRIBUTION_VERSION, ProvisionSettings, provision_cluster

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture
def metrics_store_prefix(es_hosts: list[str]) -> Iterator[str]:
    """A fresh metrics-store index prefix on the test node; its indices and index templates are
    deleted afterwards."""
    from elasticsearch import Elasticsearch

    from esbench.results.es_export import index_templates

    name = f"esbench-test-{uuid.uuid4().hex[:8]}"
    yield name
    es = Elasticsearch(f"http://{es_hosts[0]}")
    for index in es.indices.get(index=f"{name}-*", allow_no_indices=True, expand_wildcards="all"):
        es.indices.delete(index=index)
    for template in index_templates(name):
        es.options(ignore_status=404).indices.delete_index_template(name=template)
    es.close()


@pytest.fixture(scope="session")
def es_hosts(tmp_path_factory: pytest.TempPathFactory, snapshot_repo_dir: Path) -> Iterator[list[str]]:
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
            car=f"defaults,{_write_repo_mixin(session_home, snapshot_repo_dir)}",
            nodes=1,
            # The integ-test distribution, also where Elastic's server is reachable: tests rely on
            # its module set (e.g. the requirement check's missing modules).
            distribution_repository="maven",
        )
        cluster = provision_cluster(settings, race_dir=session_home / "race")
    try:
        yield list(cluster.hosts)
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def snapshot_repo_dir() -> Iterator[Path]:
    """A directory under the system temp dir that the node's account can write (mode 777; the
    pytest temp root is private to root): the provisioned node's ``path.repo``."""
    path = Path(tempfile.mkdtemp(prefix="esbench-it-repo-"))
    path.chmod(0o777)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _write_repo_mixin(home: Path, repo_dir: Path) -> str:
    """A car mixin in ``home/cars`` setting ``path.repo`` (cars are how provisioning takes node
    settings); returns its name."""
    cars = home / "cars"
    cars.mkdir(parents=True, exist_ok=True)
    name = "it-snapshot-repo"
    (cars / f"{name}.yml").write_text(
        "description: path.repo for the snapshot tests\ntype: mixin\n"
        f"settings:\n  path.repo: ['{repo_dir}']\n"
    )
    return name


@pytest.fixture(scope="session")
def es_repo_path(es_hosts: list[str], snapshot_repo_dir: Path) -> Path:
    """A directory listed in the test node's ``path.repo`` (for ``fs`` snapshot repositories).

    The provisioned node has :func:`snapshot_repo_dir`. With ``ESBENCH_TEST_HOSTS`` the node is not
    ours: ``ESBENCH_TEST_REPO_PATH`` names its ``path.repo`` directory, and the snapshot tests are
    skipped (saying so) without it; CI provisions the node, so this skip never hides a failure there.
    """
    if not os.environ.get("ESBENCH_TEST_HOSTS", "").strip():
        return snapshot_repo_dir
    external = os.environ.get("ESBENCH_TEST_REPO_PATH", "").strip()
    if not external:
        pytest.skip("ESBENCH_TEST_HOSTS is set without ESBENCH_TEST_REPO_PATH (the node's path.repo)")
    return Path(external)
