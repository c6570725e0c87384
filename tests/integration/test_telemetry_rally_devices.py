"""Rally's JVM devices (jit, gc, jfr, heapdump) on a node esbench provisions, and Rally's cluster
devices (ccr-stats, transform-stats, searchable-snapshots-stats, geoip-stats, master-node-stats,
blob-store-stats) against the shared node.

Where the node lacks a device's feature (the Maven integ-test build has no CCR, transforms,
searchable snapshots or ingest-geoip), the device must end the way Rally 2.13's does on that build
(benchmarks/rally_telemetry_oracle.sh ran it): ccr-stats, searchable-snapshots-stats and
blob-store-stats record nothing and the race completes; transform-stats and geoip-stats exit 64
(Rally after the race, esbench before it). Where the node has the feature, the test asks for samples.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from clusters import ES_VERSION
from elasticsearch import Elasticsearch
from feature_api_stub import FOLLOWER, LAG_OPS, TRANSFORM_ID, feature_api_stub
from harness import TRACKS, esbench, no_traceback, ok, race_dir

from esbench.records import RaceResult

TRACK = TRACKS / "compare-tiny"


def _race(*args: str, timeout: float = 280) -> subprocess.CompletedProcess[str]:
    return esbench("race", f"--track-path={TRACK}", "--test-mode", *args, timeout=timeout)


def _stored(proc: subprocess.CompletedProcess[str]) -> RaceResult:
    return RaceResult.from_dict(json.loads((race_dir(proc) / "results.json").read_text()))


def _has_api(host: str, method: str, path: str) -> bool:
    es = Elasticsearch(f"http://{host}")
    try:
        return es.options(ignore_status=(400, 404, 405)).perform_request(method, path).meta.status == 200
    finally:
        es.close()


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_jvm_devices_leave_their_files_with_the_race(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    proc = ok(
        _race(
            "--distribution-repository=maven",
            f"--distribution-version={ES_VERSION}",
            "--car-params=heap_size:512m",
            "--telemetry=jit,gc,jfr,heapdump,master-node-stats",
            "--telemetry-params=gc-log-config:gc*=info,master-node-stats-sample-interval:1",
            "--report-format=json",
            f"--report-file={report}",
            timeout=580,
        )
    )
    files = race_dir(proc) / "telemetry" / "node-0"
    (dump,) = files.glob("heap_at_exit_*.hprof")
    pid = dump.name.removeprefix("heap_at_exit_").removesuffix(".hprof")
    assert f"Heap Dump: wrote {dump}" in proc.stderr
    # Each file is what its JVM option makes the node's JVM (the one heapdump attached to) write.
    assert dump.open("rb").read(18) == b"JAVA PROFILE 1.0.2"
    jit = files / "jit.log"
    with jit.open(encoding="utf-8", errors="replace") as fh:
        head = fh.read(4096)
    assert "<hotspot_log" in head and f"process='{pid}'" in head
    assert "<task " in jit.read_text(encoding="utf-8", errors="replace")[-2_000_000:]  # compilations
    gc_log = (files / "gc.log").read_text()
    # gc-log-config was honoured: gc tags only, no safepoint lines of Rally's default config.
    assert "[info][gc" in gc_log and "safepoint" not in gc_log
    assert (files / "profile.jfr").read_bytes()[:4] == b"FLR\0"  # dumped when the node stopped
    race = _stored(proc)
    master = [s for s in race.telemetry if (s.device, s.metric) == ("master-node-stats", "master")]
    assert [s.node for s in master] == ["node-0"] and set(master[0].values) == {1.0}
    rows = {(m["metric"], m["task"]): m for m in json.loads(report.read_text())["metrics"]}
    assert rows[("Master node changes", "")]["value"] == 0


def test_jvm_devices_are_refused_for_an_existing_cluster(es_hosts: list[str]) -> None:
    proc = _race(f"--target-hosts={es_hosts[0]}", "--pipeline=benchmark-only", "--telemetry=node-stats,jfr")
    assert proc.returncode == 64, proc.stderr
    no_traceback(proc)
    assert "jfr work on the nodes esbench provisions" in proc.stderr and "benchmark-only" in proc.stderr


def test_ccr_searchable_snapshots_blob_store_and_master_node_stats(es_hosts: list[str]) -> None:
    host = es_hosts[0]
    has_ccr = _has_api(host, "GET", "/_ccr/stats")
    has_snapshots = _has_api(host, "GET", "/_searchable_snapshots/stats")
    proc = ok(
        _race(
            f"--target-hosts={host}",
            "--telemetry=ccr-stats,searchable-snapshots-stats,blob-store-stats,master-node-stats",
            "--telemetry-params=ccr-stats-sample-interval:0.5,searchable-snapshots-stats-sample-interval:0.5,"
            "master-node-stats-sample-interval:0.5",
        )
    )
    race = _stored(proc)
    # A node esbench did not provision: the master is named by the cluster.
    es = Elasticsearch(f"http://{host}")
    try:
        master_id = es.cluster.state(metric="master_node")["master_node"]
        master_name = es.nodes.info(node_id=master_id)["nodes"][master_id]["name"]
    finally:
        es.close()
    master = [s for s in race.telemetry if s.device == "master-node-stats"]
    assert [(s.metric, s.node) for s in master] == [("master", master_name)] and len(master[0].values) >= 2
    assert f"the elected master was {master_name}" in proc.stderr
    # Not serverless: Rally's "only supported with serverless Elasticsearch", said in a warning.
    assert "blob-store-stats recorded nothing: it works with serverless Elasticsearch only" in proc.stderr
    assert not any(s.device == "blob-store-stats" for s in race.telemetry)
    for device, present in (("ccr-stats", has_ccr), ("searchable-snapshots-stats", has_snapshots)):
        if present:  # a cluster with the plugin but without followers or mounted indices: no error
            assert f"{device} recorded nothing" not in proc.stderr
        else:
            assert f"Telemetry device {device} recorded nothing: the cluster has no" in proc.stderr
            assert not any(s.device == device for s in race.telemetry)


@pytest.mark.parametrize(
    ("device", "method", "path", "needs"),
    [
        ("transform-stats", "GET", "/_transform/_all/_stats", "x-pack transform plugin"),
        ("geoip-stats", "GET", "/_ingest/geoip/stats", "ingest-geoip module"),
    ],
)
def test_transform_and_geoip_stats_sample_or_refuse_like_rally(
    es_hosts: list[str], device: str, method: str, path: str, needs: str
) -> None:
    host = es_hosts[0]
    proc = _race(f"--target-hosts={host}", f"--telemetry={device}")
    no_traceback(proc)
    if _has_api(host, method, path):
        ok(proc)
        race = _stored(proc)
        if device == "geoip-stats":
            assert any(s.metric == "geoip_cache_hits" for s in race.telemetry)
    else:
        assert proc.returncode == 64, proc.stderr
        assert f"'{device}' needs" in proc.stderr and "lacks" in proc.stderr and needs in proc.stderr
        assert "results in " not in proc.stderr  # refused before the first task: no race stored


def test_feature_devices_samples_reach_the_results_and_the_report(
    es_hosts: list[str], tmp_path: Path
) -> None:
    # No distribution here has CCR, transforms, searchable snapshots or ingest-geoip: a proxy in front
    # of the shared node answers those APIs with documented shapes (tests/feature_api_stub.py) and
    # forwards the race's requests. What this proves is esbench's side: the requests each device
    # makes, and where its samples go.
    report = tmp_path / "report.json"
    with feature_api_stub(es_hosts[0]) as (host, calls):
        proc = ok(
            _race(
                f"--target-hosts={host}",
                "--telemetry=ccr-stats,transform-stats,searchable-snapshots-stats,geoip-stats",
                "--telemetry-params=ccr-stats-sample-interval:0.5,transform-stats-sample-interval:0.5,"
                "searchable-snapshots-stats-sample-interval:0.5",
                "--report-format=json",
                f"--report-file={report}",
            )
        )
    race = _stored(proc)
    series = {(s.device, s.metric, s.node): s for s in race.telemetry}
    rows = {(m["metric"], m["task"]): m for m in json.loads(report.read_text())["metrics"]}

    # Sampled from before the first task to after the last: a start probe plus >= 3 samples each.
    ops = series[("ccr-stats", f"{FOLLOWER}.0.operations_written", "")]
    assert len(ops.values) >= 3 and list(ops.values) == sorted(ops.values)
    assert series[("ccr-stats", f"{FOLLOWER}.0.time_since_last_read_millis", "")].unit == "ms"
    assert rows[("Max CCR follower lag", FOLLOWER)]["value"] == LAG_OPS

    docs = series[("transform-stats", f"{TRANSFORM_ID}.transform_documents_processed", "")]
    assert calls["/_transform/_all/_stats"] == len(docs.values) + 1 and len(docs.values) >= 3
    throughput = series[("transform-stats", f"{TRANSFORM_ID}.transform_throughput", "")]
    assert throughput.unit == "docs/s" and set(throughput.values) == {100 / 30 * 1000}
    # The report shows the last sample (Rally's total_* values): n-th call, n = the number of calls.
    n = calls["/_transform/_all/_stats"]
    assert rows[("Transform processing time", TRANSFORM_ID)]["value"] == 10 * n
    assert rows[("Transform throughput", TRANSFORM_ID)]["unit"] == "docs/s"

    assert len(series[("searchable-snapshots-stats", "_all.fdt.open_count", "")].values) >= 3

    es = Elasticsearch(f"http://{es_hosts[0]}")
    try:
        node_name = next(iter(es.nodes.info(node_id="_local")["nodes"].values()))["name"]
    finally:
        es.close()
    # One sample after the last task (call 2; call 1 was the start probe).
    assert series[("geoip-stats", "geoip_cache_hits", node_name)].values == (6.0,)
    assert rows[("GeoIP cache hits", node_name)]["value"] == 6
