"""Rally's devices beyond the sampling ones esbench had: JVM options of jit/gc/jfr (checked against
Rally's own classes where Rally is installed), the device table against ``esrally list telemetry``,
the refusal of node devices for an existing cluster, and the parsing of CCR, transform, searchable
snapshots, GeoIP and blob store stats responses (shapes from Elasticsearch's API reference)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from peer_pythons import peer_python_or_skip

from esbench.cli.options.coverage import OSB, RALLY
from esbench.exceptions import ConfigError
from esbench.telemetry.cli import telemetry_table
from esbench.telemetry.device import ProvisionedNode
from esbench.telemetry.devices.blob_store_stats import parse_blob_store_stats
from esbench.telemetry.devices.ccr_stats import CcrStats, parse_ccr_stats
from esbench.telemetry.devices.geoip_stats import parse_geoip_stats
from esbench.telemetry.devices.heapdump import dump_command
from esbench.telemetry.devices.jvm_options import FlightRecorder, Gc, JitCompiler
from esbench.telemetry.devices.searchable_snapshots_stats import parse_searchable_snapshots_stats
from esbench.telemetry.devices.transform_stats import TransformStats, parse_transform_stats
from esbench.telemetry.race import check_telemetry, node_java_options
from esbench.telemetry.registry import DEVICES, create_devices, parse_device_names
from esbench.telemetry.settings import TelemetrySettings

# Rally's classes compute their options for each (device, params, JDK major); printed as JSON.
_RALLY_OPTIONS = """
import json, sys
from esrally import telemetry
cases = json.loads(sys.argv[1])
out = []
for device, params, major, root in cases:
    if device == "jit":
        d = telemetry.JitCompiler(root, major)
        out.append(d.instrument_java_opts())
    elif device == "gc":
        out.append(telemetry.Gc(params, root, major).java_opts(root + "/gc.log"))
    else:
        out.append(telemetry.FlightRecorder(params, root, major).java_opts(root + "/profile.jfr"))
