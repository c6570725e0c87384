"""Snapshot operations and wait-for-recovery against a real node with an ``fs`` repository."""

from __future__ import annotations

import pytest
from operations_harness import Harness, harness, unique  # noqa: F401 - the fixture h

pytestmark = pytest.mark.integration


async def test_snapshot_lifecycle_create_wait_restore_recover(h: Harness, es_repo_path) -> None:
    index, repo, snap = unique("snap-src"), unique("repo"), unique("snap")
    await h.index_docs(index, 500, shards=2)
    location = str(es_repo_path / repo)

    created = await h.run(
        "create-snapshot-repository", repository=repo, body={"type": "fs", "settings": {"location": location}}
    )
    assert created.success, created.error_description
    status, body = await h.call("GET", f"/_snapshot/{repo}")
    assert status == 200 and body[repo]["settings"]["location"] == location

    started = await h.run(
        "create-snapshot",
        repository=repo,
        snapshot=snap,
        body={"indices": index, "include_global_state": False},
    )
    assert started.success, started.error_description

    waited = await h.run(
        "wait-for-snapshot-create", repository=repo, snapshot=snap, completion_recheck_wait_period=0.2
    )
    status, snap_status = await h.call("GET", f"/_snapshot/{repo}/{snap}/_status")
    stats = snap_status["snapshots"][0]["stats"]
    assert waited.success and waited.unit == "byte"
    assert waited.weight == stats["total"]["size_in_bytes"] > 0
    assert waited.meta["file_count"] == stats["total"]["file_count"]
    assert waited.meta["stop_time_millis"] - waited.meta["start_time_millis"] == stats["time_in_millis"]

    current = await h.run(
        "wait-for-current-snapshots-create", repository=repo, completion_recheck_wait_period=0.2
    )
    assert current.success and current.weight == 1
    status, body = await h.call("GET", f"/_snapshot/{repo}/_current")
    assert body["total"] == 0

    await h.call("DELETE", f"/{index}")
    restored = await h.run("restore-snapshot", repository=repo, snapshot=snap, wait_for_completion=True)
    assert restored.success, restored.error_description
    recovered = await h.run("wait-for-recovery", index=index, completion_recheck_wait_period=0.2)
    status, recovery = await h.call("GET", f"/{index}/_recovery")
    shards = recovery[index]["shards"]
    assert recovered.success and recovered.unit == "byte"
    assert {s["type"] for s in shards} == {"SNAPSHOT"} and all(s["stage"] == "DONE" for s in shards)
    assert recovered.weight == sum(s["index"]["size"]["recovered_in_bytes"] for s in shards) > 0
    assert await h.count(index) == 500

    assert (await h.run("delete-snapshot-repository", repository=repo)).success
    status, _ = await h.call("GET", f"/_snapshot/{repo}")
    assert status == 404
    # Rally ignores 404 when deleting a repository
    assert (await h.run("delete-snapshot-repository", repository=repo)).success
    await h.call("DELETE", f"/{index}")


async def test_snapshot_errors_are_failed_requests(h: Harness, es_repo_path) -> None:
    missing = unique("no-repo")
    result = await h.run("create-snapshot", repository=missing, snapshot="s", body={})
    assert not result.success and result.http_status == 404
    assert "repository_missing_exception" in result.error_description
    # a location outside path.repo is refused by Elasticsearch
    result = await h.run(
        "create-snapshot-repository",
        repository=missing,
        body={"type": "fs", "settings": {"location": "/elsewhere"}},
    )
    assert not result.success and result.http_status == 500
    assert "repository_exception" in result.error_description
