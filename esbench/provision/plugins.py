"""Elasticsearch plugins: ``--elasticsearch-plugins`` and ``--plugin-params``, as Rally has them.

``--elasticsearch-plugins=analysis-icu,transport-nio:transport+http`` names plugins, each optionally
with configurations (``+``-separated). A plugin is one of:

* a *configured* plugin of the team: ``plugins/v1/<name with _>/<config>.ini`` whose ``[config] base``
  names template directories rendered into the node's configuration like a car's, and whose
  ``[variables]`` (overridden by ``--plugin-params``) the templates see;
* a *core* plugin listed in the team's ``plugins/v1/core-plugins.txt``;
* any other name: a community plugin that needs a download URL.

Rules from Rally 2.13 ``esrally/mechanic/team.py`` (``PluginLoader.load_plugin``, ``load_plugins``,
``PluginDescriptor.moved_to_module``) and ``esrally/mechanic/provisioner.py`` (``PluginInstaller``:
``bin/elasticsearch-plugin install --batch <name or URL>``; exit 64 is an unknown plugin, 74 an I/O
error). The URL of a plugin comes, as Rally's ``plugin.<name>.release.url`` in rally.ini, from
``[distributions] plugin.<name>.release.url`` in esbench.ini (``{{VERSION}}`` is replaced), e.g.
``file:///srv/plugins/analysis-icu-{{VERSION}}.zip``; without one ``elasticsearch-plugin`` downloads
core plugins from Elastic's server (refused with ``--offline``). Maven Central carries no Elasticsearch
plugin zips (``org.elasticsearch.plugin:analysis-icu:8.8.2:zip`` does not exist), so Maven is no source.
"""

from __future__ import annotations

import configparser
import logging
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from esbench.exceptions import ConfigError, NotFound, SupplyError, UserError
from esbench.home import esbench_home
from esbench.provision.teams import member_dir, read_ini

logger = logging.getLogger(__name__)

#: Plugins that became modules of Elasticsearch: not added to ``plugin.mandatory`` (Rally's
#: ``moved_to_module``) unless the team lists them as core plugins.
MOVED_TO_MODULE = frozenset({"repository-s3", "repository-gcs", "repository-azure"})
#: Seconds ``elasticsearch-plugin install`` may take.
INSTALL_TIMEOUT_S = 600.0


@dataclass(frozen=True, kw_only=True)
class PluginDescriptor:
    """One plugin of ``--elasticsearch-plugins``.

    Attributes:
        name: the plugin's name (``analysis-icu``).
        core: listed in the team's ``core-plugins.txt``.
        configs: the configurations asked for (``("transport", "http")``), empty for none.
        config_paths: template directories to render into the node's configuration.
        variables: the configurations' variables, then ``--plugin-params``.
    """

    name: str
    core: bool = False
    configs: tuple[str, ...] = ()
    config_paths: tuple[Path, ...] = ()
    variables: Mapping[str, object] = field(default_factory=dict)

    @property
    def mandatory(self) -> bool:
        """Whether the plugin goes into ``plugin.mandatory`` (not when it moved to a module)."""
        return self.core or self.name not in MOVED_TO_MODULE


def parse_plugin_specs(spec: str) -> list[tuple[str, tuple[str, ...]]]:
    """``"a,b:x+y"`` -> ``[("a", ()), ("b", ("x", "y"))]``.

    Raises:
        UserError: an entry has more than one ``:`` or an empty name.
    """
    out = []
    for entry in (e.strip() for e in spec.split(",")):
        if not entry:
            continue
        parts = entry.split(":")
        if len(parts) > 2 or not parts[0]:
            raise UserError(
                f"--elasticsearch-plugins: '{entry}' is not PLUGIN or PLUGIN:CONFIG[+CONFIG...] "
                "(e.g. analysis-icu or transport-nio:transport+http)."
            )
        configs = tuple(c for c in parts[1].split("+") if c) if len(parts) == 2 else ()
        out.append((parts[0], configs))
    return out


