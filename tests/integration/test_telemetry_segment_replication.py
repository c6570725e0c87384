"""OSB's ``segment-replication-stats`` device on a two-node OpenSearch cluster whose index copies
segments to its replica; OSB 2.4.0's own recorder (``SegmentReplicationStatsRecorder``), run in OSB's
venv against the same cluster, is the oracle of which shards and fields a sample has.

On Elasticsearch the device records nothing and the race completes with a warning (OSB's device
would fail the race on the transport error; esbench keeps the race).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import esbench, ok, race_dir
from osb_oracle import osb_bin  # noqa: F401 (fixture)
from rally_oracle import http_json

from esbench.records import RaceResult
from esbench.telemetry.devices.segment_replication_stats import FIELDS

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("segrep-cluster"), pytest.mark.timeout(600)]

INDEX = "segrep-logs"
DEVICE = "segment-replication-stats"


@pytest.fixture(scope="module")
def segrep_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Two OpenSearch nodes and ``INDEX`` (one shard, one replica, segment replication), green."""
    home = tmp_path_factory.mktemp("segrep-nodes")
    started = ok(
        esbench(
            "start", "--distribution-repository=maven", "--distribution-flavor=opensearch", "--nodes=2",
            "--car-params=heap_size:512m", home=home, timeout=280,
        )
    )  # fmt: skip
    fields = dict(line.split(": ", 1) for line in started.stdout.strip().splitlines())
    host = fields["hosts"].split(",")[0]
    try:
        settings = {"number_of_shards": 1, "number_of_replicas": 1, "replication.type": "SEGMENT"}
        http_json(host, "PUT", f"/{INDEX}", {"settings": {"index": settings}})
        health = http_json(host, "GET", f"/_cluster/health/{INDEX}?wait_for_status=green&timeout=60s")
        assert health["status"] == "green", health
        yield host
    finally:
        ok(esbench("stop", f"--installation-id={fields['installation-id']}", home=home, timeout=120))


def _track(directory: Path) -> Path:
    """Documents indexed one by one with a refresh each, for 3 s: each refresh makes segments the
    replica copies."""
    directory.mkdir()
    index = {
        "name": "index-doc",
        "operation-type": "raw-request",
        "method": "POST",
        "path": f"/{INDEX}/_doc?refresh=true",
        "body": {"message": "a line of a log", "level": "info"},
    }
    task = {"operation": index, "time-period": 3, "target-throughput": 40, "clients": 2}
    (directory / "track.json").write_text(json.dumps({"version": 2, "schedule": [task]}), encoding="utf-8")
    return directory


def _race(host: str, track: Path) -> RaceResult:
    proc = ok(
        esbench(
            "race", f"--track-path={track}", f"--target-hosts={host}", f"--telemetry={DEVICE}",
            f"--telemetry-params=segment-replication-stats-indices:{INDEX},"
            "segment-replication-stats-sample-interval:0.25",
            timeout=240,
        )
    )  # fmt: skip
    return RaceResult.from_dict(json.loads((race_dir(proc) / "results.json").read_text()))


def test_samples_every_replica_shard_with_osbs_fields(
    segrep_host: str,
    osb_bin: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    race = _race(segrep_host, _track(tmp_path / "track"))
    series = {(s.metric, s.node): s for s in race.telemetry if s.device == DEVICE}
    replica_node = _replica_node(segrep_host)
    for _, field, unit in FIELDS:
        sampled = series[(f"{INDEX}.0.{field}", replica_node)]
        # Sampled every 0.25 s through a 3 s task.
        assert len(sampled.values) >= 4, (field, sampled.values)
        assert sampled.unit == unit
    assert {node for _, node in series} == {replica_node}, series.keys()
    # OSB's recorder on the same cluster: the same shards, target nodes and fields.
    docs = _osb_docs(osb_bin, segrep_host)
    assert docs, "OSB's recorder stored no document"
    assert {(d["shard_id"], d["target_node"]) for d in docs} == {(f"[{INDEX}][0]", replica_node)}
    osb_fields = {k for d in docs for k in d} - {"name", "shard_id", "target_node", "target_host"}
    assert osb_fields == {field for _, field, _ in FIELDS}


def test_records_nothing_on_elasticsearch_and_says_so(es_hosts: list[str], tmp_path: Path) -> None:
    proc = ok(
        esbench(
            "race", f"--track-path={_missing_index_free_track(tmp_path)}", f"--target-hosts={es_hosts[0]}",
            f"--telemetry={DEVICE}", timeout=240,
        )
    )  # fmt: skip
    assert (
        f"Telemetry device {DEVICE} recorded nothing: it works with OpenSearch" in proc.stdout + proc.stderr
    )
    race = RaceResult.from_dict(json.loads((race_dir(proc) / "results.json").read_text()))
    assert not [s for s in race.telemetry if s.device == DEVICE]


def _missing_index_free_track(tmp_path: Path) -> Path:
    directory = tmp_path / "health-track"
    directory.mkdir()
    task = {"operation": {"name": "health", "operation-type": "cluster-health"}, "iterations": 5}
    (directory / "track.json").write_text(json.dumps({"version": 2, "schedule": [task]}), encoding="utf-8")
    return directory


def _replica_node(host: str) -> str:
    shards = http_json(host, "GET", f"/_cat/shards/{INDEX}?format=json")
    (replica,) = [s for s in shards if s["prirep"] == "r"]
    return str(replica["node"])


_OSB_RECORDER = """
import json, sys
from opensearchpy import OpenSearch
from osbenchmark.telemetry import SegmentReplicationStatsRecorder

class Store:
    docs = []
    def put_doc(self, doc, level=None, meta_data=None):
        self.docs.append(doc)

host, port = sys.argv[1].rsplit(":", 1)
client = OpenSearch(hosts=[{"host": host, "port": int(port)}])
store = Store()
SegmentReplicationStatsRecorder("default", client, store, 1, [sys.argv[2]]).record()
print(json.dumps(store.docs))
"""


def _osb_docs(osb_bin: Path, host: str) -> list[dict[str, object]]:  # noqa: F811
    python = osb_bin.parent / "python"
    done = subprocess.run(
        [str(python), "-c", _OSB_RECORDER, host, INDEX],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    docs: list[dict[str, object]] = json.loads(done.stdout.strip().splitlines()[-1])
    return docs
