"""The Ray load driver against a real two-node Ray cluster (tests/ray_cluster.py) and the loopback stub.

Both Ray nodes are processes of this machine on their own loopback addresses, so what is asserted
is the distributed path itself: placement over nodes by CPU, the workers' TCP connections, the
clock handshake, merging at the join point, a node dying mid-race, and no worker surviving a race.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from driver_helpers import StubProcess, challenge, op, task, track
from ray_cluster import HEAD_CPUS, HEAD_IP, SECOND_CPUS, SECOND_IP

from esbench.driver.coordinator.pools.ray_pool import check_ray_head, parse_ray_address
from esbench.driver.coordinator.run import DriverOutcome, DriverSettings, Progress, run_challenge, tasks_of
from esbench.driver.transport.client import ClientOptions
from esbench.track.model import Throughput

pytestmark = pytest.mark.timeout(240)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _gone_within(pid: int, seconds: float) -> bool:
    """True once ``pid`` has exited, polling up to ``seconds`` (a killed process takes a moment)."""
    deadline = time.monotonic() + seconds
    while _pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _race(cluster, search, stub, *, progress=None, **fields) -> DriverOutcome:
    """Run the one task ``search`` against ``stub`` with the Ray load driver on ``cluster``
    (``fields``: more ``DriverSettings``)."""
    return run_challenge(
        track=track(),
        challenge=challenge(search),
        hosts=[stub.host],
        client_options=ClientOptions(timeout=10),
        settings=DriverSettings(load_driver="ray", ray_address=cluster.address, task_pause_s=0, **fields),
        corpora=None,
        progress=progress,
    )


def test_a_race_on_two_ray_nodes_merges_what_both_measured(ray_cluster) -> None:
    search = task(op("search", index="idx", body={"query": {"match_all": {}}}), clients=6, iterations=40)
    with StubProcess(delay=0.001) as stub:
        outcome = _race(ray_cluster, search, stub)
    assert outcome.status == "completed", outcome.error
    result = tasks_of(outcome)[search.name]
    record = outcome.load_driver
    assert record["backend"] == "ray"
    # One worker per CPU of the cluster, taken round-robin over the nodes.
    hosts = [w["host"] for w in record["workers"]]
    assert sorted(hosts) == sorted([HEAD_IP] * HEAD_CPUS + [SECOND_IP] * SECOND_CPUS)
    clients = record["clients"][search.name]
    assert set(clients) == {HEAD_IP, SECOND_IP}
    assert sorted(c for ids in clients.values() for c in ids) == list(range(6))
    samples = record["samples"][search.name]
    assert samples[HEAD_IP] > 0 and samples[SECOND_IP] > 0
    # 6 clients x 40 iterations, merged from both hosts' recorders.
    assert result.sample_count == 240 == sum(samples.values())
    assert samples[SECOND_IP] == 40 * len(clients[SECOND_IP])
    for worker in record["workers"]:
        # Both nodes share this machine's CLOCK_MONOTONIC: the measured offset must be ~0, within
        # its own stated bound (plus the probes' scheduling noise on a busy machine).
        assert abs(worker["clock_offset_ms"]) <= worker["clock_uncertainty_ms"] + 5.0
        assert _gone_within(worker["pid"], 15), f"a Ray worker outlived the race: {worker}"


def test_load_driver_hosts_restricts_the_workers_to_those_nodes(ray_cluster) -> None:
    search = task(op("search", index="idx", body={"query": {"match_all": {}}}), clients=2, iterations=5)
    with StubProcess() as stub:
        outcome = _race(ray_cluster, search, stub, load_driver_hosts=(SECOND_IP,))
    assert outcome.status == "completed", outcome.error
    assert {w["host"] for w in outcome.load_driver["workers"]} == {SECOND_IP}
    assert outcome.load_driver["samples"][search.name] == {SECOND_IP: 10}


def test_ctrl_c_mid_race_keeps_the_results_and_stops_every_worker(ray_cluster) -> None:
    search = task(
        op("search", index="idx", body={"query": {"match_all": {}}}),
        clients=3,
        warmup_time_period=0,
        time_period=60,
    )

    def ctrl_c_once_measuring(p: Progress) -> None:
        # Raised in the coordinator's loop, where a real Ctrl-C lands.
        if p.samples > 20:
            raise KeyboardInterrupt

    with StubProcess(delay=0.002) as stub:
        outcome = _race(ray_cluster, search, stub, progress=ctrl_c_once_measuring, progress_interval_s=0.2)
    assert outcome.status == "interrupted"
    result = tasks_of(outcome)[search.name]
    samples = outcome.load_driver["samples"][search.name]
    assert set(samples) == {HEAD_IP, SECOND_IP}
    assert result.sample_count == sum(samples.values()) > 20
    for worker in outcome.load_driver["workers"]:
        assert _gone_within(worker["pid"], 15), f"a Ray worker outlived the race: {worker}"


def test_a_host_that_dies_mid_race_fails_the_race_and_keeps_the_results(ray_cluster) -> None:
    search = task(
        op("search", index="idx", body={"query": {"match_all": {}}}),
        clients=3,
        warmup_time_period=0,
        time_period=60,
    )
    killed = threading.Event()

    def kill_second_node_once_measuring(p: Progress) -> None:
        if p.samples > 20 and not killed.is_set():
            killed.set()
            os.kill(ray_cluster.second_node_raylet(), signal.SIGKILL)

    try:
        with StubProcess(delay=0.002) as stub:
            outcome = _race(
                ray_cluster, search, stub, progress=kill_second_node_once_measuring, progress_interval_s=0.2
            )
        assert killed.is_set()
        assert outcome.status == "failed"
        assert "went away" in outcome.error and SECOND_IP in outcome.error
        # What the surviving host measured before the race stopped is kept.
        result = tasks_of(outcome)[search.name]
        assert result.sample_count > 0
        assert outcome.load_driver["samples"][search.name][HEAD_IP] == result.sample_count
        for worker in outcome.load_driver["workers"]:
            assert _gone_within(worker["pid"], 15), f"a Ray worker outlived the race: {worker}"
    finally:
        ray_cluster.replace_second()


def _search_requests(received: list[tuple[str, str, str]]) -> dict[str, int]:
    """``_search`` requests of ``StubProcess.received()``, per client connection (``host:port``)."""
    per_connection: dict[str, int] = {}
    for _, target, peer in received:
        if target.endswith("/_search"):
            per_connection[peer] = per_connection.get(peer, 0) + 1
    return per_connection


@pytest.mark.parametrize(
    "limits",
    [
        pytest.param({"warmup_iterations": 7, "iterations": 23}, id="iteration-based"),
        # Throttled: clients are mid-schedule (sleeping or in flight) when the time period ends.
        pytest.param(
            {"warmup_time_period": 0.5, "time_period": 1.5, "target_throughput": Throughput(value=60.0)},
            id="time-period-based",
        ),
    ],
)
def test_the_stub_receives_exactly_the_recorded_requests(ray_cluster, limits) -> None:
    search = task(op("search", index="idx", body={"query": {"match_all": {}}}), clients=3, **limits)
    with StubProcess(delay=0.002) as stub:
        outcome = _race(ray_cluster, search, stub)
        received = stub.received()
    per_connection = _search_requests(received)
    assert outcome.status == "completed", outcome.error
    result = tasks_of(outcome)[search.name]
    assert set(outcome.load_driver["samples"][search.name]) == {HEAD_IP, SECOND_IP}
    # Nothing but the task's searches reached the node: no probe, warm-up or retried request.
    assert {target for _, target, _ in received} == {"/idx/_search"}
    assert sum(per_connection.values()) == result.sample_count + result.warmup_sample_count
    if "iterations" in limits:
        assert result.warmup_sample_count == 3 * 7 and result.sample_count == 3 * 23
        # One keep-alive connection per client, each with exactly its iterations.
        assert sorted(per_connection.values()) == [30, 30, 30]
    else:
        assert result.warmup_sample_count > 0 and result.sample_count > 0


#: Run in a fresh process (this one's Ray state belongs to the cluster): two races' pools without
#: an address, one after the other (a sweep), each reporting its nodes and Ray's auth variables.
_PRIVATE_INSTANCES = """
import json, os
from esbench.driver.coordinator.pools.ray_pool import RayPool
out = []
for _ in range(2):
    pool = RayPool(address=None)
    try:
        pool.capacity()
        out.append({"nodes": [n.address for n in pool.nodes], "mode": os.environ.get("RAY_AUTH_MODE")})
    finally:
        pool.stop()
    out[-1]["after"] = [os.environ.get(k) for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN")]
print(json.dumps(out))
"""


def test_without_an_address_the_ray_driver_starts_its_own_instance(ray_cluster, tmp_path) -> None:
    # `ray start` on this host recorded its cluster (/tmp/ray/ray_current_cluster), which a bare
    # ray.init() would join; its nodes on other hosts could not reach a listener on loopback.
    # A new instance gets a token, which Ray saves in the home unless given one: a home of its own
    # shows whether it did (a token there keeps later `ray start --address` nodes out).
    env = {k: v for k, v in ray_cluster.env.items() if k != "RAY_ADDRESS" and not k.startswith("RAY_AUTH")}
    env["HOME"] = str(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", _PRIVATE_INSTANCES], env=env, capture_output=True, text=True, timeout=180
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    runs = json.loads(proc.stdout.strip().splitlines()[-1])
    for run in runs:
        [address] = run["nodes"]
        assert address not in {HEAD_IP, SECOND_IP}
        assert run["mode"] == "token"  # Ray's protection of a new instance stays on
        assert run["after"] == [None, None]
    assert not (tmp_path / ".ray" / "auth_token").exists()


def test_the_head_check_accepts_a_real_gcs(ray_cluster) -> None:
    # The fast check before ray.init (HTTP/2 preface -> SETTINGS frame) passes a real Ray head;
    # tests/unit/driver/test_ray_head_check.py has what it refuses.
    check_ray_head(*parse_ray_address(ray_cluster.address), timeout=3.0)
