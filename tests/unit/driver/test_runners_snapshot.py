"""Polling and results of the snapshot and recovery runners (``esrally/driver/runner.py``:
``CreateSnapshot``, ``RestoreSnapshot``, ``WaitForSnapshotCreate``, ``WaitForCurrentSnapshotsCreate``,
``IndicesRecovery``), against scripted answers; the real-node behaviour is in
``tests/integration/test_operations_snapshot.py``."""

from __future__ import annotations

import pytest
from wire import Wire, call

from esbench.driver.transport.http import RawResponse
from esbench.driver.worker.runners.features import OperationFailed, no_handler_message

STATS = {
    "total": {"file_count": 4, "size_in_bytes": 2000},
    "start_time_in_millis": 1000,
    "time_in_millis": 500,
}


async def test_create_and_restore_snapshot_requests() -> None:
    wire = Wire()
    await call(
        "create-snapshot",
        wire,
        {
            "repository": "r",
            "snapshot": "s",
            "body": {"indices": "i"},
            "request-params": {"master_timeout": "1m"},
        },
    )
    await call("restore-snapshot", wire, {"repository": "r", "snapshot": "s", "wait-for-completion": True})
    assert wire.requests == [
        ("PUT", "/_snapshot/r/s", {"master_timeout": "1m", "wait_for_completion": "false"}, {"indices": "i"}),
        ("POST", "/_snapshot/r/s/_restore", {"wait_for_completion": "true"}, {}),
    ]


async def test_wait_for_snapshot_create_polls_then_reports_bytes() -> None:
    wire = Wire(
        {
            ("GET", "/_snapshot/r/_current"): [
                (200, {"snapshots": [{"snapshot": "s"}]}),
                (200, {"snapshots": []}),
            ],
            ("GET", "/_snapshot/r/s/_status"): [
                (200, {"snapshots": [{"state": "STARTED", "stats": STATS}]}),
                (200, {"snapshots": [{"state": "SUCCESS", "stats": STATS}]}),
            ],
        }
    )
    result = await call(
        "wait-for-snapshot-create",
        wire,
        {"repository": "r", "snapshot": "s", "completion-recheck-wait-period": 0},
    )
    assert [(r[1], r[2]) for r in wire.requests] == [
        ("/_snapshot/r/_current", {"verbose": "false"}),
        ("/_snapshot/r/_current", {"verbose": "false"}),
        ("/_snapshot/r/s/_status", {"ignore_unavailable": "true"}),
        ("/_snapshot/r/_current", {"verbose": "false"}),
        ("/_snapshot/r/s/_status", {"ignore_unavailable": "true"}),
    ]
    assert result.weight == 2000 and result.unit == "byte"
    assert result.meta == {
        "throughput": 4000.0,
        "start_time_millis": 1000,
        "stop_time_millis": 1500,
        "duration": 500,
        "file_count": 4,
    }


async def test_failed_snapshot_ends_the_race() -> None:
    wire = Wire(
        {("GET", "/_snapshot/r/s/_status"): (200, {"snapshots": [{"state": "FAILED", "stats": STATS}]})}
    )
    with pytest.raises(OperationFailed, match=r"snapshot \[s\] is in state FAILED"):
        await call("wait-for-snapshot-create", wire, {"repository": "r", "snapshot": "s"})


@pytest.mark.parametrize(
    ("version", "index_names"), [("8.2.3", None), ("8.3.0", "false"), ("9.1.0", "false")]
)
async def test_wait_for_current_snapshots_create(version, index_names) -> None:
    wire = Wire(
        {
            ("GET", "/_nodes/_local"): (200, {"nodes": {"n": {"version": version}}}),
            ("GET", "/_snapshot/r/_current"): [(200, {"total": 2}), (200, {"total": 0})],
        }
    )
    result = await call(
        "wait-for-current-snapshots-create", wire, {"repository": "r", "completion-recheck-wait-period": 0}
    )
    expected = {"verbose": "false", **({"index_names": index_names} if index_names else {})}
    assert [r[2] for r in wire.requests[1:]] == [expected, expected]
    assert result.success and result.weight == 1


def shard(stage: str, start: int, stop: int, recovered: int) -> dict:
    return {
        "stage": stage,
        "start_time_in_millis": start,
        "stop_time_in_millis": stop,
        "index": {"size": {"recovered_in_bytes": recovered}},
    }


async def test_wait_for_recovery_until_every_shard_is_done() -> None:
    wire = Wire(
        {
            ("GET", "/i/_recovery"): [
                (200, {}),
                (200, {"i": {"shards": [shard("DONE", 1000, 2000, 10), shard("INDEX", 1500, 0, 5)]}}),
                (200, {"i": {"shards": [shard("DONE", 1000, 2000, 10), shard("DONE", 1500, 3000, 30)]}}),
            ]
        }
    )
    result = await call("wait-for-recovery", wire, {"index": "i", "completion-recheck-wait-period": 0})
    assert len(wire.requests) == 3
    assert result.weight == 40 and result.unit == "byte"
    assert result.meta == {"throughput": 20.0, "start_time_millis": 1000, "stop_time_millis": 3000}


def test_no_handler_detection() -> None:
    assert no_handler_message(
        RawResponse(400, b'{"error":"no handler found for uri [/_x] and method [GET]"}')
    )
    assert no_handler_message(
        RawResponse(405, b'{"error":"Incorrect HTTP method for uri [/_sql] and method [POST]"}')
    )
    # a structured 400 (bad request body) is not a missing module
    assert (
        no_handler_message(
            RawResponse(400, b'{"error":{"type":"parse_exception","reason":"no handler found for uri"}}')
        )
        is None
    )
    assert no_handler_message(RawResponse(404, b'{"error":"no handler found for uri"}')) is None
