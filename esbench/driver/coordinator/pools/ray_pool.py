"""Load-driver workers as Ray actors over the nodes of a Ray cluster (``--load-driver=ray``).

How a race runs on Ray:

1. ``capacity()`` joins the cluster (``ray.init(address=HOST:PORT)``; without an address or
   ``RAY_ADDRESS``, a new Ray instance is started on this host) and counts the CPUs of its alive
   nodes (or of the ``--load-driver-hosts`` nodes); the allocator spreads each step's clients over
   that many workers, exactly as over the cores of one host.
2. ``start()`` places worker ``i`` on a node by CPU
   (:func:`~esbench.driver.coordinator.pools.placement.assign_workers`,
   pinned with Ray's ``NodeAffinitySchedulingStrategy``), opens a TCP listener on this host and
   starts ``RayWorker.serve`` on every actor. Each actor connects back (authenticated with a random
   per-race key), says which worker it is, answers the clock probes, then runs the unchanged
   worker runtime. The coordinator sees each worker as a :class:`RayWorkerHandle` whose
   connection converts times between the host clocks (:mod:`esbench.driver.coordinator.pools.clock`).
3. A worker whose host dies shows as a closed connection (its process ends with its raylet) or as
   a finished ``serve`` call (Ray's ``ActorDiedError``); the coordinator then ends the race with
   the results measured so far (status ``failed``). ``stop()`` asks every worker to shut down and
   then kills every actor with ``ray.kill``, so no worker survives the race, Ctrl-C included.

The measurement data path is the worker protocol over TCP, not Ray's object store: one pickled
message per progress report and per join point, as with local pipes.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import secrets
import select
import socket
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, answer_challenge, deliver_challenge
from typing import Any

from esbench.driver.coordinator.pools.base import ConnectionHandle, LoadDriver, WorkerHandle, WorkerPlacement
from esbench.driver.coordinator.pools.clock import ClockedConnection, measure_offset
from esbench.driver.coordinator.pools.placement import NodeSlots, assign_workers, nodes_from_ray, select_nodes
from esbench.driver.coordinator.pools.ray_worker import Hello, RayWorker
from esbench.driver.worker.process import InitWorker, Shutdown
from esbench.exceptions import ConfigError, DriverError

logger = logging.getLogger(__name__)

#: Seconds for all actors to be placed, started and connected.
START_TIMEOUT = 90.0
#: Seconds for a connected actor to finish its handshake (hello and clock probes).
HANDSHAKE_TIMEOUT = 30.0
#: Seconds to wait for the actors to end after ``Shutdown`` before killing them.
SHUTDOWN_GRACE = 5.0
#: Seconds to wait for Ray's reason of a worker's death.
DEATH_REASON_WAIT = 2.0
#: Seconds for the TCP connection to the Ray head's GCS port before ``ray.init`` (which retries a
#: missing head for a minute or more, printing its own retry lines).
HEAD_CONNECT_TIMEOUT = 3.0
#: Ray's token-authentication settings (https://docs.ray.io/en/latest/ray-security/token-auth.html).
_RAY_AUTH_VARIABLES = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")


def parse_ray_address(text: str, *, option: str = "--ray-address") -> tuple[str, int]:
    """``HOST:PORT`` of a Ray cluster's head (GCS) -> (host, port).

    Raises:
        esbench.exceptions.ConfigError: not ``HOST:PORT`` with a port in 1-65535.
    """
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536 or "://" in text:
        raise ConfigError(
            f"{option}: '{text}' is not HOST:PORT of a Ray head node (e.g. 10.0.0.5:6379, the address "
            f"'ray start --head' prints). Ray Client addresses (ray://...) are not supported: run "
            f"esbench on a host of the cluster."
        )
    return host.strip("[]"), int(port)


def check_ray_head(host: str, port: int, *, timeout: float = HEAD_CONNECT_TIMEOUT) -> None:
    """Fail fast when nothing accepts TCP connections at the Ray head's GCS address.

    Args:
        host, port: the head's address (:func:`parse_ray_address`).
        timeout: seconds for the connection (:data:`HEAD_CONNECT_TIMEOUT`).

    Raises:
        esbench.exceptions.DriverError: the connection was refused, timed out or the name does not
            resolve; the message says what was tried and for how long.
    """
    started = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(max(0.1, timeout - (time.monotonic() - started)))
            if os.environ.get("RAY_USE_TLS", "0") in ("0", ""):
                _check_http2_server(sock)
            return
    except OSError as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        what = "a TCP connection to the head's GCS port failed"
    except _NotGrpc as exc:
        reason, what = str(exc), "something accepts connections there, but it is not Ray's GCS (gRPC)"
    took = time.monotonic() - started
    raise DriverError(
        f"Cannot join the Ray cluster at {host}:{port}: {what} ({reason}; checked in {took:.1f} s, "
        f"limit {timeout:g} s). Check --ray-address/RAY_ADDRESS (the address 'ray start --head' "
        f"prints, e.g. 10.0.0.5:6379) and that 'ray status --address={host}:{port}' works on this host."
    )


class _NotGrpc(Exception):
    pass


#: HTTP/2's client connection preface and an empty SETTINGS frame (RFC 9113, sections 3.4 and 6.5).
_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
_HTTP2_SETTINGS = 4


def _check_http2_server(sock: socket.socket) -> None:
    # Ray's GCS is a gRPC server, which answers a client preface with its own SETTINGS frame at
    # once; ray.init against anything else (a wrong port) retries for minutes.
    sock.sendall(_HTTP2_PREFACE)
    head = b""
    try:
        while len(head) < 9:
            chunk = sock.recv(9 - len(head))
            if not chunk:
                break
            head += chunk
    except TimeoutError:
        raise _NotGrpc("it sent no HTTP/2 frame") from None
    if len(head) < 9 or head[3] != _HTTP2_SETTINGS:
        raise _NotGrpc(f"it answered {head[:16]!r}, not an HTTP/2 SETTINGS frame")


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError(
            "--load-driver=ray needs Ray, which is not installed. Install it with "
            "'pip install \"esbench[distributed]\"' on this host and on every host of the Ray cluster."
        ) from None
    return ray


def _local_address_towards(host: str, port: int) -> str:
    # The source address the kernel picks to reach the head: reachable from the cluster's nodes
    # (and a loopback address when the cluster is on loopback). No packet is sent.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect((host, port))
        return str(probe.getsockname()[0])


class RayWorkerHandle(ConnectionHandle):
    """The coordinator's end of one Ray actor running a worker."""

    conn: ClockedConnection

    def __init__(self, worker_id: int, conn: ClockedConnection, ref: Any, hello: Hello) -> None:
        super().__init__(worker_id, conn)
        self.ref = ref
        self.hello = hello

    def waitables(self) -> list[ClockedConnection]:
        return [self.conn]

    def exited(self, ready: Sequence[object]) -> bool:
        return False  # a dead actor shows as a closed connection or as a finished serve call

    def alive(self) -> bool:
        if self.dead:
            return False
        import ray

        done, _ = ray.wait([self.ref], timeout=0)
        return not done

    def describe_death(self) -> str:
        import ray

        reason = "its connection to the coordinator closed"
        done, _ = ray.wait([self.ref], timeout=DEATH_REASON_WAIT)
        if done:
            try:
                ray.get(done[0])
                reason = "its worker ended"
            except Exception as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                reason = f"{type(exc).__name__}: {first}"[:300]
        return (
            f"load-driver worker {self.worker_id} on host {self.hello.host} (Ray node "
            f"{self.hello.node_id[:12]}) went away ({reason}); the host, its Ray node or the worker died"
        )


