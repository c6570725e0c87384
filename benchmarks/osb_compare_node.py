"""The OpenSearch node of benchmarks/osb_compare.py: the 2.19.1 integ-test zip with the k-NN plugin.

Everything comes from Maven through ``mvn`` (so a user's mirror settings apply):

* ``org.opensearch.distribution.integ-test-zip:opensearch:2.19.1:zip`` — the server;
* ``org.opensearch.plugin:opensearch-knn:2.19.1.0:zip`` — k-NN. Its descriptor says
  ``extended.plugins=lang-painless``; the integ-test zip has no such module and Maven has no zip of
  it, only ``org.opensearch.plugin:lang-painless:2.19.1`` (a jar). So the module directory is
  assembled from that jar, the jars it needs at runtime (the SPI, ANTLR, ASM; resolved by
  ``mvn dependency:copy-dependencies``), a descriptor (classname ``org.opensearch.painless.
  PainlessPlugin``) and the module's two permissions (``createClassLoader``, ``getClassLoader``),
  and k-NN is installed with the distribution's own ``opensearch-plugin install``;
* the result is zipped once into ``~/.cache/esbench/osb-compare/`` and started with
  ``esbench start --distribution-flavor=opensearch --distribution-path=ZIP``.

The Maven k-NN zip has no native libraries: the ``lucene`` engine works; ``faiss``/``nmslib``
throw UnsatisfiedLinkError in a write thread, which ends the node (it is started again before the
next run, see osb_compare.py).

When any artifact is missing the node is the plain integ-test zip (2.19.1, else 2.18.0) without
k-NN, and :attr:`Distribution.describe` says so.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from opensearch_maven import add_painless_module, maven_artifact

VERSION = "2.19.1"
KNN = f"org.opensearch.plugin:opensearch-knn:{VERSION}.0:zip"
SERVER = f"org.opensearch.distribution.integ-test-zip:opensearch:{VERSION}:zip"
CACHE = Path.home() / ".cache" / "esbench" / "osb-compare"
JAVA_HOME = "/usr/lib/jvm/java-17-openjdk-amd64"


@dataclass(frozen=True)
class Distribution:
    """A distribution archive to start, its version, and one line describing what it contains."""

    path: Path
    version: str
    describe: str


def _build(server: Path, knn: Path, target: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="osb-compare-node-") as tmp:
        work = Path(tmp)
        subprocess.run(["unzip", "-q", str(server), "-d", str(work / "dist")], check=True)
        (home,) = (work / "dist").iterdir()
        add_painless_module(home, VERSION)
        subprocess.run(
            [str(home / "bin" / "opensearch-plugin"), "install", "--batch", knn.as_uri()],
            env={**os.environ, "OPENSEARCH_JAVA_HOME": JAVA_HOME},
            check=True,
            capture_output=True,
        )
        partial = target.with_suffix(".partial")
        partial.unlink(missing_ok=True)
        subprocess.run(["zip", "-qr", str(partial), home.name], cwd=work / "dist", check=True)
        partial.rename(target)


def distribution() -> Distribution:
    """The archive to start (built on first use); falls back as the module docstring says."""
    target = CACHE / f"opensearch-{VERSION}-knn.zip"
    server, knn = maven_artifact(SERVER), maven_artifact(KNN)
    if server and knn:
        if not target.is_file():
            CACHE.mkdir(parents=True, exist_ok=True)
            try:
                _build(server, knn, target)
            except subprocess.CalledProcessError as e:
                print(f"could not add k-NN to the node: {e}", file=sys.stderr)
        if target.is_file():
            return Distribution(
                target,
                VERSION,
                f"OpenSearch {VERSION} integ-test zip + opensearch-knn {VERSION}.0 (no native libraries: "
                "lucene engine only) + lang-painless assembled from Maven jars",
            )
    for version in (VERSION, "2.18.0"):
        plain = maven_artifact(f"org.opensearch.distribution.integ-test-zip:opensearch:{version}:zip")
        if plain:
            return Distribution(plain, version, f"OpenSearch {version} integ-test zip, without k-NN")
    raise SystemExit("no OpenSearch integ-test zip on Maven (tried 2.19.1 and 2.18.0)")


class Node:
    """One node started and stopped with esbench's own provisioner (``esbench start``/``stop``)."""

    def __init__(self, dist: Distribution, home: Path, repo: Path) -> None:
        self.dist = dist
        self.env = {**os.environ, "ESBENCH_HOME": str(home), "PYTHONPATH": str(repo)}
        home.mkdir(parents=True, exist_ok=True)

    def _esbench(self, *args: str) -> str:
        proc = subprocess.run(
            [sys.executable, "-m", "esbench", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        return proc.stdout + proc.stderr

    def start(self) -> str:
        """Start the node; returns ``host:port``. Raises SystemExit with esbench's output when it fails."""
        output = self._esbench(
            "start",
            "--distribution-flavor=opensearch",
            f"--distribution-version={self.dist.version}",
            f"--distribution-path={self.dist.path}",
        )
        hosts = re.search(r"^hosts: (\S+)", output, re.MULTILINE)
        if not hosts:
            raise SystemExit(f"the node did not start:\n{output[-2000:]}")
        return hosts.group(1)

    def stop(self) -> None:
        self._esbench("stop")

    def restart(self) -> str:
        self.stop()
        return self.start()
