"""Distribution flavors: OpenSearch's names, Java range, Maven supply and node configuration."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from provfakes import STOCK_JVM_OPTIONS, write_zip

from esbench.exceptions import SupplyError, UserError
from esbench.provision.flavors import ELASTICSEARCH, OPENSEARCH, download_archive, get_flavor, obtain
from esbench.provision.installation import NodeState
from esbench.provision.launcher import node_env
from esbench.provision.nodeconfig import write_node_config
from esbench.provision.settings import ProvisionSettings
from esbench.provision.users import RunAs


@pytest.fixture(autouse=True)
def own_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache of the test's own esbench home, even when the shell exports a shared one."""
    monkeypatch.delenv("ESBENCH_DIST_CACHE", raising=False)


def opensearch_files(version: str = "2.18.0") -> dict[str, tuple[bytes, int]]:
    top = f"opensearch-{version}"
    return {
        f"{top}/bin/opensearch": (b"#!/bin/sh\nexit 0\n", 0o755),
        f"{top}/lib/opensearch-{version}.jar": (b"", 0o644),
        f"{top}/config/jvm.options": (STOCK_JVM_OPTIONS.encode(), 0o644),
        f"{top}/config/opensearch.yml": (b"# stock\n", 0o644),
    }


def test_flavor_lookup_and_unknown_name() -> None:
    assert get_flavor(None) is ELASTICSEARCH
    assert get_flavor("OpenSearch") is OPENSEARCH
    with pytest.raises(
        UserError, match="Unknown --distribution-flavor 'solr': use one of elasticsearch, opensearch"
    ):
        get_flavor("solr")


def test_opensearch_coordinates_and_java_range() -> None:
    assert (
        OPENSEARCH.maven_coordinates("2.18.0")
        == "org.opensearch.distribution.integ-test-zip:opensearch:2.18.0:zip"
    )
    assert ELASTICSEARCH.maven_coordinates("8.19.0").startswith(
        "org.elasticsearch.distribution.integ-test-zip:"
    )
    assert OPENSEARCH.java_requirement("2.18.0") == (11, 23)  # 2.x still needs the Security Manager
    assert OPENSEARCH.java_requirement("3.0.0") == (21, None)
    assert ELASTICSEARCH.java_requirement("8.19.0") == (17, None)


def test_obtain_opensearch_resolves_its_maven_artifact_once(
    tmp_path: Path, fake_mvn: Callable[..., Path]
) -> None:
    calls = fake_mvn(write_zip(tmp_path / "os.zip", opensearch_files()))
    settings = ProvisionSettings(distribution_flavor="opensearch", distribution_version="2.18.0")
    dist = obtain(settings)
    assert dist.version == "2.18.0" and dist.flavor == "integ-test"
    assert dist.home.name == "opensearch-2.18.0" and (dist.home / "bin" / "opensearch").is_file()
    assert "-Dartifact=org.opensearch.distribution.integ-test-zip:opensearch:2.18.0:zip" in calls.read_text()
    again = obtain(settings)
    assert again.home == dist.home
    assert len(calls.read_text().splitlines()) == 1  # the unpacked cache is reused


def test_unknown_opensearch_version_names_the_product(fake_mvn: Callable[..., Path]) -> None:
    fake_mvn(None)
    with pytest.raises(SupplyError, match=r"OpenSearch 2\.99\.0 was not found in the Maven repositories"):
        obtain(ProvisionSettings(distribution_flavor="opensearch", distribution_version="2.99.0"))


def test_opensearch_from_the_elastic_repository_is_refused() -> None:
    settings = ProvisionSettings(
        distribution_flavor="opensearch", distribution_version="2.18.0", distribution_repository="elastic"
    )
    with pytest.raises(UserError, match="serves Elasticsearch only"):
        obtain(settings)


def test_opensearch_distribution_path_must_contain_bin_opensearch(tmp_path: Path) -> None:
    es_like = write_zip(tmp_path / "x.zip", {"x-1/bin/elasticsearch": (b"", 0o755)})
    with pytest.raises(SupplyError, match="has no bin/opensearch"):
        obtain(ProvisionSettings(distribution_flavor="opensearch", distribution_path=es_like))
    dist = obtain(
        ProvisionSettings(
            distribution_flavor="opensearch",
            distribution_path=write_zip(tmp_path / "o.zip", opensearch_files()),
        )
    )
    assert dist.version == "2.18.0" and dist.flavor == "local"


def test_opensearch_node_config_and_environment(tmp_path: Path) -> None:
    dist_config = tmp_path / "dist" / "config"
    dist_config.mkdir(parents=True)
    (dist_config / "jvm.options").write_text(STOCK_JVM_OPTIONS)
    nodes = tuple(
        NodeState(
            name=f"node-{i}", dir=str(tmp_path / f"node-{i}"), http_port=9200 + i, transport_port=9300 + i
        )
        for i in range(2)
    )
    write_node_config(
        nodes[0],
        dist_config=dist_config,
        install_id="abc",
        cluster_name="esbench-abc",
        all_nodes=nodes,
        car_jvm_options=["-Xms1g"],
        car_settings={},
        flavor=OPENSEARCH,
    )
    config = nodes[0].config_dir
    assert not (config / "elasticsearch.yml").exists()
    settings = yaml.safe_load((config / "opensearch.yml").read_text())
    assert settings["cluster.initial_cluster_manager_nodes"] == ["node-0", "node-1"]
    assert "cluster.initial_master_nodes" not in settings
    assert not any(k.startswith("xpack.") for k in settings)  # OpenSearch rejects xpack settings
    env = node_env(
        java_home=Path("/jdk"),
        node=nodes[0],
        user=RunAs(name="u", uid=1, gid=1, home="/", switch=False),
        base={},
        flavor=OPENSEARCH,
    )
    assert env["OPENSEARCH_JAVA_HOME"] == "/jdk"
    assert env["OPENSEARCH_PATH_CONF"] == str(config)
    assert env["OPENSEARCH_TMPDIR"] == str(nodes[0].tmp_dir)
    assert "ES_PATH_CONF" not in env


def test_download_fetches_the_opensearch_artifact(tmp_path: Path, fake_mvn: Callable[..., Path]) -> None:
    calls = fake_mvn(write_zip(tmp_path / "os.zip", opensearch_files()))
    archive = download_archive(
        ProvisionSettings(distribution_flavor="opensearch", distribution_version="2.18.0")
    )
    assert archive.name == "opensearch-2.18.0.zip" and archive.is_file()
    assert "org.opensearch.distribution.integ-test-zip:opensearch:2.18.0:zip" in calls.read_text()


def test_both_flavors_key_a_distribution_path_by_its_file(tmp_path: Path) -> None:
    # One helper (distributions.local_archive) names the unpack directory for both flavors: same
    # archive, same directory; a replaced archive (other size) gets a new one.
    archive = write_zip(tmp_path / "o.zip", opensearch_files())
    settings = ProvisionSettings(distribution_flavor="opensearch", distribution_path=archive)
    first = obtain(settings)
    assert first.home.parent.name == "local" and first.home.name.startswith("o-")
    assert obtain(settings).home == first.home
    write_zip(archive, opensearch_files(version="2.19.1"))
    second = obtain(settings)
    assert second.home != first.home and second.version == "2.19.1"
