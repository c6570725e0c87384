"""Worker pools: choosing one, placing workers by CPU, clock offsets and their message translation."""

from __future__ import annotations

import multiprocessing
import threading
from types import SimpleNamespace

import pytest
from driver_helpers import SEARCH_RESPONSE, challenge, op, task, track

from esbench.driver.coordinator.allocator import plan_schedule
from esbench.driver.coordinator.pools.base import ConnectionHandle, LoadDriver
from esbench.driver.coordinator.pools.clock import (
    ClockedConnection,
    ClockOffset,
    answer_probes,
    measure_offset,
    to_coordinator_clock,
    to_worker_clock,
)
from esbench.driver.coordinator.pools.factory import create_pool, resolve_load_driver
from esbench.driver.coordinator.pools.local import LocalWorkerHandle
from esbench.driver.coordinator.pools.placement import (
    NodeSlots,
    SampleTally,
    assign_workers,
    clients_by_host,
    nodes_from_ray,
    select_nodes,
)
from esbench.driver.coordinator.pools.ray_pool import RayWorkerHandle, parse_ray_address
from esbench.driver.coordinator.pools.ray_worker import Hello
from esbench.driver.coordinator.run import DriverSettings, run_challenge
from esbench.driver.transport.client import ClientOptions
from esbench.driver.transport.http import StaticTransport
from esbench.driver.worker.process import ProgressReport, StartStep, StepDone
from esbench.exceptions import ConfigError
from esbench.metrics.recorder import RecorderState, RequestSpan

A = NodeSlots(node_id="a", address="10.0.0.1", cpus=3)
B = NodeSlots(node_id="b", address="10.0.0.2", cpus=1)


# ----------------------------------------------------------------------------- choosing a pool


@pytest.mark.parametrize(
    ("load_driver", "hosts", "expected"),
    [
        (None, (), LoadDriver.LOCAL),
        (None, ("localhost",), LoadDriver.LOCAL),  # Rally's default value
        (None, ("10.0.0.2",), LoadDriver.RAY),  # a Rally command line with remote load drivers
        ("ray", (), LoadDriver.RAY),
        ("local", ("127.0.0.1",), LoadDriver.LOCAL),
    ],
)
def test_the_backend_follows_load_driver_and_load_driver_hosts(load_driver, hosts, expected):
    assert resolve_load_driver(load_driver, hosts) is expected


def test_local_with_remote_load_driver_hosts_is_refused():
    with pytest.raises(ConfigError, match="--load-driver-hosts names other hosts"):
        resolve_load_driver("local", ("10.0.0.2",))
    with pytest.raises(ConfigError, match="not one of local, ray"):
        resolve_load_driver("dask", ())


def test_a_ray_address_without_the_ray_driver_is_refused():
    with pytest.raises(ConfigError, match="--ray-address is only used with --load-driver=ray"):
        create_pool(load_driver=None, ray_address="10.0.0.1:6379", load_driver_hosts=(), workers=None)


@pytest.mark.parametrize("text", ["10.0.0.1", "ray://10.0.0.1:10001", "10.0.0.1:99999", ":6379", "h:x"])
def test_a_bad_ray_address_names_the_option(text):
    with pytest.raises(ConfigError, match="--ray-address"):
        parse_ray_address(text)


def test_a_ray_address_is_host_and_port():
    assert parse_ray_address("10.0.0.5:6379") == ("10.0.0.5", 6379)
    assert parse_ray_address("[::1]:6379") == ("::1", 6379)


# ---------------------------------------------------------------------------------- placement


def test_workers_take_one_slot_per_cpu_round_robin_over_the_nodes():
    assert [n.node_id for n in assign_workers([A, B], 2)] == ["a", "b"]
    assert [n.node_id for n in assign_workers([A, B], 4)] == ["a", "b", "a", "a"]
    # Beyond the CPUs (--load-driver-workers), round-robin again.
    assert [n.node_id for n in assign_workers([A, B], 6)] == ["a", "b", "a", "a", "a", "b"]


def test_only_alive_nodes_with_cpus_offer_slots():
    nodes = [
        {"NodeID": "b", "NodeManagerAddress": "10.0.0.2", "Alive": True, "Resources": {"CPU": 1.0}},
        {"NodeID": "a", "NodeManagerAddress": "10.0.0.1", "Alive": True, "Resources": {"CPU": 3.0}},
        {"NodeID": "d", "NodeManagerAddress": "10.0.0.4", "Alive": False, "Resources": {"CPU": 8.0}},
        {"NodeID": "g", "NodeManagerAddress": "10.0.0.5", "Alive": True, "Resources": {"GPU": 1.0}},
    ]
    assert nodes_from_ray(nodes) == [A, B]


def test_load_driver_hosts_select_nodes_by_address_or_name():
    local = NodeSlots(node_id="l", address="127.0.0.1", cpus=2)
    assert select_nodes([A, B], ()) == [A, B]
    assert select_nodes([A, B], ("10.0.0.2",)) == [B]
    assert select_nodes([A, local], ("localhost",)) == [local]
    with pytest.raises(
        ConfigError, match=r"'10.0.0.9' \(10.0.0.9\) is not an alive Ray node.*10.0.0.1, 10.0.0.2"
    ):
        select_nodes([A, B], ("10.0.0.9",))
    with pytest.raises(ConfigError, match="no alive node with a CPU"):
        select_nodes([], ())


