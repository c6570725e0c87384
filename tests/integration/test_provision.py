"""Provisioning real Elasticsearch nodes (slow: the session's 3-node cluster, and tests that start or
break a node of their own). The distribution comes from the shared cache (``harness.dist_cache``), so
only the first run on a machine unpacks it.
"""

from __future__ import annotations

import json
import signal
import socket
import time
import urllib.request
from pathlib import Path

import pytest
from clusters import StartedCluster, node_pids
from harness import esbench, esbench_popen, provision

from esbench.exceptions import LaunchError
from esbench.provision import ProvisionSettings, cluster, installation
from esbench.provision.ports import free_ports

pytestmark = pytest.mark.slow

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _get(host: str, path: str) -> dict:
    with _OPENER.open(f"http://{host}{path}", timeout=10) as resp:
        return json.loads(resp.read())


def test_cli_three_node_cluster_is_green(cluster3: StartedCluster) -> None:
    """``esbench start --nodes=3 --car=defaults,ea`` (the session's 3-node cluster, clusters.py) gives
    three green nodes with the car's JVM options; that ``esbench stop`` leaves nothing is checked
    when the session stops it."""
    hosts = cluster3.hosts
    assert len(hosts) == 3 and all(h.startswith("127.0.0.1:") for h in hosts)
    for host in hosts:
        health = _get(host, "/_cluster/health")
        assert health["status"] == "green" and health["number_of_nodes"] == 3
    jvm = _get(hosts[0], "/_nodes/jvm?filter_path=nodes.*.jvm.input_arguments,nodes.*.name")
    assert len(jvm["nodes"]) == 3
    for node in jvm["nodes"].values():
        args = node["jvm"]["input_arguments"]
        assert "-Xmx512m" in args and "-ea" in args
    assert len(node_pids(cluster3.installation_id, 3)) == 3


def test_real_nodes_bind_failure_is_recognised_as_a_taken_port(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The retry itself is covered with the fake node (unit tests); this checks that Elasticsearch's own
    # bind failure output is recognised, with one attempt so the test stays short.
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        taken = blocker.getsockname()[1]
        monkeypatch.setattr(cluster, "PORT_ATTEMPTS", 1)
        # the transport port: Elasticsearch binds it early in start-up, the HTTP port only at the end
        monkeypatch.setattr(cluster, "free_ports", lambda count, exclude=(): [*free_ports(count - 1), taken])
        with pytest.raises(LaunchError, match="ports kept being taken"):
            provision(isolated_home, ProvisionSettings(distribution_repository="maven"))
    console = (isolated_home / "race" / "logs" / "node-0" / "console.log").read_text()
    assert str(taken) in console and "bind" in console.lower()
    assert installation.list_installations() == []


def test_ctrl_c_during_start_leaves_nothing_running() -> None:
    proc = esbench_popen("start", "--distribution-repository=maven")
    try:
        deadline = time.monotonic() + 120
        inst: installation.Installation | None = None
        while time.monotonic() < deadline and proc.poll() is None:
            found = installation.list_installations()
            if found and node_pids(found[0].id, 1):
                inst = found[0]
                break
            time.sleep(0.2)
        assert inst is not None, "the node never appeared"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Interrupted" in err and "Traceback" not in err
    assert node_pids(inst.id, 1) == []
    assert not Path(inst.root).exists()
    assert installation.list_installations() == []


def test_unknown_version_reported_by_real_maven() -> None:
    result = esbench(
        "download",
        "--distribution-version=8.99.0",
        "--distribution-repository=maven",
        timeout=120,
    )
    assert result.returncode == 64
    assert "[ERROR] Elasticsearch 8.99.0 was not found in the Maven repositories" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
