"""The session clusters: each started once per test process and shared by every test that only needs
a cluster of its kind. A test starts a node of its own only where starting, stopping or breaking a
node is what it tests.

* ``es_hosts``: one Elasticsearch node (car ``defaults`` with ``path.repo`` for the snapshot tests),
  or the nodes of ``ESBENCH_TEST_HOSTS=host:port[,host:port]`` when set (nothing is started then);
  ``es`` is a client of it for one test;
* ``cluster3``: three Elasticsearch nodes of 512 MiB with assertions on (``--car=defaults,ea``),
  started with ``esbench start --nodes=3``; the routing tests and the green-cluster check use it;
* ``opensearch_hosts``: an OpenSearch node (``ESBENCH_TEST_OPENSEARCH_VERSION``, default the
  flavor's default version), 512 MiB;
* ``opensearch_knn_hosts``: an OpenSearch 2.19.1 node with the k-NN and ML-commons plugins
  (installed by esbench's plugin installer from the Maven zips; see the fixture), 1 GiB, for OSB's
  vector and ML operations;
* ``secured_es``: Elasticsearch with TLS and basic auth (``--car=defaults,x-pack-security``), started
  with ``esbench start``.

The two clusters ``esbench start`` starts are stopped with ``esbench stop``, and their teardown checks
what stopping must leave: no node process, no installation, and for the secured node no CA or
password file. ``ESBENCH_TEST_ES_VERSION`` picks the Elasticsearch version of all of them.

With pytest-xdist every worker is a test process of its own: the single node is started once per
worker (tests read node-wide statistics, so two workers never share one), and the other clusters
once in all, because their tests are one xdist group each (``GROUPS`` in ``tests/conftest.py``).
Each cluster lives in an esbench home of its own, never a test's isolated ``ESBENCH_HOME``.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch
from harness import BENCHMARKS, dist_cache, esbench, ok, provision

from esbench.provision import DEFAULT_DISTRIBUTION_VERSION, ProvisionSettings
from esbench.provision.flavors import OPENSEARCH
from esbench.provision.launcher import pids_with_marker

# The Maven assembly of OpenSearch with k-NN is shared with the OSB comparison's node.
sys.path.insert(0, str(BENCHMARKS))
from opensearch_maven import add_painless_module, maven_artifact

ES_VERSION = os.environ.get("ESBENCH_TEST_ES_VERSION", DEFAULT_DISTRIBUTION_VERSION)


@dataclass(frozen=True)
class StartedCluster:
    """A cluster ``esbench start`` started: its esbench home and the ``key: value`` lines it printed
    (``installation-id``, ``hosts``, and for a secured cluster ``ca-certs``, ``user``,
    ``password-file``), plus its whole stdout and stderr."""

    home: Path
    fields: dict[str, str]
    stdout: str
    stderr: str

    @property
    def hosts(self) -> list[str]:
        return self.fields["hosts"].split(",")

    @property
    def installation_id(self) -> str:
        return self.fields["installation-id"]


@dataclass(frozen=True)
class SecuredCluster:
    """A running secured node: its hosts (HTTPS only), CA certificate, superuser and password, and
    what ``esbench start`` printed."""

    hosts: list[str]
    ca_cert: Path
    user: str
    password: str = field(repr=False)
    started: StartedCluster = field(repr=False)


def node_pids(installation_id: str, nodes: int) -> list[int]:
    """The pids of the node processes of an installation (found by the marker on their command line)."""
    return [p for i in range(nodes) for p in pids_with_marker(f"{installation_id}/node-{i}")]


def started_by_cli(home: Path, *args: str) -> Iterator[StartedCluster]:
    """``esbench start --distribution-repository=maven ARGS`` in ``home``; yields the cluster, then
    stops it with ``esbench stop`` and asserts that nothing is left: exit 0, the installation id on
    stdout, no node process, no installation directory or state."""
    proc = ok(
        esbench("start", "--distribution-repository=maven", f"--distribution-version={ES_VERSION}", *args,
                home=home, timeout=280)
    )  # fmt: skip
    fields = dict(line.split(": ", 1) for line in proc.stdout.strip().splitlines())
    cluster = StartedCluster(home=home, fields=fields, stdout=proc.stdout, stderr=proc.stderr)
    from esbench.provision import installation

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ESBENCH_HOME", str(home))
        inst = installation.load(cluster.installation_id)
    try:
        yield cluster
    finally:
        stopped = esbench("stop", f"--installation-id={cluster.installation_id}", home=home, timeout=120)
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout.strip() == cluster.installation_id
    assert node_pids(cluster.installation_id, len(inst.nodes)) == []
    assert not Path(inst.root).exists()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ESBENCH_HOME", str(home))
        assert installation.list_installations() == []


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


def external_hosts() -> list[str]:
    """The nodes of ``ESBENCH_TEST_HOSTS`` (empty when unset)."""
    return [h.strip() for h in os.environ.get("ESBENCH_TEST_HOSTS", "").split(",") if h.strip()]


@pytest.fixture(scope="session")
def es_hosts(tmp_path_factory: pytest.TempPathFactory, snapshot_repo_dir: Path) -> Iterator[list[str]]:
    """HTTP ``host:port`` of the session's Elasticsearch node (see the module docstring)."""
    if external_hosts():
        yield external_hosts()
        return
    home = tmp_path_factory.mktemp("esbench-session-home")
    settings = ProvisionSettings(
        distribution_version=ES_VERSION,
        car=f"defaults,{_write_repo_mixin(home, snapshot_repo_dir)}",
        nodes=1,
        # The integ-test distribution, also where Elastic's server is reachable: tests rely on
        # its module set (e.g. the requirement check's missing modules).
        distribution_repository="maven",
    )
    cluster = provision(home, settings)
    try:
        yield list(cluster.hosts)
    finally:
        cluster.stop()


