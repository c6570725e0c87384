"""Unthrottled plain searches that the connection repeats (esbench.driver.transport.repeat),
counted against a real node: every request the node served is one sample, warmup and measurement
split as the task says, and the node's own search count agrees with the race's.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from elasticsearch import Elasticsearch
from operations_harness import make_track, unique

from esbench.driver.coordinator.run import DriverSettings, run_challenge, tasks_of
from esbench.driver.transport.client import ClientOptions
from esbench.records import TaskResult
from esbench.track.model import Challenge, Operation, Task


@pytest.fixture
def index(es_hosts: list[str]) -> Iterator[tuple[Elasticsearch, str]]:
    es = Elasticsearch([f"http://{h}" for h in es_hosts])
    name = unique("repeat")
    es.indices.create(index=name, settings={"number_of_replicas": 0, "number_of_shards": 1})
    es.bulk(operations=[x for i in range(50) for x in ({"index": {"_index": name}}, {"n": i})], refresh=True)
    try:
        yield es, name
    finally:
        es.indices.delete(index=name, ignore_unavailable=True)
        es.close()


def _query_total(es: Elasticsearch, name: str) -> int:
    """The searches the node ran on the index's shards (one shard: one per request)."""
    stats = es.indices.stats(index=name, metric="search").body
    return int(stats["indices"][name]["primaries"]["search"]["query_total"])


def _race(es_hosts: list[str], task: Task) -> TaskResult:
    outcome = run_challenge(
        track=make_track(),
        challenge=Challenge(name="repeat", schedule=(task,), default=True),
        hosts=es_hosts,
        client_options=ClientOptions(timeout=30),
        settings=DriverSettings(workers=1, task_pause_s=0),
        corpora=None,
    )
    assert outcome.status == "completed", outcome.error
    return tasks_of(outcome)["search"]


def _search(name: str) -> Operation:
    return Operation(
        name="search",
        operation_type="search",
        params={"index": name, "body": {"query": {"range": {"n": {"gte": 10}}}}},
    )


def test_every_repeated_search_of_an_iteration_based_task_is_one_sample(es_hosts, index):
    es, name = index
    before = _query_total(es, name)
    task = Task(name="search", operation=_search(name), clients=2, warmup_iterations=100, iterations=400)
    result = _race(es_hosts, task)
    assert result.warmup_sample_count == 2 * 100 and result.sample_count == 2 * 400
    assert result.error_count == 0
    assert _query_total(es, name) - before == 2 * 500


def test_a_time_based_task_records_every_search_the_node_ran(es_hosts, index):
    es, name = index
    before = _query_total(es, name)
    task = Task(name="search", operation=_search(name), clients=2, warmup_time_period=0.5, time_period=1.5)
    result = _race(es_hosts, task)
    ran = _query_total(es, name) - before
    assert result.warmup_sample_count > 0 and result.sample_count > 100
    assert result.warmup_sample_count + result.sample_count == ran
    assert result.error_count == 0
    # The span is the time period: throughput is the samples over it, not over a shorter burst.
    assert result.duration_s == pytest.approx(1.5, abs=0.3)
