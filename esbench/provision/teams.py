"""Teams: cars and their config templates in the rally-teams layout, read and rendered as Rally does.

A team directory (``--team-path``, or a checkout of a team repository, :mod:`esbench.provision.teamrepos`)
holds ``cars/v1/<name>.ini`` files::

    [meta]
    description = Sets the Java heap to 4GB
    type = car                      # car | mixin (informational, as in Rally)
    [config]
    base = vanilla,x_pack/base      # config bases: directories under cars/v1/
    [variables]
    heap_size = 4g

and per config base ``<base>/templates/...`` (Jinja2 templates) plus an optional ``<base>/config.ini``
whose ``[variables]`` are defaults. ``--car=4gheap,ea`` loads each file in turn: config bases are
collected in order without repeats, base variables first, then the cars' own variables, then
``--car-params``. Provisioning renders every template file of every base into the node's directory,
appending when two bases write the same file (``elasticsearch.yml`` gets the vanilla settings, then a
mixin's). The rules are Rally 2.13's: ``esrally/mechanic/team.py`` (``CarLoader``, ``load_car``) and
``esrally/mechanic/provisioner.py`` (``_apply_config``, ``ElasticsearchInstaller.variables``,
``BareProvisioner._provisioner_variables``).

Rally also imports a base's ``config.py`` as a bootstrap hook (Python written against Rally's own
modules). esbench does not execute a team's Python: :func:`check_hooks` knows what the two hooks of
rally-teams do and refuses a car only when its hook would act (see there).
"""

from __future__ import annotations

import configparser
import difflib
import os
import shutil
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from esbench.exceptions import ConfigError, NotFound

#: Rally's ``TEAM_FORMAT_VERSION``: members live under ``cars/v1`` and ``plugins/v1``.
FORMAT_DIR = "v1"
#: File extensions Rally renders as templates; any other file is copied as is (``plain_text``).
PLAIN_TEXT_SUFFIXES = frozenset({".ini", ".txt", ".json", ".yml", ".yaml", ".options", ".properties"})
#: The only top-level directory a config base may write: the node's configuration (``ES_PATH_CONF``).
CONFIG_DIR = "config"
#: A config base's bootstrap hook module (Rally's ``Car.entry_point``).
CAR_HOOK = "config.py"


def member_dir(team: Path, member: str) -> Path:
    """``<team>/<member>/v1`` (``member`` is ``cars`` or ``plugins``).

    Raises:
        ConfigError: the directory does not exist (Rally: "Path ... for cars does not exist").
    """
    path = team / member / FORMAT_DIR
    if not path.is_dir():
        raise ConfigError(
            f"Team directory '{team}' has no '{member}/{FORMAT_DIR}' directory: it is not in the rally-teams "
            "layout. Point --team-path at a checkout of rally-teams (its root, which holds cars/ and "
            "plugins/)."
        )
    return path


def read_ini(path: Path) -> configparser.ConfigParser:
    """An ini file as Rally reads team files: ``${...}`` interpolation, keys with their case kept.

    Raises:
        ConfigError: the file is not valid ini syntax (names the file and the parser's reason).
    """
    parser = configparser.ConfigParser(interpolation=configparser.ExtendedInterpolation())
    parser.optionxform = str  # type: ignore[assignment, method-assign]
    try:
        parser.read(path, encoding="utf-8")
    except configparser.Error as e:
        raise ConfigError(f"Team file {path} is not a valid ini file: {e}", e) from e
    return parser


def _section(parser: configparser.ConfigParser, name: str, path: Path) -> dict[str, str]:
    if not parser.has_section(name):
        return {}
    try:
        return dict(parser[name].items())
    except configparser.InterpolationError as e:
        raise ConfigError(f"Team file {path}, section [{name}]: {e}", e) from e


@dataclass(frozen=True, kw_only=True)
class TeamCarInfo:
    """One car file of a team, as ``esbench list cars --team-path`` shows it."""

    name: str
    type: str
    description: str
    path: Path


@dataclass(frozen=True, kw_only=True)
class TeamCar:
    """A resolved team car: what ``--car=a,b`` and ``--car-params`` make of a team's files.

    Attributes:
        names: the car and mixin names as given (``("4gheap", "ea")``).
        config_paths: ``<base>/templates`` directories, in order, each once.
        hook_dirs: config base directories that carry a bootstrap hook (``config.py``).
        variables: template variables: base defaults, then the cars', then ``--car-params``
            (strings as read from the ini files; ``--car-params`` values as parsed).
    """

    names: tuple[str, ...]
    config_paths: tuple[Path, ...]
    hook_dirs: tuple[Path, ...] = ()
    variables: Mapping[str, object] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """Rally's display name: the names joined with ``+``."""
        return "+".join(self.names)


def car_names(team: Path) -> list[str]:
    """Names of the car files (``cars/v1/*.ini``) of ``team``, sorted."""
    return sorted(p.stem for p in member_dir(team, "cars").glob("*.ini"))


