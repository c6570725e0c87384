"""Provisioning real Elasticsearch nodes (slow: each test starts its own nodes).

The distribution comes from ``$ESBENCH_DIST_CACHE`` (default ``~/.cache/esbench/distributions``, as in
the ``es_hosts`` fixture), so only the first run ever unpacks it.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from esbench.exceptions import LaunchError
from esbench.provision import ProvisionSettings, cluster, installation
from esbench.provision.launcher import pids_with_marker
from esbench.provision.ports import free_ports

pytestmark = pytest.mark.slow

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _get(host: str, path: str) -> dict:
    with _OPENER.open(f"http://{host}{path}", timeout=10) as resp:
        return json.loads(resp.read())


@pytest.fixture
def dist_cache_env(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    cache = os.environ.get("ESBENCH_DIST_CACHE") or str(Path.home() / ".cache" / "esbench" / "distributions")
    monkeypatch.setenv("ESBENCH_DIST_CACHE", cache)
    return {**os.environ, "ESBENCH_HOME": str(isolated_home), "ESBENCH_DIST_CACHE": cache}


def _esbench(env: dict[str, str], *args: str, timeout: float = 170) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "esbench", *args], env=env, capture_output=True, text=True, timeout=timeout
    )


def _marker_pids(inst_id: str, nodes: int) -> list[int]:
    return [p for i in range(nodes) for p in pids_with_marker(f"{inst_id}/node-{i}")]


def test_cli_three_node_cluster_is_green_and_stop_leaves_nothing(dist_cache_env: dict[str, str]) -> None:
    started = _esbench(
        dist_cache_env,
        "start",
        "--distribution-version=8.19.0",
        "--distribution-repository=maven",
        "--nodes=3",
        "--car=defaults,ea",
        "--car-params=heap_size:512m",
    )
    assert started.returncode == 0, started.stderr
    fields = dict(line.split(": ", 1) for line in started.stdout.strip().splitlines())
    inst_id, hosts = fields["installation-id"], fields["hosts"].split(",")
    inst = installation.load(inst_id)
    try:
        assert len(hosts) == 3 and all(h.startswith("127.0.0.1:") for h in hosts)
        for host in hosts:
            health = _get(host, "/_cluster/health")
            assert health["status"] == "green" and health["number_of_nodes"] == 3
        jvm = _get(hosts[0], "/_nodes/jvm?filter_path=nodes.*.jvm.input_arguments,nodes.*.name")
        assert len(jvm["nodes"]) == 3
        for node in jvm["nodes"].values():
            args = node["jvm"]["input_arguments"]
            assert "-Xmx512m" in args and "-ea" in args
        assert len(_marker_pids(inst_id, 3)) == 3
    finally:
        stopped = _esbench(dist_cache_env, "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout.strip() == inst_id
    assert _marker_pids(inst_id, 3) == []
    assert not Path(inst.root).exists()
    assert installation.list_installations() == []


def test_real_nodes_bind_failure_is_recognised_as_a_taken_port(
    dist_cache_env: dict[str, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
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
        race = tmp_path / "race"
        with pytest.raises(LaunchError, match="ports kept being taken"):
            cluster.provision_cluster(ProvisionSettings(distribution_repository="maven"), race_dir=race)
    console = (race / "logs" / "node-0" / "console.log").read_text()
    assert str(taken) in console and "bind" in console.lower()
    assert installation.list_installations() == []


def test_ctrl_c_during_start_leaves_nothing_running(dist_cache_env: dict[str, str]) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "esbench", "start", "--distribution-repository=maven"],
        env=dist_cache_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        inst: installation.Installation | None = None
        while time.monotonic() < deadline and proc.poll() is None:
            found = installation.list_installations()
            if found and _marker_pids(found[0].id, 1):
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
    assert _marker_pids(inst.id, 1) == []
    assert not Path(inst.root).exists()
    assert installation.list_installations() == []


def test_unknown_version_reported_by_real_maven(dist_cache_env: dict[str, str]) -> None:
    result = _esbench(
        dist_cache_env,
        "download",
        "--distribution-version=8.99.0",
        "--distribution-repository=maven",
        timeout=120,
    )
    assert result.returncode == 64
    assert "[ERROR] Elasticsearch 8.99.0 was not found in the Maven repositories" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
