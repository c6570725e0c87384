"""Installations: a private copy of a distribution plus per-node config/data/logs, tied by an id.

Layout of an installation directory (``<install root>/<id>/``)::

    elasticsearch-<version>/      the distribution (hard links into the cache; copied across devices)
    nodes/<node name>/            owned by the account that runs the node; the node's working directory
        config/                   ES_PATH_CONF: elasticsearch.yml, jvm.options, jvm.options.d/, log4j2
        data/  logs/  tmp/        path.data, path.logs, ES_TMPDIR
        telemetry/                files of telemetry devices (gc.log, jit.log, profile.jfr, heap dumps)
        es.pid  console.log       pid file written by the node; stdout/stderr of bin/elasticsearch

The state (:class:`Installation`, JSON) lives in ``$ESBENCH_HOME/installs/<id>.json`` so ``esbench
start/stop`` find it. The install root is ``$ESBENCH_HOME/installs`` unless the account running the
nodes cannot reach it (root's home is usually mode 700): then ``$ESBENCH_INSTALL_ROOT``, default
``/var/tmp/esbench-installs``.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import NotRequired, TypedDict

from esbench.exceptions import NotFound, ProvisionError
from esbench.home import home_subdir
from esbench.provision.users import RunAs, can_traverse

DEFAULT_SHARED_INSTALL_ROOT = Path("/var/tmp/esbench-installs")


@dataclass(frozen=True, kw_only=True)
class NodeState:
    """One node of an installation; ports and pid are filled in by ``start``. ``jvm_options`` are
    the node's own JVM options beyond the car's (telemetry devices', fixed at install)."""

    name: str
    dir: str
    http_port: int | None = None
    transport_port: int | None = None
    pid: int | None = None
    jvm_options: tuple[str, ...] = ()

    @property
    def path(self) -> Path:
        return Path(self.dir)

    @property
    def config_dir(self) -> Path:
        return self.path / "config"

    @property
    def data_dir(self) -> Path:
        return self.path / "data"

    @property
    def logs_dir(self) -> Path:
        return self.path / "logs"

    @property
    def tmp_dir(self) -> Path:
        return self.path / "tmp"

    @property
    def telemetry_dir(self) -> Path:
        return self.path / "telemetry"

    @property
    def pid_file(self) -> Path:
        return self.path / "es.pid"

    @property
    def console_log(self) -> Path:
        return self.path / "console.log"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.http_port}"


class CarState(TypedDict):
    """The resolved car as an installation keeps it (:class:`esbench.provision.cars.Car`, JSON form).

    ``settings`` are the rendered ``elasticsearch.yml`` settings (dotted keys, YAML values). A team car
    (:mod:`esbench.provision.teamconfig`) has ``team`` (its path, revision, config paths and variables)
    and empty ``jvm_options``/``settings``; ``plugins`` are the installed plugins' records;
    ``license_type`` is the built-in car's (``xpack.license.self_generated.type``); ``data_paths``
    the built-in car's ``data_paths`` variable (absolute paths: the nodes' ``path.data``).
    """

    name: str
    names: list[str]
    jvm_options: list[str]
    settings: dict[str, object]
    security: bool
    team: NotRequired[dict[str, object]]
    plugins: NotRequired[list[dict[str, object]]]
    license_type: NotRequired[str]
    data_paths: NotRequired[list[str]]


@dataclass(frozen=True, kw_only=True)
class Installation:
    """The persisted state of one installation (``$ESBENCH_HOME/installs/<id>.json``).

    ``status`` is ``installed`` → ``started`` → ``stopped``; ``car`` holds the resolved car
    (name, jvm_options, settings) so ``start`` needs no car files. ``distribution_flavor`` is
    ``elasticsearch`` or ``opensearch`` (:mod:`esbench.provision.flavors`); ``security`` holds the
    paths of a secured installation's certificates and user (:mod:`esbench.provision.security`,
    never a password), empty otherwise.
    """

    id: str
    root: str
    es_home: str
    version: str
    flavor: str
    java_home: str
    run_as_user: str
    cluster_name: str
    car: CarState
    nodes: tuple[NodeState, ...]
    created: str
    status: str = "installed"
    race_dir: str | None = None
    #: Where this state is saved; fixed at install so later calls do not depend on $ESBENCH_HOME.
    state_path: str = ""
    extra: dict[str, object] = field(default_factory=dict)
    distribution_flavor: str = "elasticsearch"
    security: dict[str, str] = field(default_factory=dict)

    @property
    def hosts(self) -> tuple[str, ...]:
        return tuple(n.host for n in self.nodes)

    def with_nodes(self, nodes: tuple[NodeState, ...], *, status: str) -> Installation:
        return replace(self, nodes=nodes, status=status)


