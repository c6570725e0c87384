"""Install, start and stop local Elasticsearch clusters: Rally's ``from-distribution`` pipeline.

``install`` resolves car and distribution, finds Java and creates the installation; ``start`` picks free
loopback ports, renders each node's configuration, launches all nodes at once (a multi-node cluster
only elects a master once enough of them run) and waits until every node reports a green cluster of
the expected size; ``stop`` terminates the nodes and removes the installation. A failed or interrupted
start stops whatever it launched.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType

from esbench.exceptions import LaunchError, ProvisionError, UserError
from esbench.provision import installation as inst_mod
from esbench.provision.archives import COMPLETE_MARKER
from esbench.provision.cars import resolve_car
from esbench.provision.flavors import Flavor, get_flavor, obtain
from esbench.provision.installation import Installation, NodeState
from esbench.provision.java import runtime_java
from esbench.provision.launcher import (
    cluster_health,
    is_bind_failure,
    kill_launcher,
    launch,
    node_log_tail,
    pid_alive,
    pids_with_marker,
    read_pid_file,
    terminate,
)
from esbench.provision.nodeconfig import process_marker, write_node_config
from esbench.provision.ports import free_ports
from esbench.provision.security import (
    SECURITY_DIR,
    SecurityMaterial,
    create_security_material,
    health_access,
)
from esbench.provision.settings import ProvisionSettings
from esbench.provision.users import RunAs, give, resolve_run_as

logger = logging.getLogger(__name__)

#: How often a start is retried with fresh ports when a node reports that its port was taken.
PORT_ATTEMPTS = 3
_POLL_INTERVAL = 0.25


def install(settings: ProvisionSettings, *, race_dir: Path | None = None) -> Installation:
    """Create an installation (no process is started).

    Raises:
        UserError: bad ``nodes``; NotFound: unknown car; SupplyError: distribution unavailable;
        JavaError: no suitable JDK; ProvisionError: the run-as account cannot be set up.
    """
    if settings.nodes < 1:
        raise UserError(f"--nodes must be at least 1, not {settings.nodes}.")
    car = resolve_car(settings.car, settings.car_params)
    flavor = get_flavor(settings.distribution_flavor)
    user = resolve_run_as(settings.run_as_user)
    began = time.monotonic()
    dist = obtain(settings)
    if car.security and not (dist.home / "modules" / "x-pack-security").is_dir():
        raise UserError(
            f"The car '{car.name}' secures the nodes with Elasticsearch's security module, which the "
            f"{flavor.product} distribution at {dist.home} lacks. Drop the security mixin from --car."
        )
    java = runtime_java(
        settings.runtime_jdk,
        dist.version,
        dist_home=dist.home,
        requirement=flavor.java_requirement(dist.version),
        product=flavor.product,
    )
    logger.info("Distribution %s, Java %s: ready in %.1f s", dist.home, java.major, time.monotonic() - began)
    inst_id = inst_mod.new_installation_id()
    root = inst_mod.install_root(user) / inst_id
    es_home = root / f"{flavor.executable}-{dist.version}"
    security: SecurityMaterial | None = None
    try:
        root.mkdir(parents=True)
        root.chmod(0o755)
        inst_mod.link_tree(dist.home, es_home, skip=frozenset({COMPLETE_MARKER, "logs", "data"}))
        nodes = []
        for i in range(settings.nodes):
            node = NodeState(name=f"node-{i}", dir=str(root / "nodes" / f"node-{i}"))
            for d in (node.data_dir, node.logs_dir, node.tmp_dir):
                d.mkdir(parents=True)
            nodes.append(node)
        (root / "nodes").chmod(0o755)
        for node in nodes:
            give(node.path, user)
        if car.security:
            security = create_security_material(root / SECURITY_DIR)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    installed = Installation(
        id=inst_id,
        root=str(root),
        es_home=str(es_home),
        version=dist.version,
        flavor=dist.flavor,
        java_home=str(java.path),
        run_as_user=user.name,
        cluster_name=settings.cluster_name or f"esbench-{inst_id[:8]}",
        car={
            "name": car.name,
            "names": list(car.names),
            "jvm_options": list(car.jvm_options),
            "settings": dict(car.settings),
            "security": car.security,
        },
        nodes=tuple(nodes),
        created=inst_mod.now_iso(),
        race_dir=str(race_dir) if race_dir else None,
        extra={"preserve_install": settings.preserve_install},
        state_path=str(inst_mod.state_file(inst_id)),
        distribution_flavor=flavor.name.value,
        security=security.to_dict() if security is not None else {},
    )
    inst_mod.save(installed)
    logger.info("Installed Elasticsearch %s (%s) as %s in %s", dist.version, car.name, inst_id, root)
    return installed


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM (e.g. a CI timeout) like Ctrl-C while nodes are starting, so they get stopped."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class _PortTaken(Exception):
    """A node could not bind its port: someone took it between choosing and binding."""


def _node_pids(inst: Installation, node: NodeState) -> set[int]:
    pids = set(pids_with_marker(process_marker(inst.id, node.name)))
    recorded = read_pid_file(node.pid_file) or node.pid
    if recorded and pid_alive(recorded) and recorded in pids_with_marker(process_marker(inst.id, node.name)):
        pids.add(recorded)
    return pids


def _kill_all(inst: Installation, launchers: list[subprocess.Popen[bytes]], *, timeout: float) -> None:
    for proc in launchers:
        kill_launcher(proc)
    pids: set[int] = set()
    for node in inst.nodes:
        pids |= _node_pids(inst, node)
    terminate(pids, timeout=timeout)


def _failure(inst: Installation, node: NodeState, what: str) -> LaunchError:
    return LaunchError(
        f"Elasticsearch node {node.name} of installation {inst.id} {what}. Its output:\n"
        f"{node_log_tail(node, inst.cluster_name)}"
    )


def _await_green(
    inst: Installation,
    launchers: list[subprocess.Popen[bytes]],
    *,
    timeout: float,
    clock: Callable[[], float],
) -> None:
    deadline = clock() + timeout
    expected = len(inst.nodes)
    while True:
        done = True
        for node, proc in zip(inst.nodes, launchers, strict=True):
            rc = proc.poll()
            if rc is None:
                done = False
            elif rc != 0:
                if is_bind_failure(node, inst.cluster_name):
                    raise _PortTaken(node.name)
                raise _failure(inst, node, f"failed to start (bin/elasticsearch exited with {rc})")
        if done:
            for node in inst.nodes:
                if not _node_pids(inst, node):
                    if is_bind_failure(node, inst.cluster_name):
                        raise _PortTaken(node.name)
                    raise _failure(inst, node, "died during start")
            access = health_access(SecurityMaterial.from_dict(inst.security))
            healths = [cluster_health(h, **access) for h in inst.hosts]
            if all(h is not None and h.status == "green" and h.number_of_nodes == expected for h in healths):
                return
        if clock() > deadline:
            raise _failure(
                inst,
                inst.nodes[0],
                f"did not report a green cluster of {expected} node(s) within {timeout:.0f} s "
                f"(raise the start timeout or check the machine's load)",
            )
        time.sleep(_POLL_INTERVAL)


def start(
    inst: Installation,
    *,
    timeout: float = 180.0,
    stop_timeout: float = 30.0,
    clock: Callable[[], float] = time.monotonic,
) -> Installation:
    """Start every node of ``inst`` and wait for a green cluster; returns the updated, saved state.

    Ports are chosen free (kernel-assigned) right before launch; if a node reports that its port was
    taken meanwhile, all nodes are stopped, data wiped and the start retried with fresh ports
    (:data:`PORT_ATTEMPTS` times).

    Raises:
        LaunchError: a node failed, died or the cluster was not green in time (message has log tails).
        KeyboardInterrupt: Ctrl-C or SIGTERM during start, after stopping every launched process.
    """
    if inst.status == "started" and any(_node_pids(inst, n) for n in inst.nodes):
        raise ProvisionError(
            f"Installation {inst.id} is already running at {', '.join(inst.hosts)}. Stop it first with "
            f"'esbench stop --installation-id={inst.id}'."
        )
    user = resolve_run_as(inst.run_as_user if _switching_allowed() else None)
    tried: set[int] = set()
    for attempt in range(1, PORT_ATTEMPTS + 1):
        ports = free_ports(2 * len(inst.nodes), exclude=tried)
        tried |= set(ports)
        nodes = tuple(
            replace(n, http_port=ports[2 * i], transport_port=ports[2 * i + 1], pid=None)
            for i, n in enumerate(inst.nodes)
        )
        current = inst.with_nodes(nodes, status="starting")
        _prepare_nodes(current, user)
        inst_mod.save(current)
        launchers: list[subprocess.Popen[bytes]] = []
        try:
            with _sigterm_as_interrupt():
                for node in current.nodes:
                    launchers.append(
                        launch(
                            node,
                            es_home=Path(current.es_home),
                            java_home=Path(current.java_home),
                            user=user,
                            flavor=_flavor(current),
                        )
                    )
                began = clock()
                _await_green(current, launchers, timeout=timeout, clock=clock)
            logger.info("Cluster %s green after %.1f s", current.cluster_name, clock() - began)
        except _PortTaken as e:
            logger.warning("Node %s lost its port to another process (attempt %d); retrying", e, attempt)
            _kill_all(current, launchers, timeout=stop_timeout)
            for node in current.nodes:
                shutil.rmtree(node.data_dir, ignore_errors=True)
            continue
        except BaseException:
            _kill_all(current, launchers, timeout=stop_timeout)
            inst_mod.save(replace(current, status="failed"))
            raise
        started_nodes = tuple(
            replace(n, pid=read_pid_file(n.pid_file) or next(iter(_node_pids(current, n)), None))
            for n in current.nodes
        )
        started = current.with_nodes(started_nodes, status="started")
        inst_mod.save(started)
        return started
    raise LaunchError(
        f"Installation {inst.id}: ports kept being taken by other processes in {PORT_ATTEMPTS} attempts "
        f"(tried {sorted(tried)}). Try again, or stop whatever is grabbing ports on 127.0.0.1."
    )


def _flavor(inst: Installation) -> Flavor:
    return get_flavor(inst.distribution_flavor)


def _switching_allowed() -> bool:
    import os

    return os.geteuid() == 0


def _prepare_nodes(inst: Installation, user: RunAs) -> None:
    dist_config = Path(inst.es_home) / "config"
    for node in inst.nodes:
        for d in (node.data_dir, node.logs_dir, node.tmp_dir):
            d.mkdir(parents=True, exist_ok=True)
        node.pid_file.unlink(missing_ok=True)
        write_node_config(
            node,
            dist_config=dist_config,
            install_id=inst.id,
            cluster_name=inst.cluster_name,
            all_nodes=inst.nodes,
            car_jvm_options=inst.car["jvm_options"],
            car_settings=inst.car["settings"],
            flavor=_flavor(inst),
            security=SecurityMaterial.from_dict(inst.security),
        )
        give(node.path, user)


def stop(
    inst: Installation,
    *,
    preserve_install: bool = False,
    timeout: float = 30.0,
    logs_to: Path | None = None,
) -> list[int]:
    """Stop every node of ``inst`` (SIGTERM, SIGKILL after ``timeout`` s) and delete the installation
    unless ``preserve_install``; node logs are copied to ``logs_to/<node>/`` first when given.

    Returns the pids that were stopped.
    """
    pids: set[int] = set()
    for node in inst.nodes:
        pids |= _node_pids(inst, node)
    terminate(pids, timeout=timeout)
    if logs_to is not None:
        copy_logs(inst, logs_to)
    if preserve_install:
        inst_mod.save(replace(inst, status="stopped"))
    else:
        inst_mod.forget(inst, delete_files=True)
    return sorted(pids)


def copy_logs(inst: Installation, dest: Path) -> None:
    """Copy each node's ``logs/`` and ``console.log`` to ``dest/<node name>/``."""
    for node in inst.nodes:
        target = dest / node.name
        if node.logs_dir.is_dir():
            shutil.copytree(node.logs_dir, target, dirs_exist_ok=True)
        if node.console_log.is_file():
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(node.console_log, target / "console.log")


