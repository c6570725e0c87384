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
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

from esbench.exceptions import LaunchError, ProvisionError, UserError
from esbench.home import esbench_home
from esbench.provision import installation as inst_mod
from esbench.provision import teamconfig
from esbench.provision.archives import COMPLETE_MARKER
from esbench.provision.cars import Car, resolve_car
from esbench.provision.flavors import Flavor, get_flavor, obtain
from esbench.provision.installation import CarState, Installation, NodeState
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
from esbench.provision.nodeconfig import DEFAULT_LICENSE_TYPE, process_marker, write_node_config
from esbench.provision.plugins import PluginDescriptor, install_plugin
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
    flavor = get_flavor(settings.distribution_flavor)
    uses_team = teamconfig.uses_team(settings)
    # Plugins install into OpenSearch too (bin/opensearch-plugin, OSB's --opensearch-plugins);
    # the teams' cars and plugin configurations are Elasticsearch's.
    if uses_team and flavor.name.value != "elasticsearch":
        raise UserError(
            "--team-path/--team-repository/--team-revision provision Elasticsearch only, not "
            f"{flavor.product}; drop them or use --distribution-flavor=elasticsearch."
        )
    team_car = teamconfig.team_record(settings) if uses_team else None
    car = resolve_car(settings.car, settings.car_params) if team_car is None else None
    if car is not None and car.data_paths and settings.nodes > 1:
        # Every node would lock the same directory: the second one fails to start.
        raise UserError(
            f"--car-params data_paths {list(car.data_paths)} gives every node the same data directory, "
            f"so {settings.nodes} nodes on this machine cannot share it. Drop data_paths, or provision "
            "one node (--nodes=1)."
        )
    team_dir = Path(str(team_car["team"]["path"])) if team_car is not None and "team" in team_car else None
    plugins = teamconfig.plugin_descriptors(settings, team_dir)
    user = resolve_run_as(settings.run_as_user)
    inst_id = settings.installation_id or inst_mod.new_installation_id()
    root = inst_mod.install_root(user) / inst_id
    if settings.installation_id and (root.exists() or inst_mod.state_file(inst_id).exists()):
        raise UserError(
            f"--installation-id {inst_id}: an installation with this id exists already ({root}). Give a new "
            "id, or stop and delete that one first (esbench stop --installation-id=...)."
        )
    began = time.monotonic()
    dist = obtain(settings)
    if car is not None and car.security and not (dist.home / "modules" / "x-pack-security").is_dir():
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
    es_home = root / f"{flavor.executable}-{dist.version}"
    security: SecurityMaterial | None = None
    try:
        root.mkdir(parents=True)
        root.chmod(0o755)
        inst_mod.link_tree(dist.home, es_home, skip=frozenset({COMPLETE_MARKER, "logs", "data"}))
        nodes = []
        for i in range(settings.nodes):
            node = NodeState(name=_node_name(settings, i), dir=str(root / "nodes" / f"node-{i}"))
            for d in (node.data_dir, node.logs_dir, node.tmp_dir, node.telemetry_dir):
                d.mkdir(parents=True)
            if settings.node_java_options is not None:
                node = replace(
                    node, jvm_options=tuple(settings.node_java_options(java.major, node.telemetry_dir))
                )
            nodes.append(node)
        (root / "nodes").chmod(0o755)
        for node in nodes:
            give(node.path, user)
        if car is not None and car.security:
            security = create_security_material(root / SECURITY_DIR)
        for plugin in plugins:
            install_plugin(
                plugin,
                es_home=es_home,
                version=dist.version,
                env={
                    "PATH": os.environ.get("PATH", os.defpath),
                    flavor.java_home_env: str(java.path),
                    flavor.path_conf_env: str(es_home / "config"),
                    "HOME": str(root),
                },
                offline=settings.offline,
                executable=flavor.executable,
            )
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
        car=_car_record(car, team_car, plugins),
        nodes=tuple(nodes),
        created=inst_mod.now_iso(),
        race_dir=str(race_dir) if race_dir else None,
        extra={"preserve_install": settings.preserve_install},
        state_path=str(inst_mod.state_file(inst_id)),
        distribution_flavor=flavor.name.value,
        security=security.to_dict() if security is not None else {},
    )
    inst_mod.save(installed)
    logger.info(
        "Installed Elasticsearch %s (%s) as %s in %s", dist.version, installed.car["name"], inst_id, root
    )
    return installed


