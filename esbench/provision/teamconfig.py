"""A team car at install and start time: the installation's record of it, and a node's configuration.

``install`` resolves the team (``--team-path`` or a team repository), the car and the plugins into a
JSON-able record (:func:`team_record`) kept in the installation state. ``start`` renders each node's
configuration directory from it (:func:`write_team_node_config`): the directory is emptied first (Rally
deletes the distribution's ``config/``), then every config base of the car and of the plugins is
rendered into it (:func:`esbench.provision.teams.render_templates`). esbench then adds one file,
``jvm.options.d/esbench.options`` with the ``-Desbench.node`` process marker.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from esbench.exceptions import UserError
from esbench.provision.cars import parse_car_names
from esbench.provision.installation import CarState, NodeState
from esbench.provision.plugins import PluginDescriptor, load_plugins, parse_plugin_specs
from esbench.provision.ports import LOOPBACK
from esbench.provision.settings import ProvisionSettings
from esbench.provision.teamrepos import team_checkout
from esbench.provision.teams import (
    NodePlacement,
    check_hooks,
    load_team_car,
    provisioner_variables,
    render_templates,
)

#: The directory under a node where Rally's ``heap_dump_path`` points (Rally: ``<node root>/heapdump``).
HEAP_DUMP_DIR = "heapdump"


def uses_team(settings: ProvisionSettings) -> bool:
    """True when a team option (``--team-path``, ``--team-repository``, ``--team-revision``) was given."""
    return bool(settings.team_path or settings.team_repository or settings.team_revision)


def resolve_team(settings: ProvisionSettings) -> tuple[Path, str]:
    """``(team directory, revision)``: ``--team-path`` as is (revision ``""``), else a team repository
    checked out for ``--team-revision`` or the distribution version (:mod:`esbench.provision.teamrepos`).

    Raises:
        UserError: ``--team-path`` together with ``--team-repository`` or ``--team-revision``.
        NotFound, DataError: see :func:`esbench.provision.teamrepos.team_checkout`.
    """
    if settings.team_path is not None:
        if settings.team_repository or settings.team_revision:
            raise UserError(
                "--team-path is used as it is; --team-repository and --team-revision pick a team "
                "repository instead. Give one of the two."
            )
        # Absolute: the installation is started later, from any working directory.
        return settings.team_path.resolve(), ""
    return team_checkout(
        settings.team_repository,
        revision=settings.team_revision,
        distribution_version=settings.distribution_version,
        offline=settings.offline,
    )


def team_record(settings: ProvisionSettings) -> CarState:
    """The installation's record of the team car: ``name``, ``names``, ``team`` (path, revision, config
    paths, variables) and the empty ``jvm_options``/``settings`` of esbench's own car format.

    Raises:
        NotFound, ConfigError, DataError: see :func:`esbench.provision.teams.load_team_car`,
            :func:`esbench.provision.teams.check_hooks` and :func:`resolve_team`.
    """
    team, revision = resolve_team(settings)
    car = load_team_car(team, parse_car_names(settings.car), settings.car_params)
    check_hooks(car)
    _trial_render(car.config_paths, car.variables)
    return {
        "name": car.name,
        "names": list(car.names),
        "jvm_options": [],
        "settings": {},
        "security": False,
        "team": {
            "path": str(team),
            "revision": revision,
            "config_paths": [str(p) for p in car.config_paths],
            "variables": dict(car.variables),
        },
    }


def _trial_render(config_paths: Sequence[Path], car_variables: Mapping[str, object]) -> None:
    # Render once for a stand-in node, so that a broken template fails the install, not the start.
    with tempfile.TemporaryDirectory(prefix="esbench-team-") as tmp:
        root = Path(tmp)
        place = NodePlacement(
            cluster_name="trial",
            node_name="node-0",
            node_root=root,
            data_path=root / "data",
            log_path=root / "logs",
            heap_dump_path=root / HEAP_DUMP_DIR,
            node_ip=LOOPBACK,
            http_port=9200,
            transport_port=9300,
            seed_hosts=[f"{LOOPBACK}:9300"],
            node_names=["node-0"],
        )
        render_templates(config_paths, root, provisioner_variables(car_variables, place))


def plugin_descriptors(settings: ProvisionSettings, team: Path | None) -> tuple[PluginDescriptor, ...]:
    """The plugins of ``--elasticsearch-plugins``; without a team, only plain names (no configurations)."""
    if not settings.elasticsearch_plugins.strip():
        return ()
    if team is None:
        out = []
        for name, configs in parse_plugin_specs(settings.elasticsearch_plugins):
            if configs:
                raise UserError(
                    f"--elasticsearch-plugins: '{name}:{'+'.join(configs)}' names plugin configurations, "
                    "which "
                    "come from a team: add --team-path (a rally-teams checkout) or --team-repository."
                )
            out.append(PluginDescriptor(name=name, variables=dict(settings.plugin_params)))
        return tuple(out)
    return load_plugins(team, settings.elasticsearch_plugins, settings.plugin_params)


def plugin_record(plugin: PluginDescriptor) -> dict[str, object]:
    """A plugin as the installation state keeps it."""
    return {
        "name": plugin.name,
        "mandatory": plugin.mandatory,
        "config_paths": [str(p) for p in plugin.config_paths],
        "variables": dict(plugin.variables),
    }


def write_team_node_config(
    node: NodeState,
    *,
    cluster_name: str,
    all_nodes: Sequence[NodeState],
    team: Mapping[str, object],
    plugins: Sequence[Mapping[str, object]],
    marker_line: str,
    dist_config: Path | None = None,
) -> None:
    """(Re)write ``node.config_dir`` from the team car and plugin records (module doc).

    ``marker_line`` is the ``-Desbench.node=...`` JVM option written to ``jvm.options.d``. A plugin's
    own configuration directory, which ``elasticsearch-plugin install`` put into the installation's
    ``dist_config/<plugin>``, is copied in too (Rally installs plugins into the rendered directory).

    Raises:
        ConfigError: a template fails to render (names the file).
    """
    shutil.rmtree(node.config_dir, ignore_errors=True)
    heap_dumps = node.path / HEAP_DUMP_DIR
    heap_dumps.mkdir(parents=True, exist_ok=True)
    place = NodePlacement(
        cluster_name=cluster_name,
        node_name=node.name,
        node_root=node.path,
        data_path=node.data_dir,
        log_path=node.logs_dir,
        heap_dump_path=heap_dumps,
        node_ip=LOOPBACK,
        http_port=int(node.http_port or 0),
        transport_port=int(node.transport_port or 0),
        seed_hosts=[f"{LOOPBACK}:{n.transport_port}" for n in all_nodes],
        node_names=[n.name for n in all_nodes],
    )
    plugin_vars: dict[str, object] = {}
    for p in plugins:
        plugin_vars.update(_mapping(p["variables"]))
    variables = provisioner_variables(
        _mapping(team["variables"]),
        place,
        plugin_variables=plugin_vars,
        mandatory_plugins=[str(p["name"]) for p in plugins if p["mandatory"]],
    )
    render_templates(_paths(team["config_paths"]), node.path, variables)
    for p in plugins:
        render_templates(_paths(p["config_paths"]), node.path, variables)
        own = dist_config / str(p["name"]) if dist_config is not None else None
        if own is not None and own.is_dir():
            shutil.copytree(own, node.config_dir / own.name, dirs_exist_ok=True)
    options = node.config_dir / "jvm.options.d"
    options.mkdir(parents=True, exist_ok=True)
    (options / "esbench.options").write_text(marker_line + "\n", encoding="utf-8")


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


def _paths(value: object) -> list[Path]:
    return [Path(str(v)) for v in value] if isinstance(value, list) else []