def running_installations() -> list[Installation]:
    """Installations whose nodes are running, oldest first."""
    return [
        i
        for i in inst_mod.list_installations()
        if i.status in ("started", "starting") and any(_node_pids(i, n) for n in i.nodes)
    ]


@dataclass(kw_only=True)
class ProvisionedCluster:
    """A running cluster started by :func:`provision_cluster`.

    Attributes:
        hosts: ``"127.0.0.1:PORT"`` per node (HTTP).
        installation_id: the id for ``esbench stop --installation-id``.
        version: the Elasticsearch version actually running.
        car: the car name (``"defaults+4gheap"``).
        distribution_flavor: ``"elasticsearch"`` or ``"opensearch"``.
        security: the CA, user and password file of a secured cluster (car ``x-pack-security``),
            None otherwise; its hosts then speak ``https`` only.
    """

    hosts: tuple[str, ...]
    installation_id: str
    version: str
    car: str
    installation: Installation = field(repr=False)
    distribution_flavor: str = "elasticsearch"
    security: SecurityMaterial | None = None
    race_dir: Path | None = None
    stop_timeout: float = 30.0
    _stopped: bool = field(default=False, repr=False)

    def stop(self, *, preserve_install: bool = False) -> None:
        """Stop the nodes, copy their logs to ``<race_dir>/logs/`` and delete the installation unless
        ``preserve_install`` (here or in the settings it was provisioned with). Idempotent."""
        if self._stopped:
            return
        stop(
            self.installation,
            preserve_install=preserve_install or bool(self.installation.extra.get("preserve_install")),
            timeout=self.stop_timeout,
            logs_to=self.race_dir / "logs" if self.race_dir else None,
        )
        self._stopped = True

    def __enter__(self) -> ProvisionedCluster:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop(preserve_install=False)


def provision_cluster(settings: ProvisionSettings, *, race_dir: Path | None) -> ProvisionedCluster:
    """Install and start a cluster per ``settings`` and wait for green (Rally's from-distribution).

    On any failure or Ctrl-C the launched nodes are stopped and the installation removed (kept with
    ``preserve_install``), then the error propagates.

    Raises:
        UserError, NotFound, SupplyError, JavaError, LaunchError, ProvisionError: see :func:`install` and
        :func:`start`.
    """
    installed = install(settings, race_dir=race_dir)
    try:
        started = start(installed, timeout=settings.start_timeout, stop_timeout=settings.stop_timeout)
    except BaseException:
        if race_dir is not None:
            copy_logs(installed, race_dir / "logs")
        if not settings.preserve_install:
            inst_mod.forget(installed, delete_files=True)
        raise
    return ProvisionedCluster(
        hosts=started.hosts,
        installation_id=started.id,
        version=started.version,
        car=started.car["name"],
        installation=started,
        race_dir=race_dir,
        stop_timeout=settings.stop_timeout,
        distribution_flavor=started.distribution_flavor,
        security=SecurityMaterial.from_dict(started.security),
    )
