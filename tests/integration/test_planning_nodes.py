"""``esbench sweep --nodes=1,2``: each point provisions a cluster of that many nodes, races, stops it.

No ``--target-hosts``: esbench provisions every cluster itself (in the test's own ``ESBENCH_HOME``,
with the distribution from the shared ``ESBENCH_DIST_CACHE`` as the session node uses), so this test
does not use the session node and runs the same way with or without ``ESBENCH_TEST_HOSTS``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from harness import TRACKS, esbench

from esbench.provision.cluster import running_installations
from esbench.results.store import ResultsStore

TINY = TRACKS / "compare-tiny"


@pytest.mark.slow
def test_nodes_sweep_races_a_one_node_and_a_two_node_cluster() -> None:
    # Node start-up dominates this test (three JVMs start on a 2-core machine). The C1 compiler only
    # (no C2 compiler threads competing for the cores) and a 512 MB heap start a node faster; this
    # test checks node counts, not performance.
    cars = Path(os.environ["ESBENCH_HOME"]) / "cars"
    cars.mkdir(parents=True, exist_ok=True)
    (cars / "it-quick-start.yml").write_text(
        "description: quicker JVM start for the nodes-sweep test\ntype: mixin\n"
        "variables: {heap_size: 512m}\njvm_options: ['-XX:TieredStopAtLevel=1']\n"
    )
    result = esbench(
        "sweep",
        f"--track-path={TINY}",
        "--test-mode",
        "--task=term-query",
        "--nodes=1,2",
        # The integ-test distribution, as the session node (tests/integration/conftest.py).
        "--distribution-repository=maven",
        "--car=defaults,it-quick-start",
        "--time-period=2",
        "--warmup-time-period=0",
        "--quiet",
        timeout=240,
    )
    assert result.returncode == 0, result.stdout + result.stderr

    lines = result.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("nodes "))
    rows = [re.split(r"\s{2,}", line.strip()) for line in lines[header + 2 : header + 4]]
    assert [r[0] for r in rows] == ["1", "2"], result.stdout
    assert all(int(r[1]) > 0 for r in rows), result.stdout  # samples of term-query

    with ResultsStore.open() as store:
        races = {
            point: store.find(user_tags={"sweep-param": "nodes", "sweep-point": point})
            for point in ("1", "2")
        }
    for point, found in races.items():
        assert len(found) == 1, (point, found)
        race = found[0]
        assert race.status == "completed" and race.pipeline == "from-distribution"
        # The number of nodes the cluster itself reported (_cluster/health at the race's start).
        assert race.cluster_nodes == int(point), (point, race.cluster_nodes)
        # The table's row of the point shows this race's id prefix.
        assert race.race_id[:8] in next(r for r in rows if r[0] == point)
        task = race.task("term-query")
        assert task is not None and task.sample_count > 0 and task.error_count == 0
    # Every cluster was stopped after its race.
    assert running_installations() == []