print(json.dumps(out))
"""

_JFR_PARAMS = {"recording-template": "profile", "jfr-delay": "10s", "jfr-duration": "5m"}
_CASES = [
    ("jit", {}, 8),
    ("jit", {}, 17),
    ("gc", {}, 8),
    ("gc", {}, 17),
    ("gc", {"gc-log-config": "gc*=debug"}, 21),
    ("jfr", {}, 8),
    ("jfr", {}, 10),
    ("jfr", {}, 17),
    ("jfr", _JFR_PARAMS, 17),
]


def test_jvm_options_are_rallys_for_each_jdk(tmp_path: Path) -> None:
    root = str(tmp_path / "telemetry")
    cases = [(device, params, major, root) for device, params, major in _CASES]
    rally = subprocess.run(
        [str(peer_python_or_skip(RALLY)), "-c", _RALLY_OPTIONS, json.dumps(cases)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HOME": str(tmp_path)},  # Rally's console writes under ~/.rally
    )
    expected = json.loads(rally.stdout.strip().splitlines()[-1])
    classes = {"jit": JitCompiler, "gc": Gc, "jfr": FlightRecorder}
    ours = [list(classes[d](p).java_options(m, Path(root))) for d, p, m in _CASES]
    assert ours == expected


def test_node_java_options_joins_the_named_devices_only(tmp_path: Path) -> None:
    settings = TelemetrySettings(devices=("node-stats", "gc", "jfr"), params={"jfr-duration": "30s"})
    options = node_java_options(settings, 17, tmp_path)
    assert options[0].startswith("-Xlog:gc*=info,safepoint=info,age*=trace:file=")
    assert options[-1].endswith(f"filename={tmp_path / 'profile.jfr'},duration=30s")
    assert not any("LogCompilation" in o for o in options)  # jit was not named
    assert node_java_options(TelemetrySettings(devices=("node-stats",)), 17, tmp_path) == ()


def test_bad_jvm_device_parameters_are_refused() -> None:
    with pytest.raises(ConfigError, match="'jfr-delay' must be text"):
        create_devices(["jfr"], {"jfr-delay": ["10s"]})
    with pytest.raises(ConfigError, match=r"Unknown telemetry parameter 'gc-log-conf'.*'gc-log-config'"):
        create_devices(["gc"], {"gc-log-conf": "gc"})


@pytest.mark.parametrize("device", ["jit", "gc", "jfr", "heapdump"])
def test_node_devices_are_refused_for_an_existing_cluster(device: str) -> None:
    with pytest.raises(ConfigError, match=rf"device\(s\) {device} work on the nodes esbench provisions"):
        check_telemetry(TelemetrySettings(devices=(device,)), provisioned=False)
    check_telemetry(TelemetrySettings(devices=(device,)), provisioned=True)


_RALLY_LIST = """
from esrally import telemetry
import esrally.utils.console as console
lines = []
console.println = lambda msg="", *a, **k: lines.append(str(msg))
telemetry.list_telemetry()
skip = ("Command", "---", "Available", "Keep")
rows = [l for l in "\\n".join(lines).splitlines() if l and not l.startswith(skip)]
print(",".join(r.split()[0] for r in rows))
"""


def test_listed_devices_are_rallys_in_rallys_order_then_os_and_osbs_own(tmp_path: Path) -> None:
    rally = subprocess.run(
        [str(peer_python_or_skip(RALLY)), "-c", _RALLY_LIST],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    rally_names = rally.stdout.strip().splitlines()[-1].split(",")
    listed = [line.split()[0] for line in telemetry_table().splitlines()[4:] if line.strip()][:-1]
    # Then esbench's own device and OSB's only one.
    assert listed[: len(rally_names)] == rally_names
    assert listed[len(rally_names) :] == ["os", "segment-replication-stats"]
    # Hidden as in Rally, yet accepted by --telemetry.
    assert "master-node-stats" not in telemetry_table() and "blob-store-stats" not in telemetry_table()
    assert parse_device_names("master-node-stats,blob-store-stats") == (
        "master-node-stats",
        "blob-store-stats",
    )
    assert len(DEVICES) == len(rally_names) + 4  # os, segment-replication-stats and the two hidden ones


def test_per_cluster_parameters_read_the_default_cluster() -> None:
    assert CcrStats({"ccr-stats-indices": {"default": ["follower"]}}).indices == {"follower"}
    assert TransformStats({"transform-stats-transforms": "a,b"}).transforms == {"a", "b"}
    with pytest.raises(ConfigError, match=r"names the clusters \['remote'\]"):
        CcrStats({"ccr-stats-indices": {"remote": ["follower"]}})
    with pytest.raises(
        ConfigError, match="'transform-stats-sample-interval' must be a number greater than zero"
    ):
        TransformStats({"transform-stats-sample-interval": 0})


def test_ccr_stats_per_follower_shard_and_lag() -> None:
    shard = {
        "remote_cluster": "leader",
        "leader_index": "logs",
        "follower_index": "logs-copy",
        "shard_id": 0,
        "leader_global_checkpoint": 1020,
        "follower_global_checkpoint": 1000,
        "operations_written": 990,
        "time_since_last_read_millis": 15,
        "read_exceptions": [],
    }
    body = {
        "follow_stats": {
            "indices": [
                {
                    "index": "logs-copy",
                    "shards": [shard, {**shard, "shard_id": 1, "follower_global_checkpoint": 1015}],
                },
                {"index": "other", "shards": [shard]},
            ]
        }
    }
    values, units, lag = parse_ccr_stats(body, frozenset({"logs-copy"}))
    assert values[("logs-copy.0.operations_written", "")] == 990
    assert units[("logs-copy.0.time_since_last_read_millis", "")] == "ms"
    assert ("logs-copy.0.shard_id", "") not in values and not any(m.startswith("other.") for m, _ in values)
    assert lag == {"logs-copy": 25.0}  # 20 + 5 operations behind the leader


def test_transform_stats_are_rallys_values_with_throughput() -> None:
    stats = {
        "pages_processed": 4,
        "documents_processed": 1000,
        "documents_indexed": 40,
        "search_time_in_ms": 100,
        "processing_time_in_ms": 50,
        "index_time_in_ms": 50,
    }
    body = {"count": 2, "transforms": [{"id": "t1", "stats": stats}, {"id": "t2", "stats": {}}]}
    values, units = parse_transform_stats(body)
    assert values[("t1.transform_documents_processed", "")] == 1000
    assert values[("t1.transform_index_failures", "")] == 0  # missing fields count 0, as in Rally
    assert values[("t1.transform_throughput", "")] == pytest.approx(1000 / 200 * 1000)
    assert (
        units[("t1.transform_throughput", "")] == "docs/s" and units[("t1.transform_search_time", "")] == "ms"
    )
    assert ("t2.transform_throughput", "") not in values  # no processing time yet
    assert set(parse_transform_stats(body, frozenset({"t2"}))[0]) == {
        k for k in values if k[0].startswith("t2.")
    }
    device = TransformStats({})
    device.final = values
    rows = {(m.name, m.task): (m.value, m.unit) for m in device.summary()}
    assert rows[("Transform throughput", "t1")] == (5000.0, "docs/s")
    assert rows[("Transform processing time", "t1")] == (50.0, "ms")
    assert ("Transform throughput", "t2") not in rows and ("Transform search time", "t2") in rows


def test_searchable_snapshots_stats_per_file_type() -> None:
    fdt = {"file_ext": "fdt", "num_files": 2, "cached_bytes_read": {"count": 3, "sum": 4096}}
    body = {
        "total": [fdt],
        "indices": {"logs-mounted": {"total": [fdt]}, "other": {"total": [fdt]}},
    }
    values, _ = parse_searchable_snapshots_stats(body)
    assert values == {
        ("_all.fdt.num_files", ""): 2,
        ("_all.fdt.cached_bytes_read.count", ""): 3,
        ("_all.fdt.cached_bytes_read.sum", ""): 4096,
    }
    values, _ = parse_searchable_snapshots_stats(body, ("logs-*",))
    assert ("logs-mounted.fdt.num_files", "") in values and ("other.fdt.num_files", "") not in values


def test_geoip_stats_per_node_name() -> None:
    cache = {
        "count": 5,
        "hits": 90,
        "misses": 10,
        "evictions": 1,
        "hits_time_in_millis": 3,
        "misses_time_in_millis": 40,
    }
    body = {"stats": {}, "nodes": {"abc": {"cache_stats": cache}}}
    values, units = parse_geoip_stats(body, {"abc": "node-0"})
    assert values[("geoip_cache_hits", "node-0")] == 90
    assert units[("geoip_cache_misses_time_in_millis", "node-0")] == "ms"
    assert len(values) == 6


def test_blob_store_stats_cluster_and_nodes() -> None:
    body = {
        "_nodes": {"total": 1},
        "cluster_name": "serverless",
        "_all": {"object_store_stats": {"request_counts": {"GetObject": 7}}},
        "nodes": {"n1": {"operational_backup_service_stats": {"request_counts": {"PutObject": 2}}}},
    }
    values, _ = parse_blob_store_stats(body)
    assert values == {
        ("object_store.request_counts.GetObject", ""): 7,
        ("operational_backup.request_counts.PutObject", "n1"): 2,
    }


def test_heapdump_uses_the_nodes_jdk(tmp_path: Path) -> None:
    jdk = tmp_path / "jdk"
    (jdk / "bin").mkdir(parents=True)
    node = ProvisionedNode(name="node-0", pid=42, java_home=jdk, telemetry_dir=tmp_path)
    target = tmp_path / "heap_at_exit_42.hprof"
    (jdk / "bin" / "jcmd").touch()
    assert dump_command(node, target) == [str(jdk / "bin" / "jcmd"), "42", "GC.heap_dump", str(target)]
    (jdk / "bin" / "jmap").touch()
    assert dump_command(node, target) == [str(jdk / "bin" / "jmap"), f"-dump:format=b,file={target}", "42"]


def test_every_device_osb_lists_is_listed(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path)}
    script = _RALLY_LIST.replace("esrally", "osbenchmark")  # OSB keeps Rally's module layout here
    osb = subprocess.run(
        [str(peer_python_or_skip(OSB)), "-c", script], capture_output=True, text=True, check=True, env=env
    )
    osb_names = osb.stdout.strip().splitlines()[-1].split(",")
    listed = [line.split()[0] for line in telemetry_table().splitlines()[4:] if line.strip()][:-1]
    assert "segment-replication-stats" in osb_names
    assert set(osb_names) <= set(listed), set(osb_names) - set(listed)
