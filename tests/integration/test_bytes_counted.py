"""The bytes a race's requests sent and received, checked against the node's own HTTP route stats."""

from __future__ import annotations

from typing import Any

import pytest
from elasticsearch import Elasticsearch
from operations_harness import make_track, unique

from esbench.driver.coordinator.run import DriverSettings, run_challenge, tasks_of
from esbench.driver.transport.client import ClientOptions
from esbench.track.model import Challenge, Operation, Task

ROUTE = "/{index}/_search"


def route_sizes(es: Elasticsearch) -> tuple[int, int, int]:
    """(requests, request body bytes, response body bytes) of the search route, summed over nodes
    (Elasticsearch 8.9+ counts body sizes per REST route in ``_nodes/stats/http``)."""
    stats: dict[str, Any] = es.nodes.stats(metric="http").body
    count = sent = received = 0
    for node in stats["nodes"].values():
        route = node["http"].get("routes", {}).get(ROUTE)
        if route is None:
            continue
        count += route["requests"]["count"]
        sent += route["requests"]["total_size_in_bytes"]
        received += route["responses"]["total_size_in_bytes"]
    return count, sent, received


def test_bytes_sent_and_received_match_what_the_node_counted(es_hosts, es):
    index = unique("bytes")
    es.indices.create(index=index, settings={"number_of_replicas": 0})
    es.bulk(operations=[x for i in range(20) for x in ({"index": {"_index": index}}, {"n": i})], refresh=True)
    try:
        if "routes" not in next(iter(es.nodes.stats(metric="http").body["nodes"].values()))["http"]:
            pytest.skip("this Elasticsearch version has no per-route HTTP stats (8.9+ has them)")
        before = route_sizes(es)
        search = Operation(
            name="search",
            operation_type="search",
            params={"index": index, "body": {"query": {"range": {"n": {"gte": 5}}}, "size": 3}},
        )
        iterations = 40
        outcome = run_challenge(
            track=make_track(),
            challenge=Challenge(
                name="it",
                schedule=(Task(name="search", operation=search, clients=2, iterations=20),),
                default=True,
            ),
            hosts=es_hosts,
            client_options=ClientOptions(timeout=30),
            settings=DriverSettings(workers=1, task_pause_s=0),
            corpora=None,
        )
        assert outcome.status == "completed", outcome.error
        result = tasks_of(outcome)["search"]
        count, body_sent, body_received = (a - b for a, b in zip(route_sizes(es), before, strict=True))
        assert result.sample_count == count == iterations and result.error_count == 0
        # The node counts bodies; esbench counts whole HTTP messages. Every request is the same
        # bytes, so what esbench sent beyond the bodies is the same request head 40 times.
        head_bytes, remainder = divmod(result.bytes_sent - body_sent, iterations)
        assert remainder == 0 and 60 <= head_bytes <= 600
        # Responses differ only in their took values, so their heads differ by a digit or two.
        response_heads = result.bytes_received - body_received
        assert 60 * iterations <= response_heads <= 600 * iterations
        assert result.received_bytes_per_s == pytest.approx(result.bytes_received / result.duration_s)
    finally:
        es.indices.delete(index=index, ignore_unavailable=True)