def core_plugins(team: Path) -> list[str]:
    """Names in ``plugins/v1/core-plugins.txt`` (first comma-separated field; ``#`` lines skipped)."""
    path = member_dir(team, "plugins") / "core-plugins.txt"
    if not path.is_file():
        return []
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        names.append(line.strip().split(",")[0])
    return names


def configured_plugins(team: Path) -> list[tuple[str, str]]:
    """``(plugin name, configuration)`` for each ``plugins/v1/<dir>/<config>.ini`` (``_`` -> ``-``)."""
    root = member_dir(team, "plugins")
    found = []
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        for ini in sorted(d.glob("*.ini")):
            found.append((d.name.replace("_", "-"), ini.stem))
    return found


def load_plugin(
    team: Path, name: str, configs: Sequence[str], plugin_params: Mapping[str, object] | None = None
) -> PluginDescriptor:
    """Resolve one plugin (module doc) in ``team``.

    Raises:
        NotFound: a configuration the plugin does not have, or a configuration of an unknown plugin.
        ConfigError: the configurations name no config base.
    """
    root = member_dir(team, "plugins") / name.replace("-", "_")
    core = name in core_plugins(team)
    params = dict(plugin_params or {})
    if not configs:
        # Rally hands a core plugin without a team directory none of the --plugin-params.
        return PluginDescriptor(name=name, core=core, variables={} if core and not root.is_dir() else params)
    config_paths: list[Path] = []
    variables: dict[str, object] = {}
    for config in configs:
        path = root / f"{config}.ini"
        if not path.is_file():
            what = (
                f"Plugin '{name}' has no configuration '{config}'"
                if core or root.is_dir()
                else (f"Unknown plugin '{name}'")
            )
            raise NotFound(
                f"{what} in the team at '{team}' (no {path}). List plugins and configurations with "
                f"'esbench list elasticsearch-plugins --team-path={team}'."
            )
        parser = read_ini(path)
        try:
            bases = parser.get("config", "base", fallback="")
            variables.update(parser["variables"].items() if parser.has_section("variables") else {})
        except configparser.Error as e:
            raise ConfigError(f"Team file {path}: {e}", e) from e
        for base in (b.strip() for b in bases.split(",")):
            if base and root / base / "templates" not in config_paths:
                config_paths.append(root / base / "templates")
        variables.update(params)
    if not config_paths:
        raise ConfigError(f"Plugin '{name}' configurations {'+'.join(configs)} name no config base ({root}).")
    return PluginDescriptor(
        name=name, core=core, configs=tuple(configs), config_paths=tuple(config_paths), variables=variables
    )


def load_plugins(
    team: Path, spec: str, plugin_params: Mapping[str, object] | None = None
) -> tuple[PluginDescriptor, ...]:
    """Every plugin of ``--elasticsearch-plugins`` (``spec``), in order."""
    return tuple(load_plugin(team, n, c, plugin_params) for n, c in parse_plugin_specs(spec))


def plugin_url(name: str, version: str) -> str | None:
    """``[distributions] plugin.<name>.release.url`` of esbench.ini with ``{{VERSION}}`` replaced, or None."""
    parser = configparser.ConfigParser(interpolation=None)
    path = esbench_home() / "esbench.ini"
    if path.is_file():
        parser.read(path, encoding="utf-8")
    raw = parser.get("distributions", f"plugin.{name}.release.url", fallback=None)
    return None if raw is None else raw.strip().replace("{{VERSION}}", version)


