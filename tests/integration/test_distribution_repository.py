"""``--distribution-repository=auto`` end to end with real Elasticsearch nodes (slow: each race starts one).

Elastic's download server is not reachable from the project machines, so a loopback HTTP server
plays it: it serves a ``.tar.gz`` built here from the integ-test zip under the full distribution's
file name, which exercises the whole "full distribution" path (probe, download, unpack, start). A
closed loopback port plays the unreachable server.
"""

from __future__ import annotations

import socket
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import dist_cache, esbench
from loopback_http import directory_handler, serving

from esbench.provision.archives import COMPLETE_MARKER, unpack
from esbench.provision.distributions import download_archive
from esbench.provision.repositories import INTEG_TEST_MISSING_MODULES, elastic_url
from esbench.provision.settings import DEFAULT_DISTRIBUTION_VERSION, ProvisionSettings
from esbench.results.store import ResultsStore

pytestmark = pytest.mark.slow

TRACKS = Path(__file__).resolve().parent.parent / "resources" / "requirements"
TEMPLATE = "/elasticsearch-{version}-{os}-{arch}.tar.gz"
VERSION = DEFAULT_DISTRIBUTION_VERSION


@pytest.fixture(scope="module")
def full_distribution_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the integ-test distribution re-packed as the full distribution's tar.gz."""
    work = tmp_path_factory.mktemp("full-dist")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ESBENCH_DIST_CACHE", dist_cache())
        zip_path = download_archive(ProvisionSettings(distribution_repository="maven"))
    unpacked = unpack(zip_path, work / "unpacked" / f"elasticsearch-{VERSION}")
    www = work / "www"
    www.mkdir()
    name = elastic_url(VERSION, "http://x" + TEMPLATE).rsplit("/", 1)[-1]
    with tarfile.open(www / name, "w:gz", compresslevel=1) as tar:
        tar.add(
            unpacked,
            arcname=f"elasticsearch-{VERSION}",
            filter=lambda info: None if info.name.endswith(COMPLETE_MARKER) else info,
        )
    return www


@pytest.fixture
def download_server(full_distribution_dir: Path) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    seen: list[tuple[str, str]] = []
    with serving(directory_handler(full_distribution_dir, seen=seen)) as host:
        yield f"http://{host}", seen


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_auto_downloads_unpacks_and_starts_the_full_distribution(
    download_server: tuple[str, list[tuple[str, str]]], tmp_path: Path
) -> None:
    base, seen = download_server
    cache = tmp_path / "dist-cache"  # private: the re-packed archive must not reach the shared cache
    env = {"ESBENCH_DISTRIBUTION_URL": base + TEMPLATE, "ESBENCH_DIST_CACHE": str(cache)}
    proc = esbench("race", f"--track-path={TRACKS / 'needs-nothing'}", "--user-tag=case:full-dist", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "[WARNING]" not in proc.stderr and "Traceback" not in proc.stderr
    assert [m for m, _ in seen] == ["HEAD", "GET"]
    stem = elastic_url(VERSION, base + TEMPLATE).rsplit("/", 1)[-1].removesuffix(".tar.gz")
    assert (cache / "elastic" / stem / COMPLETE_MARKER).exists()
    race = ResultsStore.open().find(user_tags={"case": "full-dist"})[0]
    assert race.distribution_repository == "elastic"
    assert race.distribution_note == f"the full default distribution from {base}{seen[0][1]}"
    assert race.cluster_version == VERSION and race.status == "completed"


def test_auto_falls_back_to_maven_with_one_line_when_the_server_is_unreachable() -> None:
    port = _closed_port()
    env = {"ESBENCH_DISTRIBUTION_URL": f"http://127.0.0.1:{port}{TEMPLATE}"}
    proc = esbench("race", f"--track-path={TRACKS / 'needs-nothing'}", "--user-tag=case:fallback", env=env)
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "distribution is not available" in ln]
    assert len(lines) == 1 and lines[0].startswith("[WARNING] ")
    assert f"127.0.0.1:{port}" in lines[0] and "refused" in lines[0]
    assert f"lacks the modules {', '.join(INTEG_TEST_MISSING_MODULES)}" in lines[0]
    race = ResultsStore.open().find(user_tags={"case": "fallback"})[0]
    assert race.distribution_repository == "maven"
    assert race.distribution_note == lines[0].removeprefix("[WARNING] ")
    assert race.status == "completed"


def test_from_distribution_race_also_checks_requirements_before_the_first_task() -> None:
    env = {"ESBENCH_DISTRIBUTION_URL": f"http://127.0.0.1:{_closed_port()}{TEMPLATE}"}
    proc = esbench("race", f"--track-path={TRACKS / 'needs-modules'}", "--on-error=abort", env=env)
    assert proc.returncode == 64, proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("[ERROR] ")]
    assert len(errors) == 1 and "lacks modules the track needs" in errors[0]
    assert "ingest processor 'grok' in task 'put-log-pipeline'" in errors[0]
    assert "Stopping the cluster" in proc.stderr
    from esbench.provision.cluster import running_installations

    assert running_installations() == []