@pytest.fixture
def es(es_hosts: list[str]) -> Iterator[Elasticsearch]:
    """An ``elasticsearch.Elasticsearch`` client of the session's node (60 s request timeout: bulk
    loads and refreshes)."""
    client = Elasticsearch([f"http://{h}" for h in es_hosts], request_timeout=60)
    yield client
    client.close()


@pytest.fixture(scope="session")
def es_repo_path(es_hosts: list[str], snapshot_repo_dir: Path) -> Path:
    """A directory listed in the test node's ``path.repo`` (for ``fs`` snapshot repositories).

    The provisioned node has :func:`snapshot_repo_dir`. With ``ESBENCH_TEST_HOSTS`` the node is not
    ours: ``ESBENCH_TEST_REPO_PATH`` names its ``path.repo`` directory, and the snapshot tests are
    skipped (saying so) without it; CI provisions the node, so this skip never hides a failure there.
    """
    if not external_hosts():
        return snapshot_repo_dir
    external = os.environ.get("ESBENCH_TEST_REPO_PATH", "").strip()
    if not external:
        pytest.skip("ESBENCH_TEST_HOSTS is set without ESBENCH_TEST_REPO_PATH (the node's path.repo)")
    return Path(external)


@pytest.fixture(scope="session")
def cluster3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StartedCluster]:
    """Three nodes started by ``esbench start --nodes=3 --car=defaults,ea`` (512 MiB each)."""
    yield from started_by_cli(
        tmp_path_factory.mktemp("esbench-session-cluster3"),
        "--nodes=3",
        "--car=defaults,ea",
        "--car-params=heap_size:512m",
    )


@pytest.fixture(scope="session")
def opensearch_hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """HTTP ``host:port`` of an OpenSearch node provisioned for the session."""
    settings = ProvisionSettings(
        distribution_flavor="opensearch",
        distribution_version=os.environ.get("ESBENCH_TEST_OPENSEARCH_VERSION", OPENSEARCH.default_version),
        car="defaults",
        car_params={"heap_size": "512m"},
    )
    cluster = provision(tmp_path_factory.mktemp("esbench-session-opensearch"), settings)
    try:
        yield list(cluster.hosts)
    finally:
        cluster.stop()


KNN_VERSION = "2.19.1"


