"""``download``, ``install``, ``list opensearch-plugins`` and the OpenSearch release repository with
Rally 2.13's and OSB 2.4.0's own functions as the oracle (``peer_provision_script.py``, run in each
peer's Python): a script that parses the peer's output parses esbench's, stream for stream."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner
from loopback_http import directory_handler, serving
from provfakes import distribution_files, write_tar

from esbench.cli import main
from esbench.cli.options.coverage import OSB, RALLY, Peer, peer_python
from esbench.exceptions import SupplyError, UserError
from esbench.provision.flavors import download_archive, flavor_of_version, obtain
from esbench.provision.plugins import list_opensearch_plugins
from esbench.provision.repositories import opensearch_release_url
from esbench.provision.settings import DistributionRepository, ProvisionSettings

SCRIPT = Path(__file__).with_name("peer_provision_script.py")


def _peer(peer: Peer, request: dict[str, Any], home: Path) -> dict[str, str]:
    try:
        python = peer_python(peer)
    except UserError as e:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(str(e), pytrace=False)
        pytest.skip(str(e))
    done = subprocess.run(
        [str(python), str(SCRIPT), json.dumps(request)],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home), "PYTHONWARNINGS": "ignore"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def _esbench(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


_PEERS = [(RALLY, "rally", "elasticsearch"), (OSB, "osb", "opensearch")]


@pytest.mark.parametrize(("peer", "name", "flavor"), _PEERS, ids=["rally", "osb"])
def test_download_prints_what_the_peer_prints(
    peer: Peer, name: str, flavor: str, fake_dist: Callable[..., Path], tmp_path: Path
) -> None:
    archive = fake_dist()
    expected = _peer(
        peer, {"peer": name, "command": "download", "key": flavor, "value": str(archive)}, tmp_path
    )
    code, out, err = _esbench(
        "download", f"--distribution-flavor={flavor}", f"--distribution-path={archive}", "--quiet"
    )
    assert code == 0, err
    assert (out, err) == (expected["stdout"], expected["stderr"])
    assert json.loads(out) == {flavor: str(archive)}


@pytest.mark.parametrize(("peer", "name", "flavor"), _PEERS, ids=["rally", "osb"])
def test_install_prints_the_id_as_the_peer_does(
    peer: Peer, name: str, flavor: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Rally's on stdout (its docs: `esrally install --quiet ... | jq '.["installation-id"]'`); OSB's on
    # stderr. The installation itself is faked: what is compared is what the command prints.
    inst_id = "0e5b6c9a-2f31-4c59-9c2a-1d1c2b3a4d5e"
    fake = SimpleNamespace(
        id=inst_id,
        distribution_flavor=flavor,
        version="9.9.9",
        car={"name": "defaults"},
        nodes=(1,),
        root="/r",
    )
    monkeypatch.setattr("esbench.provision.cluster.install", lambda settings: fake)
    expected = _peer(peer, {"peer": name, "command": "install", "key": flavor, "value": inst_id}, tmp_path)
    args = ("install", f"--distribution-flavor={flavor}", "--distribution-repository=maven")
    code, out, err = _esbench(*args, "--quiet")
    assert code == 0, err
    assert (out, err) == (expected["stdout"], expected["stderr"])
    # Without --quiet the JSON is still alone on its stream; the progress line is on the other.
    code, out, err = _esbench(*args)
    json_stream, other = (err, out) if flavor == "opensearch" else (out, err)
    assert json.loads(json_stream) == {"installation-id": inst_id}
    assert other.startswith("Installed ") and inst_id not in other


def test_list_opensearch_plugins_is_osbs_listing_offline(tmp_path: Path) -> None:
    expected = _peer(OSB, {"peer": "osb", "command": "list-plugins"}, tmp_path)
    code, out, err = _esbench("list", "opensearch-plugins", "--offline")
    assert code == 0, err
    # OSB lists its configured plugins in directory order (the file system's); the rest is identical.
    ours, theirs = out.splitlines(), expected["stdout"].splitlines()
    configured = len([c for _, c in list_opensearch_plugins() if c])
    assert ours[:-configured] == theirs[:-configured]
    assert sorted(ours[-configured:]) == sorted(theirs[-configured:])
    assert "configurations (transport-nio:transport, transport-nio:http) come from a team" in err
    # A team given: that team's plugins, as 'list elasticsearch-plugins' (Rally's) lists them.
    sample = Path(__file__).resolve().parents[2] / "resources" / "teams" / "sample"
    code, out, _ = _esbench("list", "opensearch-plugins", f"--team-path={sample}")
    assert code == 0 and ["esbench-demo", "wire"] in [line.split() for line in out.splitlines()]


@pytest.mark.parametrize(
    ("system", "machine"),
    [("Linux", "x86_64"), ("Linux", "aarch64"), ("Darwin", "arm64"), ("FreeBSD", "amd64")],
)
def test_the_release_url_is_osbs(system: str, machine: str, tmp_path: Path) -> None:
    request = {
        "peer": "osb",
        "command": "release-url",
        "version": "2.19.1",
        "system": system,
        "machine": machine,
    }
    expected = _peer(OSB, request, tmp_path)["url"]
    assert opensearch_release_url("2.19.1", system=system, machine=machine) == expected


def _opensearch_bundle(root: Path, version: str) -> Path:
    """A fake OpenSearch bundle (bin/opensearch, lib/opensearch-<v>.jar) under ``root`` at the path
    the release URL names."""
    files = {
        path.replace(f"elasticsearch-{version}", f"opensearch-{version}").replace(
            "elasticsearch", "opensearch"
        ): content
        for path, content in distribution_files(version).items()
    }
    url_path = opensearch_release_url(version, template="/{version}/opensearch-{version}-{os}-{arch}.tar.gz")
    target = root / url_path.lstrip("/")
    target.parent.mkdir(parents=True)
    return write_tar(target, files)


def test_release_supplies_opensearch_from_the_release_server_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ESBENCH_DIST_CACHE", raising=False)  # the test's home: the fake stays there
    root = tmp_path / "srv"
    seen: list[tuple[str, str]] = []
    _opensearch_bundle(root, "2.19.1")
    settings = ProvisionSettings(
        distribution_version="2.19.1",
        distribution_flavor="opensearch",
        distribution_repository=DistributionRepository.RELEASE,
    )
    with serving(directory_handler(root, seen=seen)) as host:
        monkeypatch.setenv(
            "ESBENCH_OPENSEARCH_DISTRIBUTION_URL",
            f"http://{host}/{{version}}/opensearch-{{version}}-{{os}}-{{arch}}.tar.gz",
        )
        dist = obtain(settings)
        again = obtain(settings)
    assert (dist.home / "bin" / "opensearch").is_file() and dist.version == "2.19.1"
    assert dist.flavor == "default" and again.home == dist.home
    assert dist.home.parent.name == "release" and len(seen) == 1
    # Cached now: --offline finds it.
    assert download_archive(ProvisionSettings(**{**settings.__dict__, "offline": True})).is_file()


def test_release_unreachable_or_offline_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = ProvisionSettings(
        distribution_version="2.19.1",
        distribution_flavor="opensearch",
        distribution_repository=DistributionRepository.RELEASE,
    )
    monkeypatch.setenv(
        "ESBENCH_OPENSEARCH_DISTRIBUTION_URL", "http://127.0.0.1:9/os-{version}-{os}-{arch}.tar.gz"
    )
    with pytest.raises(SupplyError) as unreachable:
        download_archive(settings)
    message = str(unreachable.value)
    assert "Cannot download the OpenSearch distribution from http://127.0.0.1:9/os-2.19.1-" in message
    assert "OpenSearch's release server may be unreachable" in message
    assert "--distribution-repository=maven" in message
    monkeypatch.delenv("ESBENCH_OPENSEARCH_DISTRIBUTION_URL")
    code, out, err = _esbench(
        "download", "--distribution-version=2.19.1", "--distribution-repository=release", "--offline"
    )
    assert code == 64 and out == "" and "Traceback" not in err
    assert "--offline forbids downloading it from https://artifacts.opensearch.org/releases/bundle/" in err


def test_a_version_only_opensearch_has_means_opensearch(monkeypatch: pytest.MonkeyPatch) -> None:
    # Rally 2.13 provisions Elasticsearch 6.8.0 and later (esrally/min-es-version.txt); OpenSearch's
    # majors are 1 to 3 (OSB 2.4.0 osbenchmark/min-os-version.txt: 1.0.0).
    assert flavor_of_version("2.19.1") == flavor_of_version("1.3.20") == flavor_of_version("3.0.0")
    assert flavor_of_version("2.19.1") == "opensearch"
    assert flavor_of_version("8.19.0") is flavor_of_version("7.17.0") is flavor_of_version("x") is None
    seen: list[ProvisionSettings] = []

    def fake_download(settings: ProvisionSettings) -> Path:
        seen.append(settings)
        return Path("/a")

    monkeypatch.setattr("esbench.cli.provision.download_archive", fake_download)
    code, out, err = _esbench(
        "download", "--distribution-version=2.19.1", "--distribution-repository=release"
    )
    assert code == 0 and json.loads(out) == {"opensearch": "/a"}
    assert seen[-1].distribution_flavor == "opensearch" and seen[-1].distribution_repository == "release"
    assert "[INFO] --distribution-version=2.19.1 is an OpenSearch version" in err
    code, out, err = _esbench("download", "--distribution-version=2.19.1", "--quiet")
    assert code == 0 and err == "" and seen[-1].distribution_flavor == "opensearch"
    # Told otherwise, or an Elasticsearch version: Elasticsearch; Rally's release is Elastic's server.
    code, out, _ = _esbench(
        "download",
        "--distribution-version=2.19.1",
        "--distribution-flavor=elasticsearch",
        "--distribution-repository=release",
    )
    assert seen[-1].distribution_flavor == "elasticsearch" and seen[-1].distribution_repository == "elastic"
    code, out, err = _esbench(
        "download", "--distribution-version=8.19.0", "--distribution-repository=release"
    )
    assert seen[-1].distribution_flavor == "elasticsearch" and json.loads(out) == {"elasticsearch": "/a"}
    assert "[INFO]" not in err
