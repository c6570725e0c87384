"""Render a node's configuration directory (``ES_PATH_CONF``) from the distribution and the car."""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from esbench.provision.flavors import ELASTICSEARCH, Flavor
from esbench.provision.installation import NodeState
from esbench.provision.ports import LOOPBACK
from esbench.provision.security import SecurityMaterial, install_node_files, node_security_settings
from esbench.provision.teamconfig import write_team_node_config

#: Settings every esbench node with the security module starts from; the car may override them.
BASE_SETTINGS: Mapping[str, object] = {"xpack.security.enabled": False}
#: The setting that switches off OpenSearch's security plugin where the bundle has it.
OPENSEARCH_SECURITY_SWITCH = "plugins.security.disabled"
#: The license type of a car that names none (Rally's vanilla template: ``license_type|default('trial')``).
DEFAULT_LICENSE_TYPE = "trial"


def base_settings(es_home: Path, *, license_type: str = DEFAULT_LICENSE_TYPE) -> dict[str, object]:
    """The x-pack switches of Rally's vanilla ``elasticsearch.yml`` (rally-teams
    ``cars/v1/vanilla/templates/config/elasticsearch.yml``) for the modules the distribution has: the
    self-generated license of type ``license_type`` (the car's variable) with ML and watcher off
    where ``x-pack-core`` exists, :data:`BASE_SETTINGS` where ``x-pack-security`` exists; none for
    OSS-only distributions (an unknown ``xpack.*`` setting stops such a node). OpenSearch's full
    bundle (``--distribution-repository=release``) carries the security plugin, which will not start
    without the certificates its demo installer writes: it is switched off
    (``plugins.security.disabled``, as OSB 2.4.0's 1.0 ``vanilla`` template has it), as the
    x-pack security module is."""
    out: dict[str, object] = {}
    if (es_home / "plugins" / "opensearch-security").is_dir():
        out[OPENSEARCH_SECURITY_SWITCH] = True
    if (es_home / "modules" / "x-pack-core").is_dir():
        out.update(
            {
                "xpack.license.self_generated.type": license_type,
                "xpack.ml.enabled": False,
                "xpack.watcher.enabled": False,
            }
        )
    if (es_home / "modules" / "x-pack-security").is_dir():
        out.update(BASE_SETTINGS)
    return out


#: JVM options file esbench writes into ``jvm.options.d`` (read after ``jvm.options``).
OPTIONS_FILE = "esbench.options"

# "-XX:+UseG1GC", optionally with a JDK-version prefix like "14-:" (Elasticsearch jvm.options syntax).
_GC_RE = re.compile(r"^\s*(\d+(-\d*)?:)?-XX:\+Use\w*GC\s*$")
# "file=logs/gc.log", "-XX:ErrorFile=logs/hs_err_pid%p.log", "-XX:HeapDumpPath=data" in the stock file.
_REL_LOGS_RE = re.compile(r"([=:])logs/")
_REL_DATA_RE = re.compile(r"(HeapDumpPath=)data\b")


def node_settings(
    node: NodeState,
    *,
    cluster_name: str,
    all_nodes: Sequence[NodeState],
    initial_masters_setting: str = ELASTICSEARCH.initial_masters_setting,
) -> dict[str, object]:
    """Settings identifying ``node`` in its cluster: names, loopback ports, paths, discovery
    (``initial_masters_setting`` is the flavor's name for the bootstrap masters)."""
    settings: dict[str, object] = {
        "cluster.name": cluster_name,
        "node.name": node.name,
        "network.host": LOOPBACK,
        "http.port": node.http_port,
        "transport.port": node.transport_port,
        "path.data": str(node.data_dir),
        "path.logs": str(node.logs_dir),
    }
    if len(all_nodes) == 1:
        settings["discovery.type"] = "single-node"
    else:
        settings["discovery.seed_hosts"] = [f"{LOOPBACK}:{n.transport_port}" for n in all_nodes]
        settings[initial_masters_setting] = [n.name for n in all_nodes]
    return settings


def render_elasticsearch_yml(
    car_settings: Mapping[str, object],
    identity: Mapping[str, object],
    *,
    base: Mapping[str, object] = BASE_SETTINGS,
) -> str:
    """``elasticsearch.yml`` text: ``base`` settings, then the car's, then the node identity."""
    merged: dict[str, object] = {**base, **car_settings, **identity}
    return "# Written by esbench; edits are overwritten on the next start.\n" + yaml.safe_dump(
        merged, default_flow_style=False, sort_keys=True
    )


