from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from loopback_http import directory_handler, serving
from provfakes import distribution_files, write_tar, write_zip

from esbench.exceptions import SupplyError, UserError
from esbench.provision.distributions import download_archive, maven_coordinates, obtain_distribution
from esbench.provision.ports import free_ports
from esbench.provision.repositories import distributions_cache, elastic_url
from esbench.provision.settings import ProvisionSettings


def test_cache_defaults_to_the_esbench_home_and_honours_esbench_dist_cache(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ESBENCH_DIST_CACHE", raising=False)
    assert distributions_cache() == isolated_home / "distributions"
    monkeypatch.setenv("ESBENCH_DIST_CACHE", str(tmp_path / "shared"))
    assert distributions_cache() == tmp_path / "shared"


def test_distribution_path_is_unpacked_once_and_reports_its_version(tmp_path: Path) -> None:
    archive = write_zip(tmp_path / "es.zip", distribution_files(version="8.15.0"))
    settings = ProvisionSettings(distribution_path=archive, distribution_version="9.9.9")
    first = obtain_distribution(settings)
    assert first.version == "8.15.0" and first.flavor == "local"
    assert (first.home / "bin" / "elasticsearch").is_file()
    (first.home / "sentinel").touch()
    assert obtain_distribution(settings).home == first.home
    assert (first.home / "sentinel").exists()


def test_missing_or_foreign_distribution_path(tmp_path: Path) -> None:
    with pytest.raises(SupplyError, match="does not exist"):
        obtain_distribution(ProvisionSettings(distribution_path=tmp_path / "nope.zip"))
    other = tmp_path / "x.rpm"
    other.write_text("")
    with pytest.raises(SupplyError, match=r"not a \.zip, \.tar\.gz"):
        obtain_distribution(ProvisionSettings(distribution_path=other))
    no_bin = write_tar(tmp_path / "nobin.tar.gz", {"thing/README": (b"", 0o644)})
    with pytest.raises(SupplyError, match="no bin/elasticsearch"):
        obtain_distribution(ProvisionSettings(distribution_path=no_bin))


def test_unknown_repository_is_a_user_error() -> None:
    with pytest.raises(UserError, match="--distribution-repository 'ivy'"):
        download_archive(ProvisionSettings(distribution_repository="ivy"))


def test_maven_resolves_with_mvn_once_then_uses_the_cache(
    tmp_path: Path, fake_mvn: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = fake_mvn(write_zip(tmp_path / "art.zip", distribution_files()))
    monkeypatch.setenv("ESBENCH_MVN_ARGS", "-Dmaven.repo.local=/tmp/somewhere -s my-settings.xml")
    settings = ProvisionSettings(distribution_version="8.19.0", distribution_repository="maven")
    dist = obtain_distribution(settings)
    assert dist.version == "8.19.0" and dist.flavor == "integ-test"
    assert dist.home == distributions_cache() / "maven" / "elasticsearch-8.19.0"
    args = calls.read_text().splitlines()
    assert len(args) == 1
    assert f"-Dartifact={maven_coordinates('8.19.0')}" in args[0]
    assert "dependency:copy" in args[0] and "-Dmaven.repo.local=/tmp/somewhere -s my-settings.xml" in args[0]
    assert " -o " not in f" {args[0]} "
    obtain_distribution(ProvisionSettings(distribution_version="8.19.0", distribution_repository="maven"))
    assert len(calls.read_text().splitlines()) == 1  # second start: no mvn, no unpack


def test_maven_offline_passes_dash_o(tmp_path: Path, fake_mvn: Callable[..., Path]) -> None:
    calls = fake_mvn(write_zip(tmp_path / "art.zip", distribution_files()))
    path = download_archive(ProvisionSettings(offline=True, distribution_repository="maven"))
    assert path.name == "elasticsearch-8.19.0.zip" and path.is_file()
    assert " -o " in f" {calls.read_text()} "


def test_maven_unknown_version(fake_mvn: Callable[..., Path]) -> None:
    fake_mvn(None)
    with pytest.raises(SupplyError, match=r"Elasticsearch 8\.99\.0 was not found in the Maven repositories"):
        obtain_distribution(ProvisionSettings(distribution_version="8.99.0", distribution_repository="maven"))
    assert not (distributions_cache() / "maven" / "elasticsearch-8.99.0").exists()


def test_missing_mvn(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SupplyError, match="'mvn' command was not found"):
        download_archive(ProvisionSettings(distribution_repository="maven"))


def test_elastic_url_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ESBENCH_DISTRIBUTION_URL", raising=False)
    url = elastic_url("8.19.0")
    assert url.startswith("https://artifacts.elastic.co/downloads/elasticsearch/elasticsearch-8.19.0-")
    assert url.endswith(".tar.gz")
    assert elastic_url("9.0.0", "http://mirror/{version}/es-{os}-{arch}.tgz").startswith(
        "http://mirror/9.0.0/es-"
    )
    monkeypatch.setenv("ESBENCH_DISTRIBUTION_URL", "http://env-mirror/es-{version}.tar.gz")
    assert elastic_url("8.1.0") == "http://env-mirror/es-8.1.0.tar.gz"
    with pytest.raises(UserError, match="Bad distribution URL template"):
        elastic_url("8.1.0", "http://x/{flavour}.tar.gz")


def test_elastic_unreachable_server_is_a_supply_error() -> None:
    (closed,) = free_ports(1)
    template = f"http://127.0.0.1:{closed}/elasticsearch-{{version}}.tar.gz"
    with pytest.raises(SupplyError, match=rf"Cannot download .* from http://127.0.0.1:{closed}/.*maven"):
        obtain_distribution(
            ProvisionSettings(distribution_repository="elastic", elastic_url_template=template)
        )


def test_elastic_offline_without_cache() -> None:
    with pytest.raises(SupplyError, match="--offline forbids downloading"):
        download_archive(ProvisionSettings(distribution_repository="elastic", offline=True))


@pytest.fixture
def http_dir(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "www"
    root.mkdir()
    with serving(directory_handler(root)) as host:
        yield f"http://{host}", root


def test_elastic_download_then_cache_and_404(http_dir: tuple[str, Path]) -> None:
    base, root = http_dir
    write_tar(root / "elasticsearch-8.19.0-linux.tar.gz", distribution_files())
    settings = ProvisionSettings(
        distribution_repository="elastic", elastic_url_template=base + "/elasticsearch-{version}-linux.tar.gz"
    )
    dist = obtain_distribution(settings)
    assert dist.flavor == "default" and (dist.home / "bin" / "elasticsearch").is_file()
    (root / "elasticsearch-8.19.0-linux.tar.gz").unlink()  # cached now: no second download
    assert obtain_distribution(settings).home == dist.home
    missing = ProvisionSettings(
        distribution_repository="elastic",
        distribution_version="8.99.0",
        elastic_url_template=base + "/elasticsearch-{version}-linux.tar.gz",
    )
    with pytest.raises(SupplyError, match="HTTP 404"):
        obtain_distribution(missing)