def state_dir() -> Path:
    return home_subdir("installs")


def state_file(installation_id: str) -> Path:
    return state_dir() / f"{installation_id}.json"


def new_installation_id() -> str:
    """A fresh id (uuid4 hex, like Rally's installation ids)."""
    return uuid.uuid4().hex


def install_root(user: RunAs) -> Path:
    """Where installation directories go for ``user`` (see the module docstring).

    Raises:
        ProvisionError: the shared root exists but belongs to someone else (it could be a trap).
    """
    home_root = state_dir()
    if can_traverse(home_root, user):
        return home_root
    shared = Path(os.environ.get("ESBENCH_INSTALL_ROOT") or DEFAULT_SHARED_INSTALL_ROOT)
    shared.mkdir(parents=True, exist_ok=True, mode=0o755)
    st = shared.lstat()
    if shared.is_symlink() or st.st_uid != os.geteuid():
        raise ProvisionError(
            f"The install root {shared} is not a directory owned by this user; remove it or set "
            f"ESBENCH_INSTALL_ROOT to a directory the account '{user.name}' can reach."
        )
    shared.chmod(0o755)
    if not can_traverse(shared, user):
        raise ProvisionError(
            f"The account '{user.name}' cannot reach {shared} (a parent directory lacks search permission). "
            f"Set ESBENCH_INSTALL_ROOT to a directory it can reach."
        )
    return shared


def save(inst: Installation) -> None:
    """Write the state atomically to ``inst.state_path`` (default: under the current esbench home)."""
    path = Path(inst.state_path) if inst.state_path else state_file(inst.id)
    tmp = path.with_suffix(f".tmp-{os.getpid()}")
    data = asdict(inst)
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def load(installation_id: str) -> Installation:
    """Load the state of ``installation_id`` (also accepts a unique prefix).

    Raises:
        NotFound: no or several matching installations.
    """
    path = state_file(installation_id)
    if not path.is_file():
        matches = [p for p in state_dir().glob(f"{installation_id}*.json")] if installation_id else []
        if len(matches) != 1:
            known = ", ".join(i.id for i in list_installations()) or "none"
            what = "matches several" if matches else "is unknown"
            raise NotFound(
                f"Installation id '{installation_id}' {what}. Known installations: {known}. "
                f"Create one with 'esbench install'."
            )
        path = matches[0]
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["nodes"] = tuple(
        NodeState(**{**n, "jvm_options": tuple(n.get("jvm_options", ()))}) for n in raw["nodes"]
    )
    raw["state_path"] = str(path)
    return Installation(**raw)


def list_installations() -> list[Installation]:
    """All installations with state in this esbench home, oldest first."""
    out = []
    for p in state_dir().glob("*.json"):
        try:
            out.append(load(p.stem))
        except (ValueError, TypeError, KeyError, NotFound):
            continue
    return sorted(out, key=lambda i: i.created)


def forget(inst: Installation, *, delete_files: bool) -> None:
    """Remove the state file and, with ``delete_files``, the installation directory."""
    if delete_files:
        shutil.rmtree(inst.root, ignore_errors=True)
    (Path(inst.state_path) if inst.state_path else state_file(inst.id)).unlink(missing_ok=True)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def link_tree(src: Path, dst: Path, *, skip: frozenset[str] = frozenset()) -> None:
    """Recreate ``src`` at ``dst`` with hard links (copies when linking fails, e.g. across devices).

    Hard links make an installation nearly free; it is safe because Elasticsearch never writes into its
    home when ``ES_PATH_CONF``, ``path.data``, ``path.logs`` and ``ES_TMPDIR`` point elsewhere.
    """
    dst.mkdir(parents=True, exist_ok=True)
    dst.chmod(0o755)  # independent of the umask: the node's account must read the distribution
    for entry in os.scandir(src):
        if entry.name in skip:
            continue
        target = dst / entry.name
        if entry.is_symlink():
            target.symlink_to(os.readlink(entry.path))
        elif entry.is_dir():
            link_tree(Path(entry.path), target)
        else:
            try:
                os.link(entry.path, target)
            except OSError:
                shutil.copy2(entry.path, target)