def adapt_jvm_options(
    dist_jvm_options: str, car_options: Sequence[str], *, logs_dir: Path, data_dir: Path
) -> str:
    """The distribution's ``jvm.options`` adapted to a node directory.

    * Relative ``logs/`` and ``data`` paths (GC log, error file, heap dumps) are made absolute: the
      launcher runs in the shared, read-only Elasticsearch home, not in the node directory.
    * The GC selection is commented out when the car picks a GC (two ``-XX:+Use...GC`` flags make the
      JVM refuse to start).
    """
    car_picks_gc = any(_GC_RE.match(o) for o in car_options)
    lines = []
    for line in dist_jvm_options.splitlines():
        if car_picks_gc and _GC_RE.match(line):
            lines.append(f"# disabled by esbench (the car selects a GC): {line}")
            continue
        if not line.lstrip().startswith("#"):
            line = _REL_LOGS_RE.sub(lambda m: f"{m.group(1)}{logs_dir}/", line)
            line = _REL_DATA_RE.sub(lambda m: f"{m.group(1)}{data_dir}", line)
        lines.append(line)
    return "\n".join(lines) + "\n"


def write_node_config(
    node: NodeState,
    *,
    dist_config: Path,
    install_id: str,
    cluster_name: str,
    all_nodes: Sequence[NodeState],
    car_jvm_options: Sequence[str],
    car_settings: Mapping[str, object],
    data_paths: Sequence[str] = (),
    flavor: Flavor = ELASTICSEARCH,
    security: SecurityMaterial | None = None,
    team: Mapping[str, object] | None = None,
    plugins: Sequence[Mapping[str, object]] = (),
    license_type: str = DEFAULT_LICENSE_TYPE,
) -> None:
    """(Re)write ``node.config_dir`` from the distribution's ``config/`` plus the car and identity.

    The settings file is the ``flavor``'s (``elasticsearch.yml`` or ``opensearch.yml``): base
    settings, then with ``security`` the TLS/auth settings of :mod:`esbench.provision.security`
    (whose certificates and users are copied in), then the car's, then the node identity, whose
    ``path.data`` is ``data_paths`` when the car names them (Rally's ``data_paths`` variable).

    The marker ``-Desbench.node=<install id>/<node name>`` lets esbench find the node's JVM among all
    processes (``/proc/*/cmdline``) even before its pid file exists.

    With ``team`` (a team car's record, :mod:`esbench.provision.teamconfig`) the directory is rendered
    from the team's templates instead, as Rally writes it; ``plugins`` are the installed plugins' records.
    ``license_type`` is the car's (:func:`base_settings`).
    """
    if team is not None:
        write_team_node_config(
            node,
            cluster_name=cluster_name,
            all_nodes=all_nodes,
            team=team,
            plugins=plugins,
            marker_line=f"-Desbench.node={process_marker(install_id, node.name)}",
            dist_config=dist_config,
        )
        return
    if not node.config_dir.exists():
        shutil.copytree(dist_config, node.config_dir)
    jvm = (
        (dist_config / "jvm.options").read_text(encoding="utf-8")
        if (dist_config / "jvm.options").exists()
        else ""
    )
    (node.config_dir / "jvm.options").write_text(
        adapt_jvm_options(jvm, car_jvm_options, logs_dir=node.logs_dir, data_dir=node.data_dir),
        encoding="utf-8",
    )
    options_dir = node.config_dir / "jvm.options.d"
    options_dir.mkdir(exist_ok=True)
    (options_dir / OPTIONS_FILE).write_text(
        "\n".join([*car_jvm_options, f"-Desbench.node={process_marker(install_id, node.name)}"]) + "\n",
        encoding="utf-8",
    )
    identity = node_settings(
        node,
        cluster_name=cluster_name,
        all_nodes=all_nodes,
        initial_masters_setting=flavor.initial_masters_setting,
    )
    if data_paths:
        # Rally's data_paths car variable: the node's path.data instead of its own directory.
        identity["path.data"] = data_paths[0] if len(data_paths) == 1 else list(data_paths)
    base = base_settings(dist_config.parent, license_type=license_type)
    if security is not None:
        install_node_files(security, node.config_dir)
        base.update(node_security_settings())
    (node.config_dir / flavor.config_file).write_text(
        render_elasticsearch_yml(car_settings, identity, base=base),
        encoding="utf-8",
    )


def process_marker(install_id: str, node_name: str) -> str:
    """The value of ``-Desbench.node`` for a node."""
    return f"{install_id}/{node_name}"