class RayPool:
    """Workers as Ray actors (see the module doc).

    Args:
        address: ``HOST:PORT`` of the Ray head; None = ``RAY_ADDRESS``, else a new local Ray instance.
        hosts: ``--load-driver-hosts``: only the Ray nodes with these addresses/names run workers.
        workers: worker count; None = one per CPU of the chosen nodes.

    Raises:
        esbench.exceptions.ConfigError: Ray is not installed, or a bad address.
    """

    kind = LoadDriver.RAY

    def __init__(self, *, address: str | None, hosts: Sequence[str] = (), workers: int | None = None) -> None:
        self.ray = _import_ray()
        address = address or os.environ.get("RAY_ADDRESS") or None
        self.address = address
        self.target = parse_ray_address(address, option="--ray-address/RAY_ADDRESS") if address else None
        self.hosts = tuple(hosts)
        self.workers = workers
        self.nodes: list[NodeSlots] = []
        self.handles: list[RayWorkerHandle] = []
        self.actors: list[Any] = []
        self.refs: list[Any] = []
        self._initialized = False
        self._listener: socket.socket | None = None
        #: Ray's authentication variables before this pool set them (stop() restores them).
        self._environ_before: dict[str, str | None] = {}

    # ------------------------------------------------------------------------ cluster

    def _connect(self) -> None:
        ray = self.ray
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if self.address is None:
                os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
                self._use_private_token()
            if self.target is not None:
                check_ray_head(*self.target)
            try:
                # "local": a new instance. A bare ray.init() would join the cluster that 'ray start'
                # last started on this host (Ray's /tmp/ray/ray_current_cluster), whose nodes on
                # other hosts cannot reach a coordinator listening on loopback.
                ray.init(address=self.address or "local", **kwargs)
            except Exception as exc:
                where = f"the Ray cluster at {self.address}" if self.address else "a local Ray instance"
                raise DriverError(
                    f"Cannot join {where}: {type(exc).__name__}: {exc}. Check that 'ray status "
                    f"--address={self.address or 'HOST:PORT'}' works on this host."
                ) from None
            self._initialized = True
        self.nodes = select_nodes(nodes_from_ray(ray.nodes()), self.hosts)

    def _use_private_token(self) -> None:
        # Ray (2.60) protects a new local instance with token authentication (it sets
        # RAY_AUTH_MODE=token itself) and saves the token in ~/.ray/auth_token unless one is
        # given. There it stays: a later 'ray start --head' on this host finds it and requires the
        # token, while 'ray start --address' nodes, which only follow RAY_AUTH_MODE, cannot join.
        # A token of this instance alone, in the environment its processes inherit, leaves the
        # home alone. Ray's own settings, if any, win.
        if any(os.environ.get(name) for name in _RAY_AUTH_VARIABLES):
            return
        self._environ_before = {name: os.environ.get(name) for name in _RAY_AUTH_VARIABLES}
        os.environ["RAY_AUTH_TOKEN"] = _private_token()

    def capacity(self) -> int:
        if not self.nodes:
            self._connect()
        return self.workers or sum(n.cpus for n in self.nodes)

    # -------------------------------------------------------------------------- start

    def start(self, count: int, init_for: Callable[[int], InitWorker]) -> list[WorkerHandle]:
        if not self.nodes:
            self._connect()
        ray = self.ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        placement = assign_workers(self.nodes, count)
        per_node: dict[str, int] = {}
        for node in placement:
            per_node[node.node_id] = per_node.get(node.node_id, 0) + 1
        listen = _local_address_towards(*self.target) if self.target else "127.0.0.1"
        listener = socket.create_server((listen, 0))
        self._listener = listener
        address = listener.getsockname()[:2]
        authkey = os.urandom(32)
        remote_cls = ray.remote(RayWorker)
        for worker_id, node in enumerate(placement):
            actor = remote_cls.options(
                # A worker per CPU; more workers than CPUs (--load-driver-workers) share them.
                num_cpus=min(1.0, node.cpus / per_node[node.node_id]),
                max_restarts=0,
                scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node.node_id, soft=False),
                name=None,
            ).remote()
            self.actors.append(actor)
            self.refs.append(actor.serve.remote(address, authkey, worker_id))
        by_id = self._accept(listener, authkey, count, placement)
        self.handles = [by_id[i] for i in range(count)]
        for handle in self.handles:
            handle.send(init_for(handle.worker_id))
        logger.info(
            "Ray load driver: %d workers on %s",
            count,
            ", ".join(sorted({h.hello.host for h in self.handles})),
        )
        return list(self.handles)

    def _accept(
        self, listener: socket.socket, authkey: bytes, count: int, placement: Sequence[NodeSlots]
    ) -> dict[int, RayWorkerHandle]:
        ray = self.ray
        by_id: dict[int, RayWorkerHandle] = {}
        deadline = time.monotonic() + START_TIMEOUT
        while len(by_id) < count:
            if time.monotonic() > deadline:
                missing = sorted(set(range(count)) - set(by_id))
                hosts = sorted({placement[i].address for i in missing})
                raise DriverError(
                    f"{len(missing)} Ray load-driver workers (on {', '.join(hosts)}) did not connect within "
                    f"{START_TIMEOUT:.0f} s. The nodes may lack free CPUs ('ray status'), or cannot reach "
                    f"this host at {listener.getsockname()[0]}:{listener.getsockname()[1]} (a firewall)."
                )
            readable, _, _ = select.select([listener], [], [], 0.5)
            if readable:
                sock, _ = listener.accept()
                handle = self._handshake(sock, authkey, count)
                if handle is not None and handle.worker_id not in by_id:
                    by_id[handle.worker_id] = handle
            finished, _ = ray.wait(self.refs, num_returns=len(self.refs), timeout=0)
            for ref in finished:
                worker_id = self.refs.index(ref)
                if worker_id in by_id:
                    continue
                try:
                    ray.get(ref)
                    reason = "it ended before connecting"
                except Exception as exc:
                    reason = f"{type(exc).__name__}: {exc}"[:500]
                raise DriverError(
                    f"Ray load-driver worker {worker_id} on {placement[worker_id].address} failed to start: "
                    f"{reason}. Every node needs esbench installed with the same version and Python "
                    f"as this host ('pip install \"esbench[distributed]\"')."
                )
        return by_id

    def _handshake(self, sock: socket.socket, authkey: bytes, count: int) -> RayWorkerHandle | None:
        sock.setblocking(True)
        conn = Connection(sock.detach())
        try:
            # The same mutual HMAC challenge as multiprocessing's Listener.accept().
            deliver_challenge(conn, authkey)
            answer_challenge(conn, authkey)
            if not conn.poll(HANDSHAKE_TIMEOUT):
                raise TimeoutError("no hello")
            hello = conn.recv()
            if not isinstance(hello, Hello) or not 0 <= hello.worker_id < count:
                raise ValueError(f"unexpected first message {hello!r}")
            clock = measure_offset(conn.send, lambda: _recv_within(conn, HANDSHAKE_TIMEOUT))
        except Exception as exc:
            logger.warning("Rejected a connection to the Ray load-driver listener: %s", exc)
            with contextlib.suppress(OSError):
                conn.close()
            return None
        logger.debug(
            "worker %d on %s: clock offset %.6f s +- %.6f s",
            hello.worker_id,
            hello.host,
            clock.offset_s,
            clock.uncertainty_s,
        )
        return RayWorkerHandle(
            hello.worker_id, ClockedConnection(conn, clock), self.refs[hello.worker_id], hello
        )

    # --------------------------------------------------------------------------- stop

    def stop(self) -> None:
        ray = self.ray
        try:
            for handle in self.handles:
                handle.send(Shutdown())
            if self.refs:
                with contextlib.suppress(Exception):
                    ray.wait(self.refs, num_returns=len(self.refs), timeout=SHUTDOWN_GRACE)
        finally:
            for actor in self.actors:
                with contextlib.suppress(Exception):
                    ray.kill(actor, no_restart=True)
            for handle in self.handles:
                with contextlib.suppress(OSError):
                    handle.conn.close()
            if self._listener is not None:
                self._listener.close()
            if self._initialized:
                with contextlib.suppress(Exception):
                    ray.shutdown()
            for name, value in self._environ_before.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            self._environ_before = {}

    def placements(self) -> list[WorkerPlacement]:
        return [
            WorkerPlacement(
                worker_id=h.worker_id,
                host=h.hello.host,
                pid=h.hello.pid,
                node_id=h.hello.node_id,
                clock_offset_ms=round(h.conn.clock.offset_s * 1000, 6),
                clock_uncertainty_ms=round(h.conn.clock.uncertainty_s * 1000, 6),
            )
            for h in self.handles
        ]


@functools.cache
def _private_token() -> str:
    # One per process: Ray's driver side caches the token it loaded, so a second private instance
    # in the same process (a sweep of races) must get the same one.
    return secrets.token_hex(32)


def _recv_within(conn: Connection, timeout: float) -> object:
    if not conn.poll(timeout):
        raise TimeoutError(f"no answer within {timeout:.0f} s")
    return conn.recv()
