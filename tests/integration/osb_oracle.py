"""OpenSearch Benchmark 2.4.0 as the oracle of esbench's metrics store in OSB's layout: the one way
tests find and run ``opensearch-benchmark``.

OSB is Rally's fork and runs as Rally does (an actor system, one race per machine), so it runs the
way tests/integration/rally_oracle.py runs Rally, with its helpers: in a private PID and network
namespace, reaching the node of the host's namespace through a Unix socket, with a private ``HOME``
(OSB's configuration directory is ``~/.benchmark``, ``~/.osb`` a link to it) and a configuration
``benchmark-NAME.ini`` passed as ``--configuration-name=NAME``.

* :func:`osb_bin` (a fixture): ``$ESBENCH_TEST_OSB``, else ``opensearch-benchmark`` beside
  ``$ESBENCH_OSB_PYTHON`` (the venv .ci/run builds), else /work/venvs/osb/bin/opensearch-benchmark.
  Missing, it skips the test, except under ``CI=true``, where it fails.
* :func:`osb_oracle`: OSB configured with a metrics store (``[reporting] datastore.type =
  opensearch``, osbenchmark/resources/benchmark.ini) and an environment.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from rally_oracle import INNER_HOST, PeerOracle, bridged, missing, namespaces_available

DEFAULT_OSB = Path("/work/venvs/osb/bin/opensearch-benchmark")
INSTALL = (
    "python3.12 -m venv OSBENV && OSBENV/bin/pip install opensearch-benchmark==2.4.0, "
    "then ESBENCH_TEST_OSB=OSBENV/bin/opensearch-benchmark"
)
TOOL = "OpenSearch Benchmark 2.4.0"


@pytest.fixture(scope="session")
def osb_bin() -> Path:
    """OSB's ``opensearch-benchmark`` (see the module docstring); the namespace tools checked."""
    candidates = []
    if os.environ.get("ESBENCH_TEST_OSB"):
        candidates.append(Path(os.environ["ESBENCH_TEST_OSB"]))
    else:
        if os.environ.get("ESBENCH_OSB_PYTHON"):
            candidates.append(Path(os.environ["ESBENCH_OSB_PYTHON"]).parent / "opensearch-benchmark")
        candidates.append(DEFAULT_OSB)
        on_path = shutil.which("opensearch-benchmark")
        if on_path:
            candidates.append(Path(on_path))
    found = next((c for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)
    if found is None:
        missing(f"OSB (none at {', '.join(map(str, candidates))})", tool=TOOL, install=INSTALL)
    if not namespaces_available():
        missing(
            "root with the unshare and ip commands (a private PID and network namespace)",
            tool=TOOL,
            install=INSTALL,
        )
    assert found is not None
    return found


def osb_ini(root: Path, environment: str) -> str:
    """OSB's benchmark.ini (osbenchmark/resources/benchmark.ini, config.version 17) with its home
    under ``root`` and the metrics store at :data:`~rally_oracle.INNER_HOST`."""
    host, _, port = INNER_HOST.partition(":")
    home = f"{root}/home/.benchmark"
    return "\n".join(
        (
            "[meta]",
            "config.version = 17",
            "[system]",
            f"env.name = {environment}",
            "[node]",
            f"root.dir = {home}/benchmarks",
            f"src.root.dir = {home}/benchmarks/src",
            "[source]",
            "remote.repo.url = https://github.com/opensearch-project/OpenSearch.git",
            "opensearch.src.subdir = opensearch",
            "[benchmarks]",
            f"local.dataset.cache = {home}/benchmarks/data",
            "[reporting]",
            "datastore.type = opensearch",
            f"datastore.host = {host}",
            f"datastore.port = {port}",
            "datastore.secure = False",
            # OSB's OsClientFactory wants the key (an empty user means no authentication).
            "datastore.user =",
            "datastore.password =",
            "[workloads]",
            "default.url = https://github.com/opensearch-project/opensearch-benchmark-workloads",
            "[cluster_configs]",
            "default.dir = default-cluster-config",
            "[defaults]",
            "preserve_benchmark_candidate = false",
            "[distributions]",
            "release.cache = true",
            "",
        )
    )


@contextlib.contextmanager
def osb_oracle(osb: Path, root: Path, store_host: str, *, environment: str) -> Iterator[PeerOracle]:
    """OSB with its home under ``root``, the configuration ``esbench-oracle`` whose metrics store is
    the node at ``store_host`` (``host:port``, plain HTTP) and whose ``env.name`` is ``environment``."""
    name = "esbench-oracle"
    config_dir = root / "home" / ".benchmark"
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / f"benchmark-{name}.ini").write_text(osb_ini(root, environment), encoding="utf-8")
    with bridged(store_host) as socket_path:
        yield PeerOracle(osb, root, name, socket_path, environment)