def list_team_cars(team: Path) -> list[TeamCarInfo]:
    """Every car and mixin of ``team``, sorted by type, then name (Rally's ``list cars`` order)."""
    infos = []
    for name in car_names(team):
        path = member_dir(team, "cars") / f"{name}.ini"
        meta = _section(read_ini(path), "meta", path)
        infos.append(
            TeamCarInfo(
                name=name, type=meta.get("type", "car"), description=meta.get("description", ""), path=path
            )
        )
    return sorted(infos, key=lambda c: (c.type, c.name))


def load_team_car(
    team: Path, names: Sequence[str], car_params: Mapping[str, object] | None = None
) -> TeamCar:
    """Resolve ``--car`` (``names``) in ``team`` (module doc for the merge order).

    Raises:
        NotFound: no ``cars/v1/<name>.ini``; the message lists close and all names.
        ConfigError: a bad ini file, no config base at all, or no ``runtime.jdk`` variable (Rally
            refuses such a car too: its vanilla base's ``config.ini`` defines it).
    """
    cars = member_dir(team, "cars")
    config_paths: list[Path] = []
    hook_dirs: list[Path] = []
    base_vars: dict[str, object] = {}
    car_vars: dict[str, object] = {}
    for name in names:
        path = cars / f"{name}.ini"
        if not path.is_file() or os.sep in name:
            known = car_names(team)
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
            hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise NotFound(
                f"Unknown car '{name}' in --car: the team at '{team}' has no {path.relative_to(team)}.{hint} "
                f"Its cars and mixins: {', '.join(known)} (see 'esbench list cars --team-path={team}')."
            )
        parser = read_ini(path)
        bases = _section(parser, "config", path).get("base", "")
        for base in (b.strip() for b in bases.split(",")):
            if not base:
                continue
            root = cars / base
            templates = root / "templates"
            if templates not in config_paths:
                config_paths.append(templates)
            if (root / CAR_HOOK).is_file() and root not in hook_dirs:
                hook_dirs.append(root)
            if (root / "config.ini").is_file():
                base_vars.update(_section(read_ini(root / "config.ini"), "variables", root / "config.ini"))
        car_vars.update(_section(parser, "variables", path))
        car_vars.update(car_params or {})
    if not config_paths:
        raise ConfigError(
            f"Car '{'+'.join(names)}' of the team at '{team}' names no config base ([config] base=...) "
            "in any of its files: add a car (e.g. defaults) to the mixins in --car."
        )
    variables = {**base_vars, **car_vars}
    if "runtime.jdk" not in variables:
        raise ConfigError(
            f"Car '{'+'.join(names)}' of the team at '{team}' requires the variable 'runtime.jdk' (Rally's "
            "rule; rally-teams defines it in vanilla/config.ini): put a car with the vanilla base in --car, "
            "e.g. --car=defaults," + ",".join(names) + "."
        )
    return TeamCar(
        names=tuple(names),
        config_paths=tuple(config_paths),
        hook_dirs=tuple(hook_dirs),
        variables=variables,
    )


def check_hooks(car: TeamCar, hook_dirs: Collection[Path] | None = None) -> None:
    """Refuse a car whose bootstrap hook would act, since esbench does not run a team's Python.

    rally-teams has two hooks. ``x_pack/base/config.py`` creates node certificates
    (``elasticsearch-certutil``) and a user only when ``x-pack-security`` is among the car names;
    ``apm_tracing/config.py`` writes a keystore only when ``apm_secret_token`` is set. Any other hook
    is unknown and refused.

    Raises:
        ConfigError: the hook would act; the message says what it does and what to use instead.
    """
    for root in car.hook_dirs if hook_dirs is None else hook_dirs:
        kind = root.as_posix()
        if kind.endswith("x_pack/base"):
            if "x-pack-security" in car.names:
                raise ConfigError(
                    f"The team car '{car.name}' needs its bootstrap hook {root / CAR_HOOK} to create node "
                    "certificates and a user; esbench does not run a team's Python code. For TLS and basic "
                    "auth use esbench's built-in mixin without --team-path: --car=defaults,x-pack-security."
                )
        elif kind.endswith("apm_tracing"):
            if car.variables.get("apm_secret_token"):
                raise ConfigError(
                    f"The team car '{car.name}' with apm_secret_token needs its bootstrap hook "
                    f"{root / CAR_HOOK} to write the token into the keystore; esbench does not run a "
                    "team's Python code. Drop apm_secret_token from --car-params (the APM settings are "
                    "still written) or race this car with Rally."
                )
        else:
            raise ConfigError(
                f"The team car '{car.name}' has a bootstrap hook {root / CAR_HOOK} that esbench does not "
                "know; esbench does not run a team's Python code. Remove the hook from the config base, "
                "or race this car with Rally."
            )