def _car_record(
    car: Car | None, team_car: CarState | None, plugins: tuple[PluginDescriptor, ...]
) -> CarState:
    """The installation's ``car``: esbench's own car, or the team car's record; with the plugins."""
    record: CarState
    if car is not None:
        settings: dict[str, object] = dict(car.settings)
        mandatory = [p.name for p in plugins if p.mandatory]
        if mandatory:
            # Rally's safety net: the node refuses to start when an installed plugin is missing.
            settings["plugin.mandatory"] = mandatory
        record = {
            "name": car.name,
            "names": list(car.names),
            "jvm_options": list(car.jvm_options),
            "settings": settings,
            "security": car.security,
            "license_type": str(car.variables.get("license_type", DEFAULT_LICENSE_TYPE)),
        }
        if car.data_paths:
            record["data_paths"] = list(car.data_paths)
    elif team_car is not None:
        record = team_car
    else:
        raise ValueError("either a car or a team car")
    record["plugins"] = [teamconfig.plugin_record(p) for p in plugins]
    return record


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
        for d in (node.data_dir, node.logs_dir, node.tmp_dir, node.telemetry_dir):
            d.mkdir(parents=True, exist_ok=True)
        node.pid_file.unlink(missing_ok=True)
        write_node_config(
            node,
            dist_config=dist_config,
            install_id=inst.id,
            cluster_name=inst.cluster_name,
            all_nodes=inst.nodes,
            team=inst.car.get("team"),
            plugins=inst.car.get("plugins", []),
            license_type=inst.car.get("license_type", DEFAULT_LICENSE_TYPE),
            car_jvm_options=[*inst.car["jvm_options"], *node.jvm_options],
            car_settings=inst.car["settings"],
            data_paths=inst.car.get("data_paths", ()),
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
    unless ``preserve_install``; node logs are copied to ``logs_to/<node>/`` first when given, and
    the nodes' telemetry files moved to ``logs_to/../telemetry/<node>/``.

    Returns the pids that were stopped.
    """
    pids: set[int] = set()
    for node in inst.nodes:
        pids |= _node_pids(inst, node)
    terminate(pids, timeout=timeout)
    if logs_to is not None:
        copy_logs(inst, logs_to)
        keep_telemetry_files(inst, logs_to.parent / "telemetry")
    if preserve_install:
        inst_mod.save(replace(inst, status="stopped"))
    else:
        _delete_car_data_paths(inst)
        inst_mod.forget(inst, delete_files=True)
    return sorted(pids)


def _delete_car_data_paths(inst: Installation) -> None:
    """Delete the car's ``data_paths`` with the installation, as Rally does
    (``esrally/mechanic/provisioner.py`` ``cleanup``): only the paths the ``data_paths`` variable
    named (absolute, :attr:`~esbench.provision.cars.Car.data_paths`), and never the file system's
    root, the esbench home, the home or current directory or a directory holding one of them, which
    a mistyped parameter could name."""
    guarded = [Path("/"), Path.home().resolve(), esbench_home().resolve(), Path.cwd().resolve()]
    for path in (Path(str(p)).resolve() for p in inst.car.get("data_paths", ())):
        if not path.is_absolute() or any(g == path or g.is_relative_to(path) for g in guarded):
            logger.warning(
                "Not deleting the car's data path %s: it holds the root, home or esbench home", path
            )
            continue
        shutil.rmtree(path, ignore_errors=True)


def copy_logs(inst: Installation, dest: Path) -> None:
    """Copy each node's ``logs/`` and ``console.log`` to ``dest/<node name>/``."""
    for node in inst.nodes:
        target = dest / node.name
        if node.logs_dir.is_dir():
            shutil.copytree(node.logs_dir, target, dirs_exist_ok=True)
        if node.console_log.is_file():
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(node.console_log, target / "console.log")


def keep_telemetry_files(inst: Installation, dest: Path) -> None:
    """Move the files of each node's telemetry directory (written by the node's JVM for the ``jit``,
    ``gc``, ``jfr`` devices) to ``dest/<node name>/``; moved, not copied: a flight recording or JIT
    log can be large, and the installation is deleted next."""
    for node in inst.nodes:
        if not node.telemetry_dir.is_dir():
            continue
        for entry in sorted(node.telemetry_dir.iterdir()):
            target = dest / node.name
            target.mkdir(parents=True, exist_ok=True)
            shutil.move(entry, target / entry.name)


def running_installations() -> list[Installation]:
    """Installations whose nodes are running, oldest first."""
    return [
        i
        for i in inst_mod.list_installations()
        if i.status in ("started", "starting") and any(_node_pids(i, n) for n in i.nodes)
    ]


def _node_name(settings: ProvisionSettings, i: int) -> str:
    """``node.name`` of the ``i``-th node (Rally's ``--node-name`` names a single node)."""
    if settings.node_name is None:
        return f"node-{i}"
    return settings.node_name if settings.nodes == 1 else f"{settings.node_name}-{i}"
