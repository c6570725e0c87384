from __future__ import annotations

from pathlib import Path

import yaml
from provfakes import STOCK_JVM_OPTIONS

from esbench.provision.installation import NodeState
from esbench.provision.launcher import is_bind_failure
from esbench.provision.nodeconfig import (
    adapt_jvm_options,
    base_settings,
    node_settings,
    render_elasticsearch_yml,
    write_node_config,
)


def _nodes(tmp_path: Path, n: int) -> list[NodeState]:
    return [
        NodeState(
            name=f"node-{i}", dir=str(tmp_path / f"node-{i}"), http_port=9200 + i, transport_port=9300 + i
        )
        for i in range(n)
    ]


def test_single_node_uses_single_node_discovery_on_loopback(tmp_path: Path) -> None:
    (node,) = _nodes(tmp_path, 1)
    s = node_settings(node, cluster_name="c", all_nodes=[node])
    assert s["discovery.type"] == "single-node"
    assert s["network.host"] == "127.0.0.1" and s["http.port"] == 9200 and s["transport.port"] == 9300
    assert s["path.data"] == str(tmp_path / "node-0" / "data")


def test_multi_node_seeds_every_transport_port(tmp_path: Path) -> None:
    nodes = _nodes(tmp_path, 3)
    s = node_settings(nodes[1], cluster_name="c", all_nodes=nodes)
    assert "discovery.type" not in s
    assert s["discovery.seed_hosts"] == ["127.0.0.1:9300", "127.0.0.1:9301", "127.0.0.1:9302"]
    assert s["cluster.initial_master_nodes"] == ["node-0", "node-1", "node-2"]


def test_yml_security_off_by_default_car_may_override_but_not_identity() -> None:
    text = render_elasticsearch_yml({"xpack.security.enabled": True, "http.port": 1}, {"http.port": 9200})
    parsed = yaml.safe_load(text)
    assert parsed["xpack.security.enabled"] is True and parsed["http.port"] == 9200
    assert yaml.safe_load(render_elasticsearch_yml({}, {}))["xpack.security.enabled"] is False


def test_jvm_options_paths_made_absolute_and_gc_replaced_only_when_car_picks_one(tmp_path: Path) -> None:
    logs, data = tmp_path / "logs", tmp_path / "data"
    kept = adapt_jvm_options(STOCK_JVM_OPTIONS, ["-Xms1g"], logs_dir=logs, data_dir=data)
    assert "\n-XX:+UseG1GC\n" in kept
    assert f"file={logs}/gc.log:" in kept and f"-XX:ErrorFile={logs}/hs_err" in kept
    assert f"-XX:HeapDumpPath={data}\n" in kept
    swapped = adapt_jvm_options(STOCK_JVM_OPTIONS, ["-XX:+UseParallelGC"], logs_dir=logs, data_dir=data)
    assert "\n-XX:+UseG1GC\n" not in swapped and "# disabled by esbench" in swapped


def test_security_is_only_switched_off_where_the_module_exists(tmp_path: Path) -> None:
    assert base_settings(tmp_path) == {}
    (tmp_path / "modules" / "x-pack-security").mkdir(parents=True)
    assert base_settings(tmp_path) == {"xpack.security.enabled": False}


def test_opensearchs_security_plugin_is_switched_off_where_the_bundle_has_it(tmp_path: Path) -> None:
    # OpenSearch's release bundle (--distribution-repository=release) carries plugins/opensearch-security;
    # its Maven integ-test zip does not, and an unknown plugins.security.* setting would stop that node.
    assert base_settings(tmp_path) == {}
    (tmp_path / "plugins" / "opensearch-security").mkdir(parents=True)
    assert base_settings(tmp_path) == {"plugins.security.disabled": True}


def test_data_paths_are_the_nodes_path_data_and_a_car_setting_is_not(tmp_path: Path) -> None:
    dist_config = tmp_path / "dist" / "config"
    dist_config.mkdir(parents=True)
    (dist_config / "jvm.options").write_text(STOCK_JVM_OPTIONS)
    node = NodeState(name="node-0", dir=str(tmp_path / "node-0"), http_port=9200, transport_port=9300)

    def written(**kw: object) -> dict[str, object]:
        write_node_config(
            node, dist_config=dist_config, install_id="abc", cluster_name="c", all_nodes=[node],
            car_jvm_options=[], **kw,  # type: ignore[arg-type]
        )  # fmt: skip
        return dict(yaml.safe_load((node.config_dir / "elasticsearch.yml").read_text()))

    # Rally's data_paths variable names the node's path.data; the node's own logs stay where they are.
    chosen = written(car_settings={}, data_paths=["/ssd/esdata"])
    assert chosen["path.data"] == "/ssd/esdata" and chosen["path.logs"] == str(node.logs_dir)
    assert written(car_settings={}, data_paths=["/a", "/b"])["path.data"] == ["/a", "/b"]
    # A car's own path.data setting does not move the node's data (only data_paths does).
    assert written(car_settings={"path.data": "/elsewhere"})["path.data"] == str(node.data_dir)


def test_only_a_port_failure_counts_as_a_taken_port(tmp_path: Path) -> None:
    # Elasticsearch wraps every start failure in "Failed to bind service"; an unwritable data
    # path is not a port another process took (it used to be retried as one, three times).
    node = NodeState(name="node-0", dir=str(tmp_path / "node-0"))
    node.path.mkdir()
    node.console_log.write_text(
        "fatal exception while booting Elasticsearch org.elasticsearch.ElasticsearchException: "
        "Failed to bind service\nCaused by: java.nio.file.AccessDeniedException: /ssd/esdata\n"
    )
    assert not is_bind_failure(node, "c")
    node.console_log.write_text(
        "BindHttpException[Failed to bind to 127.0.0.1:9200]; nested: BindException\n"
    )
    assert is_bind_failure(node, "c")