def _maven_zip(coordinates: str) -> Path:
    """The local Maven repository's copy of ``group:artifact:version:zip`` (fetched with mvn)."""
    path = maven_artifact(coordinates)
    if path is None:
        pytest.fail(f"{coordinates} is not in the local Maven repository and mvn could not fetch it")
    return path


def _server_with_painless(cache: Path) -> Path:
    """The 2.19.1 integ-test zip plus a ``lang-painless`` module, which k-NN extends (built once
    into ``cache``; benchmarks/opensearch_maven.py says how)."""
    target = cache / f"opensearch-{KNN_VERSION}-painless.zip"
    if target.is_file():
        return target
    server = _maven_zip(f"org.opensearch.distribution.integ-test-zip:opensearch:{KNN_VERSION}:zip")
    with tempfile.TemporaryDirectory(prefix="esbench-knn-dist-") as tmp:
        work = Path(tmp)
        shutil.unpack_archive(server, work / "dist")
        (home,) = (work / "dist").iterdir()
        add_painless_module(home, KNN_VERSION)
        for script in (home / "bin").iterdir():
            script.chmod(0o755)
        cache.mkdir(parents=True, exist_ok=True)
        partial = shutil.make_archive(str(target.with_suffix(".partial")), "zip", work / "dist")
        Path(partial).rename(target)
    return target


@pytest.fixture(scope="session")
def opensearch_knn_hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """HTTP ``host:port`` of an OpenSearch 2.19.1 node with the k-NN and ML-commons plugins,
    provisioned for the session (1 GiB heap).

    The server is the Maven integ-test zip with a ``lang-painless`` module (:func:`_server_with_painless`);
    the plugins ``opensearch-knn``, ``opensearch-job-scheduler`` (which ML-commons extends) and
    ``opensearch-ml`` (Maven ``org.opensearch.plugin:<artifact>:2.19.1.0:zip``) are installed by
    esbench's plugin installer (``--elasticsearch-plugins`` with ``[distributions]
    plugin.<name>.release.url`` = the Maven zip's ``file://`` URL in the node's esbench.ini). The
    Maven k-NN zip carries no native libraries: only the ``lucene`` engine works (``faiss``/``nmslib``
    fail on the node).
    """
    plugins = {
        "opensearch-knn": "opensearch-knn",
        "opensearch-job-scheduler": "opensearch-job-scheduler",
        "opensearch-ml": "opensearch-ml-plugin",
    }
    urls = {
        name: _maven_zip(f"org.opensearch.plugin:{artifact}:{KNN_VERSION}.0:zip").as_uri()
        for name, artifact in plugins.items()
    }
    server = _server_with_painless(Path(dist_cache()) / "knn")
    home = tmp_path_factory.mktemp("esbench-session-opensearch-knn")
    ini = "".join(f"plugin.{name}.release.url = {url}\n" for name, url in urls.items())
    (home / "esbench.ini").write_text(f"[distributions]\n{ini}")
    settings = ProvisionSettings(
        distribution_flavor="opensearch",
        distribution_version=KNN_VERSION,
        distribution_path=server,
        car="defaults",
        car_params={"heap_size": "1g"},
        elasticsearch_plugins=",".join(plugins),
    )
    cluster = provision(home, settings)
    try:
        yield list(cluster.hosts)
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def secured_es(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecuredCluster]:
    """A TLS + basic-auth node started by ``esbench start --car=defaults,x-pack-security`` (512 MiB);
    its teardown also checks that ``esbench stop`` deleted the CA and the password file."""
    home = tmp_path_factory.mktemp("esbench-session-secured")
    for started in started_by_cli(home, "--car=defaults,x-pack-security", "--car-params=heap_size:512m"):
        ca = Path(started.fields["ca-certs"])
        password_file = Path(started.fields["password-file"])
        yield SecuredCluster(
            hosts=started.hosts,
            ca_cert=ca,
            user=started.fields["user"],
            password=password_file.read_text().strip(),
            started=started,
        )
    assert not ca.exists() and not password_file.exists()
