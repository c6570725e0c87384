"""Which host runs which worker (by CPU), and which host ran which clients (pure).

Rally starts one worker process per core on every ``--load-driver-hosts`` host and assigns the
clients round-robin over all of them (Rally's ``driver.py``, ``Driver.prepare_benchmark`` and
``calculate_worker_assignments``). esbench does the same over a Ray cluster: each alive node offers
one worker slot per CPU Ray gives it, slots are taken round-robin over the nodes (so a race with
fewer clients than CPUs still uses every node), and the allocator hands each worker its contiguous
share of a step's clients (:mod:`esbench.driver.coordinator.allocator`).
"""

from __future__ import annotations

import socket
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from esbench.driver.coordinator.allocator import Step
from esbench.exceptions import ConfigError


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeSlots:
    """A Ray node that can run workers.

    Attributes:
        node_id: Ray's node id (hex).
        address: the node's IP address (Ray's ``NodeManagerAddress``).
        cpus: worker slots (Ray's ``CPU`` resource of the node, whole CPUs).
    """

    node_id: str
    address: str
    cpus: int


def nodes_from_ray(nodes: Sequence[Mapping[str, Any]]) -> list[NodeSlots]:
    """Alive nodes with at least one CPU from ``ray.nodes()`` (a list of dicts), by address."""
    out = []
    for node in nodes:
        cpus = int(node.get("Resources", {}).get("CPU", 0))
        if node.get("Alive") and cpus >= 1:
            out.append(NodeSlots(node_id=node["NodeID"], address=node["NodeManagerAddress"], cpus=cpus))
    return sorted(out, key=lambda n: (n.address, n.node_id))


def _resolve(host: str) -> str:
    try:
        return socket.gethostbyname(host)
    except OSError as exc:
        raise ConfigError(
            f"--load-driver-hosts: cannot resolve '{host}' ({exc}). Give the IP addresses or host names "
            f"of Ray nodes ('ray status' lists them)."
        ) from None


def select_nodes(nodes: Sequence[NodeSlots], hosts: Sequence[str]) -> list[NodeSlots]:
    """The nodes named by ``--load-driver-hosts`` (IP addresses or host names); all if empty.

    Raises:
        esbench.exceptions.ConfigError: a host is not a node of the cluster, or no node has a CPU.
    """
    if not hosts:
        chosen = list(nodes)
    else:
        by_address: dict[str, list[NodeSlots]] = {}
        for node in nodes:
            by_address.setdefault(node.address, []).append(node)
        chosen = []
        for host in hosts:
            address = _resolve(host)
            if address not in by_address:
                known = ", ".join(sorted(by_address)) or "none"
                raise ConfigError(
                    f"--load-driver-hosts: '{host}' ({address}) is not an alive Ray node with CPUs of this "
                    f"cluster (nodes: {known}). Start Ray on it ('ray start --address=HEAD:PORT') or "
                    f"remove it from --load-driver-hosts."
                )
            chosen.extend(n for n in by_address.pop(address))
    if not chosen:
        raise ConfigError(
            "The Ray cluster has no alive node with a CPU to run load-driver workers on. Check 'ray status'."
        )
    return chosen


def assign_workers(nodes: Sequence[NodeSlots], count: int) -> list[NodeSlots]:
    """The node of each of ``count`` workers (index = worker id): one slot per CPU, taken
    round-robin over the nodes; beyond the CPUs, round-robin again.

    Raises:
        ValueError: no nodes.
    """
    if not nodes:
        raise ValueError("no nodes to place workers on")
    slots: list[NodeSlots] = []
    left = {n.node_id: n.cpus for n in nodes}
    while len(slots) < count and any(left.values()):
        for node in nodes:
            if left[node.node_id] > 0 and len(slots) < count:
                slots.append(node)
                left[node.node_id] -= 1
    i = 0
    while len(slots) < count:
        slots.append(nodes[i % len(nodes)])
        i += 1
    return slots


def clients_by_host(steps: Sequence[Step], hosts: Mapping[int, str]) -> dict[str, dict[str, list[int]]]:
    """Task name -> host -> the task's client indexes (0-based, within the task) that host ran.

    ``hosts`` maps worker ids to hosts. A task that appears in several steps lists the clients of
    all of them.
    """
    out: dict[str, dict[str, list[int]]] = {}
    for step in steps:
        for plan in step.workers:
            host = hosts.get(plan.worker_id, "?")
            for client in plan.clients:
                for allocation in client.allocations:
                    per_host = out.setdefault(allocation.task.name, {})
                    indexes = per_host.setdefault(host, [])
                    if allocation.client_index_in_task not in indexes:
                        indexes.append(allocation.client_index_in_task)
    for per_host in out.values():
        for indexes in per_host.values():
            indexes.sort()
    return out


class SampleTally:
    """Measurement samples per task and worker, summed over the join points of a race."""

    def __init__(self) -> None:
        self.by_worker: dict[str, dict[int, int]] = {}

    def add(self, done: Sequence[Any]) -> None:
        """Count the recorder states of ``StepDone`` messages (their ``sample_count``)."""
        for message in done:
            for name, state in message.states.items():
                per_worker = self.by_worker.setdefault(name, {})
                per_worker[message.worker_id] = per_worker.get(message.worker_id, 0) + state.sample_count

    def by_host(self, hosts: Mapping[int, str]) -> dict[str, dict[str, int]]:
        """Task name -> host -> measurement samples (warmup excluded) that host's workers recorded."""
        out: dict[str, dict[str, int]] = {}
        for name, per_worker in self.by_worker.items():
            per_host = out.setdefault(name, {})
            for worker_id, count in per_worker.items():
                host = hosts.get(worker_id, "?")
                per_host[host] = per_host.get(host, 0) + count
        return out
