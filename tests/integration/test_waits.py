"""A wait that cannot end says why, every few seconds (issue 26): cluster-health waiting for green
with retry-until-success on a one-node cluster whose index keeps a replica."""

from __future__ import annotations

import json
import re
import signal
import time
import uuid
from pathlib import Path

import pytest
from harness import esbench_popen

#: Seconds the race may wait before the test has seen two waiting lines.
DEADLINE_S = 40.0


@pytest.mark.parametrize(
    "hold",
    [
        # Elasticsearch answers 408 after 1 s: the retry wrapper's failed attempts say why.
        "1s",
        # Elasticsearch's default hold of 30 s: the status now comes from a second request.
        None,
    ],
)
def test_cluster_health_that_cannot_turn_green_says_why(
    es_hosts, es, tmp_path: Path, hold: str | None
) -> None:
    if es.cluster.health()["number_of_data_nodes"] != 1:
        pytest.skip("needs a one-node cluster (the replica then cannot be assigned)")
    index = f"esbench-it-wait-{uuid.uuid4().hex[:8]}"
    es.indices.create(index=index, settings={"number_of_shards": 1, "number_of_replicas": 1})
    health = {
        "operation-type": "cluster-health",
        "index": index,
        # Elasticsearch holds each attempt up to its timeout, then answers 408 with the health.
        "request-params": {"wait_for_status": "green", **({"timeout": hold} if hold else {})},
        "retry-until-success": True,
    }
    track = {"version": 2, "schedule": [{"operation": {"name": "wait-green", **health}}]}
    (tmp_path / "track.json").write_text(json.dumps(track))
    home = tmp_path / "home"
    proc = esbench_popen("race", f"--track-path={tmp_path}", f"--target-hosts={es_hosts[0]}", home=home)
    waiting: list[tuple[float, str]] = []
    seen: list[str] = []
    try:
        started = time.monotonic()
        assert proc.stderr is not None
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("[WAITING]") and "wanted green" in line:
                waiting.append((time.monotonic(), line))
            if len(waiting) == 2 or time.monotonic() - started > DEADLINE_S:
                break
    finally:
        proc.send_signal(signal.SIGINT)  # the race is interrupted: it stores what it measured
        proc.communicate(timeout=60)
        es.indices.delete(index=index, ignore_unavailable=True)
    assert len(waiting) == 2, "".join(seen[-20:])
    # The status now is known from the first note on (also while Elasticsearch holds a request).
    assert waiting[0][0] - started < 15.0, "".join(seen[-20:])
    line = waiting[0][1]
    assert line.startswith("[WAITING] wait-green: cluster health is yellow, wanted green"), line
    assert "1 unassigned shard(s)" in line and "1 node(s)" in line and "number_of_replicas:0" in line
    # Every few seconds, not at every progress report nor only once.
    assert 3.0 <= waiting[1][0] - waiting[0][0] <= 8.0
    (race_dir,) = (home / "races").iterdir()
    log = (race_dir / "esbench.log").read_text()
    assert re.search(
        r"Task 'wait-green' is waiting: cluster health is yellow, wanted green.*1 node\(s\)", log
    )
