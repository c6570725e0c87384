"""``esbench list elasticsearch-plugins`` lists the modules of the distribution esbench provisions:
the node the session provisioned from it is the oracle (``GET _nodes/plugins``)."""

from __future__ import annotations

import pytest
from clusters import ES_VERSION, external_hosts
from harness import esbench, ok


def test_the_listed_modules_are_the_ones_the_provisioned_node_loaded(es) -> None:
    if external_hosts():
        pytest.skip(
            "ESBENCH_TEST_HOSTS: the node was not provisioned by esbench from the cached distribution"
        )
    proc = ok(
        esbench(
            "list",
            "elasticsearch-plugins",
            "--distribution-repository=maven",
            f"--distribution-version={ES_VERSION}",
            "--offline",
        )
    )
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"Modules and plugins of Elasticsearch {ES_VERSION}")
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["Name", "Kind"]) + 2
    listed = {(line.split()[0], line.split()[1]) for line in lines[start:] if line.strip()}
    nodes = es.nodes.info(metric="plugins")["nodes"]
    (node,) = nodes.values()
    loaded = {(m["name"], "module") for m in node["modules"]} | {
        (p["name"], "plugin") for p in node["plugins"]
    }
    assert listed == loaded
