"""OpenSearch Benchmark workloads (``workload.json``, ``test_procedures``, ``benchmark.collect``,
``benchmark.helpers`` and a ``workload.py`` that imports ``osbenchmark``) raced unchanged by the
real ``esbench`` command against a real node.

The fixture workload (tests/resources/tracks/osbworkload) is written for esbench in the style of the
public opensearch-benchmark-workloads; benchmarks/osb_workloads_load.py loads, renders and registers
the plugins of every workload of a checkout of that repository.
"""

from __future__ import annotations

import harness
from elasticsearch import Elasticsearch

WORKLOAD = harness.TRACKS / "osbworkload"


def requests_by_task(result: dict) -> dict[str, int]:
    return {t["task"]: t["sample_count"] + t["warmup_sample_count"] for t in result["tasks"]}


def test_osb_workload_races_with_its_plugin_and_test_procedure(es_hosts):
    proc = harness.race(WORKLOAD, es_hosts, "--pipeline=benchmark-only")
    harness.ok(proc)
    result = harness.results(proc)
    assert result["status"] == "completed"
    assert result["challenge"] == "index-and-query"
    # The workload processor (OSB's on_after_load_workload) doubled the search task's iterations:
    # 2 per client in the test procedure, 4 per client after it, 2 clients.
    assert requests_by_task(result) == {
        "delete-index": 1,
        "create-index": 1,
        "index-fares": 3,
        "refresh": 1,
        "fares-in-city": 8,
        "mark-index": 1,
    }
    assert {t["task"]: t["error_count"] for t in result["tasks"]} == dict.fromkeys(
        requests_by_task(result), 0
    )
    client = Elasticsearch([f"http://{h}" for h in es_hosts])
    try:
        # 120 corpus documents (bulks of 40) + the marker the plugin's runner indexed.
        assert client.count(index="osb-fares")["count"] == 121
        assert client.get(index="osb-fares", id="marker")["_source"]["city"] == "marker"
    finally:
        client.close()


def test_osb_command_line_runs_unchanged(es_hosts):
    # OSB 2.x's spelling of the same race: run, --workload-path, --test-procedure, --workload-params.
    proc = harness.esbench(
        "run",
        f"--workload-path={WORKLOAD}",
        f"--target-hosts={','.join(es_hosts)}",
        "--pipeline=benchmark-only",
        "--test-procedure=index-only",
        "--workload-params=index_name:'osb-fares-2',bulk_size:60",
    )
    harness.ok(proc)
    result = harness.results(proc)
    assert result["challenge"] == "index-only"
    assert requests_by_task(result) == {"delete-index": 1, "create-index": 1, "index-fares": 2}
    client = Elasticsearch([f"http://{h}" for h in es_hosts])
    try:
        # The index-only test procedure has no refresh task.
        client.indices.refresh(index="osb-fares-2")
        assert client.count(index="osb-fares-2")["count"] == 120
    finally:
        client.close()


def test_info_lists_test_procedures_of_a_workload(tmp_path):
    proc = harness.esbench("info", f"--workload-path={WORKLOAD}")
    harness.ok(proc)
    assert "index-and-query" in proc.stdout and "index-only" in proc.stdout
