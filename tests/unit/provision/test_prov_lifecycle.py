"""Node lifecycle against a fake bin/elasticsearch (claims about esbench's process handling, not ES)."""

from __future__ import annotations

import json
import os
import pwd
import signal
import socket
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from esbench.exceptions import LaunchError, ProvisionError
from esbench.provision import cluster, installation
from esbench.provision.launcher import pid_alive, pids_with_marker
from esbench.provision.ports import free_ports
from esbench.provision.provisioned import provision_cluster
from esbench.provision.settings import DEFAULT_RUN_AS_USER, ProvisionSettings

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _health(host: str) -> dict:
    with _OPENER.open(f"http://{host}/_cluster/health", timeout=5) as resp:
        return json.loads(resp.read())


def _uid(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return int(line.split()[1])
    raise AssertionError("no Uid line")


def _settings(archive: Path, **kw: object) -> ProvisionSettings:
    return ProvisionSettings(distribution_path=archive, start_timeout=20, stop_timeout=5, **kw)  # type: ignore[arg-type]


def _all_marker_pids(inst_id: str, nodes: int) -> list[int]:
    return [p for i in range(nodes) for p in pids_with_marker(f"{inst_id}/node-{i}")]


def test_provision_start_stop_single_node(fake_dist: Callable[..., Path], tmp_path: Path) -> None:
    race = tmp_path / "race"
    pc = provision_cluster(_settings(fake_dist(), car="defaults,ea"), race_dir=race)
    inst = pc.installation
    root = Path(inst.root)
    (node,) = inst.nodes
    assert pc.version == "8.19.0" and pc.car == "defaults+ea"
    assert pc.hosts == (f"127.0.0.1:{node.http_port}",)
    assert _health(pc.hosts[0])["status"] == "green"
    pids = _all_marker_pids(inst.id, 1)
    assert pids and node.pid in pids
    # As root the node runs as the unprivileged esbench account (never as root); otherwise as us.
    expected_uid = pwd.getpwnam(DEFAULT_RUN_AS_USER).pw_uid if os.geteuid() == 0 else os.geteuid()
    assert _uid(pids[0]) == expected_uid
    opts = (node.config_dir / "jvm.options.d" / "esbench.options").read_text().split()
    assert opts[:3] == ["-Xms1g", "-Xmx1g", "-ea"]
    yml = (node.config_dir / "elasticsearch.yml").read_text()
    assert f"http.port: {node.http_port}" in yml and "discovery.type: single-node" in yml
    assert installation.load(inst.id).status == "started"
    pc.stop()
    assert not any(pid_alive(p) for p in pids)
    assert not root.exists()
    assert not installation.state_file(inst.id).exists()
    assert "fake node started" in (race / "logs" / "node-0" / f"{inst.cluster_name}.log").read_text()
    pc.stop()  # idempotent


def test_three_nodes_get_distinct_ports_and_form_one_cluster(fake_dist: Callable[..., Path]) -> None:
    with provision_cluster(_settings(fake_dist(), nodes=3), race_dir=None) as pc:
        nodes = pc.installation.nodes
        ports = [n.http_port for n in nodes] + [n.transport_port for n in nodes]
        assert len(set(ports)) == 6
        assert all(_health(h)["number_of_nodes"] == 3 for h in pc.hosts)
        inst_id = pc.installation_id
    assert _all_marker_pids(inst_id, 3) == []


def test_launch_failure_shows_the_console_output_and_cleans_up(fake_dist: Callable[..., Path]) -> None:
    with pytest.raises(LaunchError, match=r"(?s)node-0 .* failed to start.*unknown setting \[foo\.bar\]"):
        provision_cluster(_settings(fake_dist("fail-launch")), race_dir=None)
    assert installation.list_installations() == []


def test_node_dying_during_start_shows_its_log_tail(fake_dist: Callable[..., Path]) -> None:
    with pytest.raises(LaunchError, match=r"(?s)died during start.*fake OutOfMemoryError"):
        provision_cluster(_settings(fake_dist("die-after-start")), race_dir=None)
    assert installation.list_installations() == []


def test_a_cluster_that_never_gets_green_times_out_and_is_stopped(fake_dist: Callable[..., Path]) -> None:
    settings = ProvisionSettings(
        distribution_path=fake_dist("never-green"), start_timeout=1.5, stop_timeout=5
    )
    with pytest.raises(LaunchError, match="did not report a green cluster of 1 node"):
        provision_cluster(settings, race_dir=None)
    # the no_leftover_nodes fixture asserts that nothing keeps running


def test_a_port_taken_between_choice_and_bind_is_retried_with_fresh_ports(
    fake_dist: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        taken = blocker.getsockname()[1]
        calls: list[list[int]] = []

        def racy_free_ports(count: int, *, exclude: object = ()) -> list[int]:
            ports = free_ports(count, exclude=exclude)  # type: ignore[arg-type]
            if not calls:
                ports[0] = taken  # someone grabbed the HTTP port after we chose it
            calls.append(ports)
            return ports

        monkeypatch.setattr(cluster, "free_ports", racy_free_ports)
        with provision_cluster(_settings(fake_dist()), race_dir=None) as pc:
            assert len(calls) == 2
            assert pc.hosts[0] != f"127.0.0.1:{taken}"
            assert _health(pc.hosts[0])["status"] == "green"


def test_ports_that_keep_being_taken_give_up_with_a_clear_error(
    fake_dist: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        taken = blocker.getsockname()[1]
        monkeypatch.setattr(cluster, "free_ports", lambda count, exclude=(): [taken, *free_ports(count - 1)])
        with pytest.raises(LaunchError, match="ports kept being taken"):
            provision_cluster(_settings(fake_dist()), race_dir=None)


def test_ctrl_c_during_start_stops_the_node_and_removes_the_install(
    fake_dist: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[int] = []

    def interrupted(host: str, **_: object) -> None:
        inst = installation.list_installations()[0]
        seen.extend(_all_marker_pids(inst.id, 1))
        raise KeyboardInterrupt

    monkeypatch.setattr(cluster, "cluster_health", interrupted)
    with pytest.raises(KeyboardInterrupt):
        provision_cluster(_settings(fake_dist()), race_dir=None)
    assert seen, "the node should have been running when Ctrl-C hit"
    assert not any(pid_alive(p) for p in seen)
    assert installation.list_installations() == []


def test_stop_escalates_to_sigkill(fake_dist: Callable[..., Path]) -> None:
    inst = cluster.install(_settings(fake_dist("ignore-sigterm")))
    started = cluster.start(inst, timeout=20, stop_timeout=5)
    pids = _all_marker_pids(inst.id, 1)
    assert cluster.stop(started, timeout=0.5) == sorted(pids)
    assert not any(pid_alive(p) for p in pids)


def test_install_start_stop_preserve_restart(fake_dist: Callable[..., Path]) -> None:
    inst = cluster.install(_settings(fake_dist(), nodes=2))
    assert installation.load(inst.id[:10]).status == "installed"  # unique prefixes work
    started = cluster.start(inst, timeout=20)
    with pytest.raises(ProvisionError, match="already running"):
        cluster.start(installation.load(inst.id), timeout=20)
    assert cluster.running_installations()[0].id == inst.id
    cluster.stop(started, preserve_install=True)
    kept = installation.load(inst.id)
    assert kept.status == "stopped" and Path(kept.root).is_dir()
    again = cluster.start(kept, timeout=20)
    assert all(_health(h)["status"] == "green" for h in again.hosts)
    cluster.stop(again)
    assert not Path(kept.root).exists() and installation.list_installations() == []


def test_sigterm_during_start_is_treated_like_ctrl_c(
    fake_dist: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[int] = []

    def terminated(host: str, **_: object) -> None:
        inst = installation.list_installations()[0]
        seen.extend(_all_marker_pids(inst.id, 1))
        os.kill(os.getpid(), signal.SIGTERM)
        return None

    monkeypatch.setattr(cluster, "cluster_health", terminated)
    previous = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        provision_cluster(_settings(fake_dist()), race_dir=None)
    assert signal.getsignal(signal.SIGTERM) == previous
    assert seen and not any(pid_alive(p) for p in seen)
    assert installation.list_installations() == []
