"""``composite`` against a real node: streams, point in time inside, timings, failures; and the same
operations through the driver (``run_challenge``)."""

from __future__ import annotations

import pytest
from operations_harness import Harness, harness, make_track, unique  # noqa: F401 - the fixture h

from esbench.driver.coordinator.run import DriverSettings, run_challenge, tasks_of
from esbench.driver.transport.client import ClientOptions
from esbench.exceptions import ConfigError
from esbench.track.model import Challenge, Operation, Task

pytestmark = pytest.mark.integration


def requests_for(index: str) -> list[dict]:
    search = {"operation-type": "search", "index": index, "body": {"query": {"match_all": {}}}}
    return [
        {"name": "open", "operation-type": "open-point-in-time", "index": index},
        {
            "stream": [
                {**search, "name": "s1"},
                {"name": "nap", "operation-type": "sleep", "duration": 0.2},
                {**search, "name": "s2"},
            ]
        },
        {"stream": [{"name": "raw", "operation-type": "raw-request", "path": f"/{index}/_count"}]},
        {
            "name": "pit-page",
            "operation-type": "paginated-search",
            "with-point-in-time-from": "open",
            "pages": 1,
            "results-per-page": 10,
            "body": {"query": {"match_all": {}}, "sort": [{"n": "asc"}]},
        },
        {"name": "caps", "operation-type": "field-caps", "index": index},
        {"name": "close", "operation-type": "close-point-in-time", "with-point-in-time-from": "open"},
    ]


async def test_composite_runs_streams_and_records_dependent_timings(h: Harness) -> None:
    index = unique("composite")
    await h.index_docs(index, 50)
    result = await h.run("composite", requests=requests_for(index))
    assert result.success, result.error_description
    assert result.weight == 1 and result.unit == "ops"
    timings = result.meta["dependent_timing"]
    # Rally's order: the item before the streams, the streams (awaited before the next item), the rest
    assert [t["operation"] for t in timings[:1]] == ["open"]
    assert {t["operation"] for t in timings[1:5]} == {"s1", "nap", "s2", "raw"}
    assert [t["operation"] for t in timings[5:]] == ["pit-page", "caps", "close"]
    nap = next(t for t in timings if t["operation"] == "nap")
    assert nap["service_time"] >= 0.2
    raw = next(t for t in timings if t["operation"] == "raw")
    # the raw-request stream ran concurrently with the stream that sleeps
    assert raw["request_start"] < nap["request_end"]
    assert all(t["service_time"] == t["request_end"] - t["request_start"] > 0 for t in timings)
    # the composite's service time spans all its requests
    assert h.last_timing.start == min(t["request_start"] for t in timings)
    assert h.last_timing.end == max(t["request_end"] for t in timings)
    # the point in time lived in the composite's own context, not in the race's
    assert "open" not in h.context.snapshot()
    await h.call("DELETE", f"/{index}")


async def test_a_failing_item_fails_the_composite(h: Harness) -> None:
    missing = unique("missing")
    result = await h.run(
        "composite",
        requests=[
            {"stream": [{"operation-type": "sleep", "duration": 5}]},
            {"operation-type": "search", "index": missing, "body": {}},
        ],
        max_connections=1,
    )
    assert not result.success and result.http_status == 404
    assert "index_not_found_exception" in result.error_description


async def test_unsupported_item_type_is_refused_before_the_task_runs(h: Harness) -> None:
    with pytest.raises(ConfigError, match=r"requests\[1\]\.stream\[0\]: unsupported operation-type \[bulk\]"):
        await h.run(
            "composite",
            requests=[{"operation-type": "sleep", "duration": 0}, {"stream": [{"operation-type": "bulk"}]}],
        )


def test_composite_and_snapshot_tasks_through_the_driver(es_hosts, es_repo_path) -> None:
    index, repo = unique("drv"), unique("drv-repo")

    def task(op_type: str, name: str, **params) -> Task:
        return Task(name=name, operation=Operation(name=name, operation_type=op_type, params=params))

    schedule = (
        task(
            "create-index",
            "create",
            index=index,
            body={"settings": {"number_of_replicas": 0}, "mappings": {"properties": {"n": {"type": "long"}}}},
        ),
        task(
            "composite",
            "composite",
            requests=requests_for(index),
            **{"include-in-reporting": True},
        ),
        task(
            "create-snapshot-repository",
            "repo",
            repository=repo,
            body={"type": "fs", "settings": {"location": str(es_repo_path / repo)}},
        ),
        task("create-snapshot", "snapshot", repository=repo, snapshot="s1", body={"indices": index}),
        task(
            "wait-for-snapshot-create",
            "wait",
            repository=repo,
            snapshot="s1",
            **{"completion-recheck-wait-period": 0.2},
        ),
        task("delete-snapshot-repository", "unrepo", repository=repo),
        task("delete-index", "delete", index=index),
    )
    schedule = tuple(
        Task(name=t.name, operation=t.operation, iterations=3 if t.name == "composite" else 1)
        for t in schedule
    )
    outcome = run_challenge(
        track=make_track(),
        challenge=Challenge(name="it", schedule=schedule, default=True),
        hosts=es_hosts,
        client_options=ClientOptions(timeout=30),
        settings=DriverSettings(workers=1, task_pause_s=0),
        corpora=None,
    )
    assert outcome.status == "completed", outcome.error
    results = tasks_of(outcome)
    assert results["composite"].errors_by_type == {}
    assert results["composite"].sample_count == 3 and results["composite"].error_count == 0
    assert results["wait"].error_count == 0 and results["wait"].throughput_unit == "byte/s"
