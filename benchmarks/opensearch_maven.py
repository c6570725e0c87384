"""OpenSearch from Maven with what k-NN needs: shared by benchmarks/osb_compare_node.py (the node of
the OSB comparison) and the ``opensearch_knn_hosts`` fixture of tests/integration/clusters.py.

* :func:`maven_artifact` fetches ``group:artifact:version:packaging`` with ``mvn`` (so a user's
  mirror settings apply) into the local repository and returns its path;
* :func:`add_painless_module` gives an unpacked OpenSearch distribution a ``lang-painless`` module.
  The k-NN plugin's descriptor says ``extended.plugins=lang-painless``; the integ-test zip has no
  such module and Maven has no zip of it, only ``org.opensearch.plugin:lang-painless`` (a jar). The
  module is assembled from that jar and the jars it needs at runtime (the scripting SPI, ANTLR, ASM;
  resolved by ``mvn dependency:copy-dependencies``), a descriptor (classname
  ``org.opensearch.painless.PainlessPlugin``) and the module's two permissions
  (``createClassLoader``, ``getClassLoader``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

M2 = Path.home() / ".m2" / "repository"
_PAINLESS_JARS = re.compile(
    r"^(lang-painless|opensearch-scripting-painless-spi|antlr4-runtime|asm(-\w+)?)-[\d.]+\.jar$"
)
_POLICY = """grant {
  permission java.lang.RuntimePermission "createClassLoader";
  permission java.lang.RuntimePermission "getClassLoader";
};
"""


def maven_artifact(coordinates: str) -> Path | None:
    """The local Maven repository's copy of ``group:artifact:version:packaging``, fetched with
    ``mvn dependency:get`` when absent; None when Maven cannot get it."""
    group, artifact, version, packaging = coordinates.split(":")
    path = M2 / group.replace(".", "/") / artifact / version / f"{artifact}-{version}.{packaging}"
    if not path.is_file():
        subprocess.run(
            ["mvn", "-B", "-q", "dependency:get", f"-Dartifact={coordinates}", "-Dtransitive=false"],
            capture_output=True,
            check=False,
        )
    return path if path.is_file() else None


def add_painless_module(home: Path, version: str) -> None:
    """Add ``modules/lang-painless`` (OpenSearch ``version``, assembled from Maven jars) to the
    unpacked distribution ``home``.

    Raises:
        subprocess.CalledProcessError: Maven could not resolve the jars.
    """
    pom = f"""<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>esbench</groupId><artifactId>painless-module</artifactId><version>1</version>
<dependencies><dependency><groupId>org.opensearch.plugin</groupId><artifactId>lang-painless</artifactId>
<version>{version}</version></dependency></dependencies></project>
"""
    descriptor = f"""description=Painless scripting language, assembled from its Maven jars (k-NN extends it)
version={version}
name=lang-painless
classname=org.opensearch.painless.PainlessPlugin
java.version=11
opensearch.version={version}
extended.plugins=
has.native.controller=false
"""
    with tempfile.TemporaryDirectory(prefix="esbench-painless-") as tmp:
        work = Path(tmp)
        (work / "pom.xml").write_text(pom)
        subprocess.run(
            [
                "mvn",
                "-B",
                "-q",
                "dependency:copy-dependencies",
                "-DoutputDirectory=jars",
                "-DincludeScope=runtime",
            ],
            cwd=work,
            check=True,
            capture_output=True,
        )
        module = home / "modules" / "lang-painless"
        module.mkdir()
        for jar in (work / "jars").iterdir():
            if _PAINLESS_JARS.match(jar.name):
                shutil.copy(jar, module / jar.name)
    (module / "plugin-descriptor.properties").write_text(descriptor)
    (module / "plugin-security.policy").write_text(_POLICY)