def install_plugin(
    plugin: PluginDescriptor,
    *,
    es_home: Path,
    version: str,
    env: Mapping[str, str],
    offline: bool,
    user: tuple[int, int] | None = None,
    executable: str = "elasticsearch",
) -> None:
    """``bin/<executable>-plugin install --batch <URL or name>`` into ``es_home``
    (``elasticsearch-plugin``, or OpenSearch's ``opensearch-plugin``).

    ``env`` must carry the flavor's Java home and config directory variables (``ES_JAVA_HOME`` and
    ``ES_PATH_CONF``, or ``OPENSEARCH_JAVA_HOME`` and ``OPENSEARCH_PATH_CONF``); ``user`` is the
    ``(uid, gid)`` to run as (the installation's account, as root), None for the current one.

    Raises:
        SupplyError: offline without a configured URL, or the installer failed (the message has its
            output and the esbench.ini key that gives a local zip).
    """
    url = plugin_url(plugin.name, version)
    key = f"[distributions] plugin.{plugin.name}.release.url"
    server = "OpenSearch's release server" if executable == "opensearch" else "Elastic's server"
    if url is None and offline:
        raise SupplyError(
            f"Plugin '{plugin.name}' would be downloaded from {server}, but esbench runs offline. "
            f"Give a local copy in {esbench_home() / 'esbench.ini'}: {key} = file:///path/{plugin.name}-"
            "{{VERSION}}.zip"
        )
    source = url or plugin.name
    cmd = [str(es_home / "bin" / f"{executable}-plugin"), "install", "--batch", source]
    logger.info("Installing plugin %s from %s", plugin.name, source)
    try:
        done = subprocess.run(
            cmd,
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
            check=False,
            user=user[0] if user else None,
            group=user[1] if user else None,
            extra_groups=[] if user else None,
            cwd=os.fspath(es_home),
        )
    except subprocess.TimeoutExpired as e:
        raise SupplyError(
            f"Installing plugin '{plugin.name}' took more than {INSTALL_TIMEOUT_S:.0f} s."
        ) from e
    if done.returncode == 0:
        return
    output = (done.stdout + done.stderr).strip()[-2000:]
    reason = {64: "unknown plugin", 74: "I/O error (download or file)"}.get(
        done.returncode, "installer failed"
    )
    raise SupplyError(
        f"Could not install plugin '{plugin.name}' from {source} ({reason}, exit code {done.returncode}):\n"
        f"{output}\nWhere {server} is out of reach, give a local zip in "
        f"{esbench_home() / 'esbench.ini'}: {key} = file:///path/{plugin.name}-{{{{VERSION}}}}.zip"
    )


def list_plugins(team: Path) -> list[tuple[str, str]]:
    """``(name, configuration)`` rows of ``esbench list elasticsearch-plugins``: core plugins (no
    configuration), then configured ones (Rally's ``PluginLoader.plugins`` order)."""
    return [(n, "") for n in core_plugins(team)] + configured_plugins(team)


#: The plugins OpenSearch's own build ships (``opensearch-plugin install NAME`` fetches them from
#: OpenSearch's release server), in the order OSB 2.4.0 lists them: its bundled cluster configuration
#: ``osbenchmark/resources/cluster_configs/main/plugins/v1/core-plugins.txt`` (the ``1.0`` one names
#: the same), read by ``osbenchmark/builder/cluster_config.py`` ``PluginLoader._core_plugins``.
OPENSEARCH_CORE_PLUGINS = (
    *("analysis-icu", "analysis-kuromoji", "analysis-phonetic", "analysis-smartcn", "analysis-stempel"),
    *("analysis-ukrainian", "discovery-azure-classic", "discovery-ec2", "discovery-file", "discovery-gce"),
    *("ingest-attachment", "lang-javascript", "lang-python", "mapper-attachments", "mapper-murmur3"),
    *("mapper-size", "repository-azure", "repository-gcs", "repository-hdfs", "repository-s3"),
    *("store-smb", "transport-nio"),
)
#: OSB's configured plugins: ``plugins/v1/transport_nio/{transport,http}.ini`` of the same cluster
#: configuration (``PluginLoader._configured_plugins``; OSB lists them in directory order, which the
#: file system decides: ``transport`` before ``http`` on ext4 here).
OPENSEARCH_PLUGIN_CONFIGS = (("transport-nio", "transport"), ("transport-nio", "http"))


def list_opensearch_plugins() -> list[tuple[str, str]]:
    """``(name, configuration)`` rows of OSB's ``list opensearch-plugins`` without a cluster
    configuration of the user's (OSB 2.4.0 ``osbenchmark/builder/cluster_config.py`` ``list_plugins``
    with its bundled cluster configuration): core plugins (no configuration), then configured ones.
    Read from esbench itself: no network, no clone."""
    return [(n, "") for n in OPENSEARCH_CORE_PLUGINS] + list(OPENSEARCH_PLUGIN_CONFIGS)
