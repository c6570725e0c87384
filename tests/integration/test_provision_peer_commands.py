"""An OSB 2.4.0 user's cluster commands on a real OpenSearch node, with only the program name changed:
``install --distribution-version=2.19.1 --quiet`` (no flavor: the version says OpenSearch) prints
OSB's JSON on stderr, ``start --test-run-id=R``, ``run ... --test-run-id=R`` against the started
node, ``stop`` files the node's logs under test run R (OSB 2.4.0 ``osbenchmark/builder/builder.py``
``install``/``start``/``stop``)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from harness import TRACKS, esbench, ok, results

pytestmark = pytest.mark.slow

#: An OSB workload (a name would mean OSB's repository, which needs the network).
WORKLOAD = TRACKS / "osbworkload"
#: An OpenSearch version on Maven here (its integ-test zip); Elasticsearch never had a 2.19.1.
VERSION = "2.19.1"


def test_osbs_install_start_run_stop_file_the_node_logs_under_the_test_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run_id = f"osb-run-{uuid.uuid4().hex[:8]}"
    installed = ok(esbench("install", f"--distribution-version={VERSION}", "--quiet", home=home, timeout=280))
    # OSB prints {"installation-id": ...} on stderr (println(..., stderr=True)), nothing on stdout.
    assert installed.stdout == ""
    inst_id = json.loads(installed.stderr)["installation-id"]
    try:
        started = ok(
            esbench(
                "start", f"--installation-id={inst_id}", f"--test-run-id={run_id}", home=home, timeout=280
            )
        )
        assert f"Started OpenSearch {VERSION}" in started.stderr
        host = dict(line.split(": ", 1) for line in started.stdout.strip().splitlines())["hosts"]
        # OSB's run without --distribution-version races the hosts it is given (benchmark-only).
        raced = ok(
            esbench(
                "run", f"--workload-path={WORKLOAD}", "--test-mode", f"--target-hosts={host}",
                f"--test-run-id={run_id}", home=home, timeout=280,
            )
        )  # fmt: skip
        data = results(raced)
        assert data["race_id"] == run_id
        assert data["cluster_flavor"] == "opensearch" and data["cluster_version"] == VERSION
    finally:
        stopped = esbench("stop", f"--installation-id={inst_id}", home=home, timeout=120)
    assert stopped.returncode == 0 and stopped.stdout.strip() == inst_id, stopped.stderr
    logs = home / "races" / run_id / "logs" / "node-0"
    assert f"Filed the nodes' logs under race {run_id}" in stopped.stderr
    # The node's own log (path.logs: <cluster name>.log) and its console output, from start to stop.
    server_logs = [p for p in logs.glob("*.log") if p.name != "console.log"]
    assert server_logs and any("started" in p.read_text(errors="replace") for p in server_logs)
    assert (logs / "console.log").is_file()
