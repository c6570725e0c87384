"""A full race against a real Elasticsearch node with the Ray load driver on a two-node Ray cluster.

The Ray nodes (tests/ray_cluster.py) are on 127.0.0.3 and 127.0.0.2; the search task's two clients
land on workers of both. The node's own search counter cross-checks the merged sample counts: it
must equal what the workers recorded (warmup included), exactly as with the local driver.
"""

from __future__ import annotations

import io
import json
import uuid

import pytest
from elasticsearch import Elasticsearch
from harness import TRACKS
from ray_cluster import HEAD_IP, SECOND_IP

from esbench.console import Console
from esbench.driver.coordinator.run import DriverSettings
from esbench.home import home_subdir
from esbench.racecontrol import run_race
from esbench.results.store import ResultsStore
from esbench.settings import RaceSettings

TRACK = TRACKS / "compare-tiny"

pytestmark = pytest.mark.timeout(240)


def test_a_race_on_two_ray_nodes_against_a_real_node(es_hosts, ray_cluster):
    index = f"esbench-it-ray-{uuid.uuid4().hex[:8]}"
    es = Elasticsearch([f"http://{h}" for h in es_hosts], request_timeout=60)
    try:
        race = run_race(
            RaceSettings(
                track_path=TRACK,
                track_params={"index_name": index, "search_time_period": 2, "search_target_throughput": 20},
                target_hosts=tuple(es_hosts),
                driver=DriverSettings(load_driver="ray", ray_address=ray_cluster.address),
            ),
            console=Console(io.StringIO()),
        )
        assert race.status == "completed", race.error
        search = race.task("term-query")
        assert search is not None and search.error_count == 0
        # One shard: the node counts one query per search request, warmup included. Read before
        # anything else searches the index: the count API below is a search too (Elasticsearch's
        # RestCountAction runs a size-0 SearchRequest), and would add one to query_total.
        stats = es.indices.stats(index=index, metric="search")["indices"][index]["primaries"]["search"]
        assert stats["query_total"] == search.sample_count + search.warmup_sample_count
        # The bulk task's single client indexed the whole corpus from one of the Ray nodes.
        assert es.count(index=index)["count"] == 1000

        results = json.loads((home_subdir("races") / race.race_id / "results.json").read_text())
        record = results["load_driver"]
        assert record["backend"] == "ray"
        clients = record["clients"]["term-query"]
        assert set(clients) == {HEAD_IP, SECOND_IP}  # one client on each node
        assert sorted(clients[HEAD_IP] + clients[SECOND_IP]) == [0, 1]
        samples = record["samples"]["term-query"]
        assert samples[HEAD_IP] > 0 and samples[SECOND_IP] > 0
        assert search.sample_count == sum(samples.values())
        assert ResultsStore.open().get(race.race_id).load_driver == record
    finally:
        es.indices.delete(index=index, ignore_unavailable=True)
        es.close()
