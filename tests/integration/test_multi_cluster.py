"""Rally's multi-cluster ``--target-hosts``/``--client-options`` against real nodes: a track plugin
runner that declares ``multi_cluster`` (tests/resources/tracks/multicluster) writes into every
cluster; the test reads each cluster and finds the documents the runner sent there, and nothing
else. The ``default`` cluster is the benchmark target; ``node-stats`` samples every cluster."""

from __future__ import annotations

import json
from pathlib import Path

import harness
import pytest
from elasticsearch import Elasticsearch

from esbench.provision import ProvisionSettings

TRACK = harness.TRACKS / "multicluster"


def race(clusters: dict[str, list[str]], index: str, *args: str, expected: int):
    return harness.esbench(
        "race",
        f"--track-path={TRACK}",
        "--pipeline=benchmark-only",
        f"--target-hosts={json.dumps(clusters)}",
        f"--track-params=index_name:{index},expected_clusters:{expected}",
        # The runner's assertion on its weight checks it got one client per cluster.
        "--enable-assertions",
        *args,
    )


def marks(hosts: list[str], index: str) -> list[tuple[str, int]]:
    client = Elasticsearch([f"http://{h}" for h in hosts], request_timeout=30)
    try:
        hits = client.search(index=index, size=100, query={"match_all": {}})["hits"]["hits"]
        return sorted((h["_source"]["cluster"], h["_source"]["call"]) for h in hits)
    finally:
        client.close()


@pytest.mark.slow
def test_a_multi_cluster_runner_reaches_both_clusters_and_telemetry_samples_both(
    es_hosts, tmp_path: Path, index
):
    remote = harness.provision(
        tmp_path / "remote-node",
        ProvisionSettings(car="defaults", car_params={"heap_size": "512m"}, distribution_repository="maven"),
    )
    try:
        clusters = {"default": es_hosts, "remote": list(remote.hosts)}
        options = {"default": {"timeout": 60}, "remote": {"timeout": 30}}
        proc = harness.ok(
            race(
                clusters,
                index,
                f"--client-options={json.dumps(options)}",
                "--telemetry=node-stats",
                "--telemetry-params=node-stats-sample-interval:0.5",
                expected=2,
            )
        )
        calls = [1, 2, 3]
        assert marks(es_hosts, index) == [("default", c) for c in calls]
        assert marks(list(remote.hosts), index) == [("remote", c) for c in calls]
        result = harness.results(proc)
        nodes = {s["node"] for s in result["telemetry"] if s["device"] == "node-stats"}
        remote_nodes = {n for n in nodes if n.startswith("remote/")}
        assert remote_nodes, nodes
        assert any(not n.startswith("remote") for n in nodes), nodes
    finally:
        remote.stop()


def test_a_multi_cluster_runner_gets_a_client_of_each_named_cluster(es_hosts, index):
    # Two names for the session node: the runner writes once per name, through each name's client.
    proc = harness.ok(race({"default": es_hosts, "second": es_hosts}, index, expected=2))
    assert marks(es_hosts, index) == sorted(
        [("default", c) for c in (1, 2, 3)] + [("second", c) for c in (1, 2, 3)]
    )
    assert harness.results(proc)["status"] == "completed"


def test_a_single_cluster_gives_the_runner_the_default_cluster_alone(es_hosts, index):
    proc = harness.ok(race({"default": es_hosts}, index, expected=1))
    assert marks(es_hosts, index) == [("default", c) for c in (1, 2, 3)]
    assert harness.results(proc)["status"] == "completed"


@pytest.mark.parametrize(
    ("hosts", "options", "message"),
    [
        (
            '{"remote": ["127.0.0.1:9200"]}',
            None,
            r"no 'default': the 'default' cluster is the one the race benchmarks",
        ),
        (
            '{"default": ["127.0.0.1"]}',
            None,
            r"--target-hosts, cluster 'default': Target host '127.0.0.1' has no port",
        ),
        (
            '{"default": ["127.0.0.1:9200"], "remote": ["127.0.0.1:9201"]}',
            '{"default": {"timeout": 60}}',
            r"must define the same keys for multi cluster setups.*--client-options lacks remote",
        ),
        (
            '{"default": ["127.0.0.1:9200"], "remote": ["127.0.0.1:9201"]}',
            "timeout:60",
            r"--client-options must give the options of each as JSON",
        ),
        (
            '{"default": ["127.0.0.1:9200"], "remote": ["127.0.0.1:9201"]}',
            '{"default": {}, "remote": {"timeout": "soon"}}',
            r"'timeout' must be a number of seconds.*cluster 'remote'",
        ),
    ],
)
def test_bad_multi_cluster_options_are_one_paragraph_naming_the_cluster(tmp_path, hosts, options, message):
    import re

    args = [f"--target-hosts={hosts}"] + ([f"--client-options={options}"] if options else [])
    proc = harness.esbench("race", f"--track-path={TRACK}", "--pipeline=benchmark-only", *args)
    harness.no_traceback(proc)
    assert proc.returncode == 64
    assert re.search(message, " ".join(proc.stderr.split())), proc.stderr
