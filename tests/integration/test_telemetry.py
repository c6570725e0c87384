"""Telemetry devices in real races against a real Elasticsearch node."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch
from harness import esbench, interrupt_at_task, long_race
from telemetry_race import TelemetryRace

from esbench.records import RaceResult
from esbench.results.es_export import export_race
from esbench.results.metrics_store import MetricsStoreSettings
from esbench.results.store import ResultsStore


def _ok(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr


def _series(race: RaceResult, device: str, metric: str, node: str):
    return next(s for s in race.telemetry if (s.device, s.metric, s.node) == (device, metric, node))


def _report_rows(path: Path) -> dict[tuple[str, str], dict]:
    return {(m["metric"], m["task"]): m for m in json.loads(path.read_text())["metrics"]}


@pytest.mark.slow
def test_provisioned_race_samples_node_stats_and_os_over_the_whole_race(
    telemetry_race: TelemetryRace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The session's race on a node esbench provisioned, with node-stats and os telemetry sampled
    # every 0.25 s (tests/integration/telemetry_race.py; the HTML report test reads it too).
    monkeypatch.setenv("ESBENCH_HOME", str(telemetry_race.home))
    report = telemetry_race.report
    (race,) = ResultsStore.open().find(user_tags={"case": "telemetry-os"})
    assert race.pipeline == "from-distribution"
    bulk = race.task("index-append")
    assert bulk is not None and bulk.total_weight == 1000
    node = "node-0"
    started = dt.datetime.strptime(race.timestamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC).timestamp()

    # node-stats: sampled from before the first task to after the last one. The node is fresh, so
    # its indexing total reads 0 before the first task and all 1,000 documents after the last one:
    # the samples move with the load.
    indexed = _series(race, "node-stats", "indices.indexing.index_total", node)
    assert len(indexed.timestamps) >= 3
    assert started - 1 <= indexed.timestamps[0] and indexed.timestamps[-1] <= started + race.duration_s + 1
    assert indexed.values[0] == 0 and indexed.values[-1] >= 1000
    assert list(indexed.values) == sorted(indexed.values)
    cpu_ms = _series(race, "node-stats", "process.cpu.total_in_millis", node)
    assert cpu_ms.values[-1] > cpu_ms.values[0]
    assert _series(race, "node-stats", "jvm.mem.heap_used_percent", node).unit == "%"

    # os: the node's JVM and the load driver used CPU while the race ran; page cache was sampled.
    node_cpu = _series(race, "os", "process.cpu.percent", node)
    assert node_cpu.timestamps[-1] >= indexed.timestamps[-1] - 1
    assert max(node_cpu.values) > 0
    assert max(_series(race, "os", "process.cpu.percent", "load-driver").values) > 0
    assert min(_series(race, "os", "system.memory.page_cache", "").values) > 0

    # The report shows the telemetry rows, and the results file holds the same series as the store.
    rows = _report_rows(report)
    for name, task in (
        ("Peak CPU usage (node-stats)", node),
        ("Peak heap usage", node),
        ("Rejected requests (all thread pools)", node),
        ("Disk writes (fs io stats)", node),
        ("Peak CPU usage (os)", node),
        ("Disk reads (os)", node),
        ("Peak RSS", node),
        ("Peak load driver CPU usage", "load-driver"),
        ("Min page cache", ""),
    ):
        assert (name, task) in rows, name
    assert rows[("Peak RSS", node)]["unit"] == "MB" and rows[("Peak RSS", node)]["value"] > 10
    results_file = Path(os.environ["ESBENCH_HOME"]) / "races" / race.race_id / "results.json"
    assert RaceResult.from_dict(json.loads(results_file.read_text())).telemetry == race.telemetry


def test_rest_devices_against_an_existing_cluster(es_hosts: list[str], tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    proc = esbench(
        "race",
        "--track=eventdata",
        "--test-mode",
        f"--target-hosts={','.join(es_hosts)}",
        "--user-tag=case:telemetry-rest",
        "--telemetry=node-stats,shard-stats,segment-stats,ingest-pipeline-stats,disk-usage-stats,recovery-stats",
        "--telemetry-params=shard-stats-sample-interval:0.5,node-stats-include-indices-metrics:indexing",
        f"--report-file={report}",
    )
    _ok(proc)
    (race,) = ResultsStore.open().find(user_tags={"case": "telemetry-rest"})
    devices = {s.device for s in race.telemetry}
    assert {"node-stats", "shard-stats", "ingest-pipeline-stats", "disk-usage-stats"} <= devices
    # Only the indices section asked for.
    assert {s.metric.split(".")[1] for s in race.telemetry if s.metric.startswith("indices.")} == {"indexing"}
    shard_docs = [s for s in race.telemetry if s.device == "shard-stats" and s.metric.endswith(".docs.count")]
    assert any(s.metric.startswith("eventdata.") for s in shard_docs)
    usage = {s.metric: s for s in race.telemetry if s.device == "disk-usage-stats"}
    assert usage["eventdata._source.total_in_bytes"].values[0] > 0
    race_dir = Path(os.environ["ESBENCH_HOME"]) / "races" / race.race_id
    assert "eventdata" in (race_dir / "segment_stats.log").read_text()
    text = report.read_text()
    assert "Peak CPU usage (node-stats)" in text and "Rejected requests (all thread pools)" in text


def test_os_device_is_refused_for_an_existing_cluster(es_hosts: list[str]) -> None:
    proc = esbench(
        "race", "--track=eventdata", "--test-mode", f"--target-hosts={es_hosts[0]}", "--telemetry=os"
    )
    assert proc.returncode == 64
    assert "existing cluster" in proc.stderr and "Traceback" not in proc.stderr


def test_data_stream_stats_samples_or_refuses_cleanly(es_hosts: list[str]) -> None:
    es = Elasticsearch(f"http://{es_hosts[0]}")
    try:
        has_api = es.options(ignore_status=400).indices.data_streams_stats(name="*").meta.status == 200
    finally:
        es.close()
    proc = esbench(
        "race",
        "--track=eventdata",
        "--test-mode",
        f"--target-hosts={es_hosts[0]}",
        "--telemetry=data-stream-stats",
        "--telemetry-params=data-stream-stats-sample-interval:0.5",
        "--user-tag=case:telemetry-ds",
    )
    assert "Traceback" not in proc.stderr
    if has_api:
        assert proc.returncode == 0, proc.stderr
        (race,) = ResultsStore.open().find(user_tags={"case": "telemetry-ds"})
        assert any(s.metric == "_all.data_stream_count" for s in race.telemetry)
    else:
        # Integration-test distributions ship without the data streams module.
        assert proc.returncode == 64 and "lacks" in proc.stderr, proc.stderr


def test_telemetry_reaches_the_metrics_store(es_hosts: list[str], tmp_path: Path) -> None:
    proc = esbench(
        "race",
        "--track=eventdata",
        "--test-mode",
        f"--target-hosts={es_hosts[0]}",
        "--telemetry=node-stats",
        "--telemetry-params=node-stats-include-indices:false",
        "--user-tag=case:telemetry-export",
    )
    _ok(proc)
    (race,) = ResultsStore.open().find(user_tags={"case": "telemetry-export"})
    es = Elasticsearch(f"http://{es_hosts[0]}")
    try:
        counts = export_race(race, MetricsStoreSettings.from_url(f"http://{es_hosts[0]}"), refresh=True)
        # Rally's node-stats documents: one per node and sample time, every metric a field of it.
        sample_times = {(s.node, t) for s in race.telemetry if s.device == "node-stats" for t in s.timestamps}
        assert counts.telemetry == len(sample_times)
        found = es.count(index="rally-metrics-*", query={"term": {"name": "node-stats"}})["count"]
        assert found == len(sample_times)
        heap = es.search(
            index="rally-metrics-*",
            query={
                "bool": {
                    "filter": [
                        {"term": {"name": "node-stats"}},
                        {"exists": {"field": "jvm_mem_heap_used_percent"}},
                    ]
                }
            },
            size=1,
        )["hits"]["hits"]
        assert heap and heap[0]["_source"]["meta"]["node_name"] in {s.node for s in race.telemetry}
    finally:
        for index in es.indices.get(index="rally-*", allow_no_indices=True, expand_wildcards="all"):
            es.indices.delete(index=index)
        for template in ("rally-races", "rally-results", "rally-metrics", "rally-annotations"):
            es.options(ignore_status=404).indices.delete_index_template(name=template)
        es.close()


@pytest.mark.slow
def test_seed001_example_reports_disk_reads_and_page_cache_beside_latency(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "seed001-page-cache"
    track = tmp_path / "seed001"
    track.mkdir()
    for name in ("track.json", "track.py", "index.json"):
        (track / name).write_text((example / name).read_text())
    subprocess.run(
        [sys.executable, str(example / "make_corpus.py"), "--docs", "3000", "--out", str(track)], check=True
    )
    report = tmp_path / "report.json"
    proc = esbench(
        "race",
        f"--track-path={track}",
        "--user-tag=case:seed001",
        "--track-params=document_count:3000,index_count:3,search_time_period:4,search_warmup_time_period:1",
        "--telemetry=node-stats,os",
        "--report-format=json",
        f"--report-file={report}",
    )
    _ok(proc)
    rows = _report_rows(report)
    for i in range(3):
        assert ("50th percentile latency", f"geo-query-places-{i}") in rows
    for name, task in (
        ("Disk reads (os)", "node-0"),
        ("Min page cache", ""),
        ("Mean page cache", ""),
        ("Disk reads (fs io stats)", "node-0"),
        ("Peak load driver CPU usage", "load-driver"),
    ):
        assert (name, task) in rows, name
    (race,) = ResultsStore.open().find(user_tags={"case": "seed001"})
    reads = _series(race, "os", "process.disk.read_bytes_per_s", "node-0")
    cache = _series(race, "os", "system.memory.page_cache", "")
    searches = [t for t in race.tasks if t.task.startswith("geo-query-places-")]
    assert len(searches) == 3 and all(t.sample_count > 0 and t.error_count == 0 for t in searches)
    assert reads.unit == "bytes/s" and len(reads.values) >= 5 and len(cache.values) >= 5


def test_interrupted_race_keeps_its_telemetry(es_hosts: list[str]) -> None:
    proc = long_race(
        es_hosts,
        "--user-tag=case:telemetry-ctrl-c",
        "--telemetry=node-stats",
        "--telemetry-params=node-stats-sample-interval:0.5,node-stats-include-indices:false",
    )
    interrupted_at = interrupt_at_task(proc, "term-query")
    assert proc.returncode == 130
    (race,) = ResultsStore.open().find(user_tags={"case": "telemetry-ctrl-c"})
    assert race.status == "interrupted"
    heap = [s for s in race.telemetry if s.metric == "jvm.mem.heap_used_percent"]
    assert heap and all(len(s.values) >= 2 for s in heap)
    # Sampled up to the interrupt: the last sample is the one taken when the race stopped.
    assert max(s.timestamps[-1] for s in heap) >= interrupted_at - 0.1
    assert any(m.name == "Peak heap usage" for m in race.cluster_metrics)