def test_clients_and_samples_are_reported_per_host():
    s = task(op("search", body={}), clients=5, iterations=1)
    steps = plan_schedule(challenge(s).schedule, max_workers=3)
    hosts = {0: "10.0.0.1", 1: "10.0.0.2", 2: "10.0.0.1"}
    # 5 clients over 3 workers: 0-1, 2-3, 4 (the allocator's contiguous shares).
    assert clients_by_host(steps, hosts) == {"search": {"10.0.0.1": [0, 1, 4], "10.0.0.2": [2, 3]}}
    tally = SampleTally()
    state = RecorderState(task="search", operation="search", operation_type="search", sample_count=7)
    tally.add([SimpleNamespace(worker_id=w, states={"search": state}) for w in (0, 1, 2)])
    assert tally.by_host(hosts) == {"search": {"10.0.0.1": 14, "10.0.0.2": 7}}


def test_a_local_race_records_its_host_and_clients():
    def http(client_id: int) -> StaticTransport:
        return StaticTransport(lambda m, t, b: (200, SEARCH_RESPONSE), record=False)

    outcome = run_challenge(
        track=track(),
        challenge=challenge(task(op("search", body={}), clients=2, iterations=3)),
        hosts=["127.0.0.1:9"],
        client_options=ClientOptions(),
        settings=DriverSettings(workers=0, task_pause_s=0),
        corpora=None,
        _thread_runtime={"http_factory": http},
    )
    record = outcome.load_driver
    assert record["backend"] == "local"
    [worker] = record["workers"]
    assert worker["worker_id"] == 0 and worker["clock_offset_ms"] == 0.0
    assert record["clients"] == {"search": {worker["host"]: [0, 1]}}
    assert record["samples"] == {"search": {worker["host"]: 6}}


# ------------------------------------------------------------------------------------ handles


@pytest.mark.parametrize("kind", ["local", "ray"])
def test_a_handle_whose_worker_is_gone_turns_dead_instead_of_raising(kind):
    parent, child = multiprocessing.Pipe()
    if kind == "local":
        handle = LocalWorkerHandle(3, parent, None, None)
    else:
        conn = ClockedConnection(parent, ClockOffset(offset_s=0.0, uncertainty_s=0.0))
        hello = Hello(worker_id=3, host="10.0.0.2", node_id="n" * 56, pid=1, hostname="h")
        handle = RayWorkerHandle(3, conn, ref=None, hello=hello)
    assert isinstance(handle, ConnectionHandle)
    handle.send(StartStep(step=0, start_at=1.0))
    assert child.recv() == StartStep(step=0, start_at=1.0) and not handle.dead
    child.close()
    handle.send(StartStep(step=1, start_at=2.0))  # the worker's end is gone: no exception
    assert handle.dead
    parent.close()
    handle.send(StartStep(step=2, start_at=3.0))  # a dead handle sends nothing more
    assert handle.dead


# -------------------------------------------------------------------------------------- clock


def test_the_offset_comes_from_the_probe_with_the_smallest_round_trip():
    # (sent, worker clock, received): the worker's clock is 100 s ahead.
    probes = [(0.0, 100.9, 1.0), (2.0, 102.05, 2.1), (3.0, 103.5, 4.0)]
    clock = ClockOffset.from_probes(probes)
    assert clock.offset_s == pytest.approx(100.0)
    assert clock.uncertainty_s == pytest.approx(0.05)
    with pytest.raises(ValueError):
        ClockOffset.from_probes([])
    with pytest.raises(ValueError, match="received"):
        ClockOffset.from_probes([(2.0, 5.0, 1.0)])


def test_messages_are_translated_between_the_clocks():
    clock = ClockOffset(offset_s=100.0, uncertainty_s=0.001)
    assert to_worker_clock(StartStep(step=1, start_at=5.0), clock) == StartStep(step=1, start_at=105.0)
    state = RecorderState(
        task="t", operation="o", operation_type="search", origin=105.0, last_end=110.0,
        last_warmup_end=None, request_span=RequestSpan(105.25, 0.5, 109.75),
    )  # fmt: skip
    done = StepDone(
        worker_id=0, step=1, end=111.0, states={"t": state}, item_errors={}, context_changes={},
        spans={"t": (105.0, 110.5)},
    )  # fmt: skip
    back = to_coordinator_clock(done, clock)
    assert back.end == pytest.approx(11.0) and back.spans["t"] == pytest.approx((5.0, 10.5))
    assert back.states["t"].origin == pytest.approx(5.0)
    assert back.states["t"].last_end == pytest.approx(10.0)
    assert back.states["t"].last_warmup_end is None
    # Rally's interval is a duration: the same in both clocks; its instants move with the clock.
    assert back.states["t"].request_span == RequestSpan(5.25, 0.5, 9.75)
    report = ProgressReport(worker_id=0, step=1, at=103.0, tasks={})
    assert to_coordinator_clock(report, clock).at == pytest.approx(3.0)


def test_probing_a_worker_on_the_same_clock_measures_no_offset():
    here, there = multiprocessing.Pipe()
    worker = threading.Thread(target=answer_probes, args=(there.send, there.recv))
    worker.start()
    clock = measure_offset(here.send, here.recv)
    worker.join(5)
    assert not worker.is_alive()  # the end marker ended the probing
    # Same perf_counter: the true offset is 0, so the estimate must lie within its own bound.
    assert abs(clock.offset_s) <= clock.uncertainty_s + 1e-6
    assert clock.uncertainty_s < 0.05


def test_a_clocked_connection_translates_both_ways():
    here, there = multiprocessing.Pipe()
    conn = ClockedConnection(here, ClockOffset(offset_s=-2.0, uncertainty_s=0.0))
    conn.send(StartStep(step=0, start_at=10.0))
    assert there.recv().start_at == pytest.approx(8.0)
    there.send(ProgressReport(worker_id=0, step=0, at=9.0, tasks={}))
    assert conn.poll(1) and conn.recv().at == pytest.approx(11.0)
    assert conn.fileno() == here.fileno()