def render_templates(
    config_paths: Sequence[Path], target: Path, variables: Mapping[str, object]
) -> list[Path]:
    """Render every file under each of ``config_paths`` into ``target`` (Rally's ``_apply_config``).

    Text files (:data:`PLAIN_TEXT_SUFFIXES`) are Jinja2 templates rendered with ``variables`` (Jinja's
    default, lenient undefined, as Rally) and *appended* to the target file with a final newline; other
    files are copied. Returns the files written, in order.

    Raises:
        ConfigError: a template's syntax or rendering fails (names the file), or a base writes outside
            :data:`CONFIG_DIR` (esbench keeps the Elasticsearch home read-only and shared).
    """
    written: list[Path] = []
    for source in config_paths:
        if not source.is_dir():
            continue
        for top in sorted(os.listdir(source)):
            if top != CONFIG_DIR:
                raise ConfigError(
                    f"Config base templates at '{source}' write '{top}', outside '{CONFIG_DIR}/': esbench "
                    "renders "
                    "only the node's configuration directory. Move the file under templates/config/."
                )
        for root, dirs, files in os.walk(source):
            dirs.sort()
            env = jinja2.Environment(loader=jinja2.FileSystemLoader(root), autoescape=False)
            out_dir = target / Path(root).relative_to(source)
            out_dir.mkdir(parents=True, exist_ok=True)
            for name in sorted(files):
                src, dst = Path(root) / name, out_dir / name
                if src.suffix in PLAIN_TEXT_SUFFIXES:
                    with dst.open("a", encoding="utf-8") as out:
                        out.write(_render(env, src, variables) + "\n")
                else:
                    shutil.copyfile(src, dst)
                if dst not in written:
                    written.append(dst)
    return written


def _render(env: jinja2.Environment, src: Path, variables: Mapping[str, object]) -> str:
    try:
        return env.get_template(src.name).render(dict(variables))
    except jinja2.TemplateSyntaxError as e:
        raise ConfigError(f"Template {src} line {e.lineno}: {e.message}", e) from e
    except jinja2.TemplateError as e:
        raise ConfigError(f"Template {src}: {e}", e) from e


@dataclass(frozen=True, kw_only=True)
class NodePlacement:
    """Where one node lives and how it finds the others: the inputs of Rally's provisioner variables.

    Attributes:
        cluster_name / node_name: the node's identity.
        node_root: the node's directory; ``config/`` under it is ``ES_PATH_CONF`` (Rally renders into
            the Elasticsearch home, whose ``config/`` it is; ``install_root_path`` points here so
            that ``{{install_root_path}}/config/...`` names the rendered file in both).
        data_path / log_path / heap_dump_path: directories of the node.
        node_ip: the address the node binds.
        http_port / transport_port: its ports.
        seed_hosts: ``ip:transport_port`` of every node; node_names: every node's name.
    """

    cluster_name: str
    node_name: str
    node_root: Path
    data_path: Path
    log_path: Path
    heap_dump_path: Path
    node_ip: str
    http_port: int
    transport_port: int
    seed_hosts: Sequence[str]
    node_names: Sequence[str]


def provisioner_variables(
    car_variables: Mapping[str, object],
    place: NodePlacement,
    *,
    plugin_variables: Mapping[str, object] | None = None,
    mandatory_plugins: Sequence[str] = (),
) -> dict[str, object]:
    """The variables every template sees (Rally ``ElasticsearchInstaller.variables`` and
    ``BareProvisioner._provisioner_variables``): the car's, overridden by the node's, then the
    plugins' variables and ``cluster_settings`` (``plugin.mandatory`` when plugins are installed).

    ``data_paths`` is the car's ``data_paths`` variable when set, else ``[place.data_path]``; string
    lists (``all_node_ips``) are rendered as Rally renders them, ``["a","b"]``.
    """
    data = car_variables.get("data_paths")
    data_paths = [str(place.data_path)] if data is None else ([data] if isinstance(data, str) else data)
    node = {
        "cluster_name": place.cluster_name,
        "node_name": place.node_name,
        "data_paths": data_paths,
        "log_path": str(place.log_path),
        "heap_dump_path": str(place.heap_dump_path),
        "node_ip": place.node_ip,
        "network_host": place.node_ip,
        "http_port": str(place.http_port),
        "transport_port": str(place.transport_port),
        "all_node_ips": _rally_list(place.seed_hosts),
        "all_node_names": _rally_list(place.node_names),
        "all_node_ips_count": len(place.seed_hosts),
        "minimum_master_nodes": len(place.seed_hosts),
        "install_root_path": str(place.node_root),
    }
    cluster_settings: dict[str, object] = (
        {"plugin.mandatory": list(mandatory_plugins)} if mandatory_plugins else {}
    )
    return {**car_variables, **node, **(plugin_variables or {}), "cluster_settings": cluster_settings}


def _rally_list(items: Sequence[str]) -> str:
    # Rally renders these lists itself, as '["a","b"]' (no spaces), not through Jinja's repr of a list.
    return "[" + ",".join(f'"{i}"' for i in items) + "]"
