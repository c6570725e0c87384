"""Cars: YAML definitions of heap size, JVM options and ``elasticsearch.yml`` settings, combinable as mixins.

A car file ``cars/<name>.yml``::

    description: Sets the Java heap to 4 GiB      # shown by `esbench list cars`
    type: car                                     # car | mixin (only informational, like Rally)
    base: defaults                                # optional: applied before this one
    variables: {heap_size: 4g}                    # referenced as {{heap_size}} in options/settings
    jvm_options: ["-Xms{{heap_size}}"]            # appended to the distribution's jvm.options
    settings: {indices.memory.index_buffer_size: 20%}   # elasticsearch.yml
    security: true                                # optional: TLS + basic auth, see esbench.provision.security

``--car=defaults,4gheap`` applies the definitions in order (bases first, each once): later variables
and settings override earlier ones, JVM options accumulate; ``--car-params`` then override variables
(Rally's ``--car`` / ``--car-params`` semantics, see Rally's "Car" docs). A list made only of mixins gets
``defaults`` prepended, so ``--car=ea`` is a complete car. Templates are Jinja2 with strict undefined.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload

import jinja2
import yaml

from esbench.exceptions import ConfigError, NotFound
from esbench.home import builtin_cars_dir, esbench_home

DEFAULT_CAR = "defaults"
_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")
_KEYS = {"description", "type", "base", "variables", "jvm_options", "settings", "security"}


@dataclass(frozen=True, kw_only=True)
class CarDefinition:
    """One car or mixin file as written."""

    name: str
    path: Path
    description: str
    type: str
    base: str | None = None
    variables: Mapping[str, object] = field(default_factory=dict)
    jvm_options: tuple[str, ...] = ()
    settings: Mapping[str, object] = field(default_factory=dict)
    security: bool = False


@dataclass(frozen=True, kw_only=True)
class Car:
    """A resolved car: the merged, rendered result of ``--car`` and ``--car-params``.

    Attributes:
        name: the names as given, joined with ``+`` (``"defaults+4gheap"``), Rally's display form.
        names: every applied definition in order, bases included.
        variables: merged variables after ``--car-params``.
        jvm_options: rendered JVM options (``-Xms4g``...), in order.
        settings: rendered ``elasticsearch.yml`` settings, flattened to dotted keys.
        security: a definition asked for TLS and basic auth (``security: true``): provisioning
            generates certificates and a user (:mod:`esbench.provision.security`).
    """

    name: str
    names: tuple[str, ...]
    variables: Mapping[str, object]
    jvm_options: tuple[str, ...]
    settings: Mapping[str, object]
    security: bool = False

    @property
    def data_paths(self) -> tuple[str, ...]:
        """The ``data_paths`` variable (``--car-params=data_paths:/ssd/es``) as paths; () unset.

        Rally 2.13 ``esrally/mechanic/provisioner.py`` ``BareProvisioner._data_paths``: a string is
        one path, a list its paths; the node's ``path.data`` is set to them and they are deleted
        with the installation (``provisioner.cleanup``).

        Raises:
            ConfigError: neither a string nor a list of strings (Rally: "Expected [data_paths] to
                be either a string or a list").
        """
        value = self.variables.get("data_paths")
        if value is None:
            return ()
        paths: tuple[str, ...] | None = None
        if isinstance(value, str) and value.strip():
            paths = (value,)
        elif (
            isinstance(value, list | tuple) and value and all(isinstance(v, str) and v.strip() for v in value)
        ):
            paths = tuple(value)
        if paths is not None:
            relative = [p for p in paths if not Path(p).expanduser().is_absolute()]
            if relative:
                # The node and esbench stop run in other directories: a relative path would name two.
                raise ConfigError(
                    f"The car variable data_paths must name absolute paths, not {relative}. Fix it in "
                    "--car-params (e.g. --car-params=data_paths:/ssd/esdata)."
                )
            return tuple(str(Path(p).expanduser()) for p in paths)
        raise ConfigError(
            f"The car variable data_paths must be a path or a list of paths, not {value!r}. Fix it in "
            '--car-params (e.g. --car-params=data_paths:/ssd/esdata, or \'{"data_paths": ["/ssd/a"]}\').'
        )

    @property
    def heap_size(self) -> str | None:
        """The ``heap_size`` variable (``"1g"``), if the car defines one."""
        value = self.variables.get("heap_size")
        return None if value is None else str(value)


def car_dirs() -> list[Path]:
    """Directories searched for ``<name>.yml``: built-in ``cars/``, then ``$ESBENCH_HOME/cars``."""
    return [builtin_cars_dir(), esbench_home() / "cars"]


def _load_file(name: str, path: Path) -> CarDefinition:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"Car file {path}{where} is not valid YAML: {e}", e) from e
    if not isinstance(raw, dict):
        raise ConfigError(f"Car file {path} must contain a mapping (description, type, variables...).")
    unknown = set(raw) - _KEYS
    if unknown:
        raise ConfigError(f"Car file {path} has unknown keys {sorted(unknown)}; allowed: {sorted(_KEYS)}.")
    car_type = raw.get("type", "car")
    if car_type not in ("car", "mixin"):
        raise ConfigError(f"Car file {path}: 'type' must be 'car' or 'mixin', not {car_type!r}.")
    variables = raw.get("variables") or {}
    settings = raw.get("settings") or {}
    jvm = raw.get("jvm_options") or []
    if not isinstance(variables, dict) or not isinstance(settings, dict):
        raise ConfigError(f"Car file {path}: 'variables' and 'settings' must be mappings.")
    if not isinstance(jvm, list) or not all(isinstance(o, str) for o in jvm):
        raise ConfigError(f"Car file {path}: 'jvm_options' must be a list of strings.")
    if not isinstance(raw.get("security", False), bool):
        raise ConfigError(f"Car file {path}: 'security' must be true or false.")
    return CarDefinition(
        name=name,
        path=path,
        description=str(raw.get("description", "")),
        type=car_type,
        base=raw.get("base"),
        variables=variables,
        jvm_options=tuple(jvm),
        settings=settings,
        security=raw.get("security", False),
    )


def list_cars() -> list[CarDefinition]:
    """Every available car and mixin, sorted by name (a user car shadows a built-in one of the same name)."""
    found: dict[str, Path] = {}
    for d in car_dirs():
        if d.is_dir():
            for p in sorted(d.glob("*.yml")):
                found[p.stem] = p
    return [_load_file(n, p) for n, p in sorted(found.items())]


def load_definition(name: str) -> CarDefinition:
    """Load one car or mixin by name.

    Raises:
        NotFound: no such car; the message lists close matches and all names.
    """
    if not _NAME_RE.match(name):
        raise NotFound(f"'{name}' is not a valid car name (letters, digits, '-', '_', '.').")
    for d in reversed(car_dirs()):
        p = d / f"{name}.yml"
        if p.is_file():
            return _load_file(name, p)
    names = [c.name for c in list_cars()]
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise NotFound(
        f"Unknown car '{name}' in --car.{hint} Available cars and mixins: {', '.join(names)} "
        f"(see 'esbench list cars'); add your own as {esbench_home() / 'cars'}/<name>.yml."
    )


def _flatten(prefix: str, value: object, out: dict[str, object]) -> None:
    if isinstance(value, Mapping):  # an empty mapping sets nothing
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    else:
        out[prefix] = value


@overload
def _render(value: str, variables: Mapping[str, object], env: jinja2.Environment, where: str) -> str: ...
@overload
def _render(
    value: object, variables: Mapping[str, object], env: jinja2.Environment, where: str
) -> object: ...
def _render(value: object, variables: Mapping[str, object], env: jinja2.Environment, where: str) -> object:
    # A string renders to a string, a list item by item; anything else (numbers, booleans) as is.
    if isinstance(value, str):
        try:
            return env.from_string(value).render(**variables)
        except jinja2.UndefinedError as e:
            raise ConfigError(
                f"{where}: {e.message}. Define it in the car's 'variables' or pass --car-params.", e
            ) from e
        except jinja2.TemplateSyntaxError as e:
            raise ConfigError(f"{where}: bad template {value!r}: {e.message}", e) from e
    if isinstance(value, list):
        return [_render(v, variables, env, where) for v in value]
    return value


def _expand(names: Sequence[str]) -> list[CarDefinition]:
    ordered: list[CarDefinition] = []
    seen: set[str] = set()

    def add(name: str, chain: tuple[str, ...]) -> None:
        if name in chain:
            raise ConfigError(f"Car '{name}' has a cyclic 'base': {' -> '.join((*chain, name))}.")
        if name in seen:
            return
        d = load_definition(name)
        if d.base:
            add(d.base, (*chain, name))
        seen.add(name)
        ordered.append(d)

    for n in names:
        add(n, ())
    return ordered


def parse_car_names(spec: str) -> list[str]:
    """Split ``"defaults,4gheap"`` into names; raises NotFound-style UserError on an empty spec."""
    names = [n.strip() for n in spec.split(",") if n.strip()]
    if not names:
        raise NotFound(
            "--car is empty: name at least one car, e.g. --car=defaults (see 'esbench list cars')."
        )
    return names


def resolve_car(spec: str, car_params: Mapping[str, object] | None = None) -> Car:
    """Resolve ``--car`` (comma-separated) plus ``--car-params`` into a :class:`Car`.

    Raises:
        NotFound: unknown car or mixin name.
        ConfigError: a bad car file, a cyclic base, or a template variable nobody defines.
    """
    names = parse_car_names(spec)
    defs = _expand(names)
    if all(d.type == "mixin" for d in defs):
        defs = _expand([DEFAULT_CAR, *names])
    variables: dict[str, object] = {}
    for d in defs:
        variables.update(d.variables)
    variables.update(car_params or {})
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
    jvm: list[str] = []
    settings: dict[str, object] = {}
    for d in defs:
        for opt in d.jvm_options:
            jvm.append(_render(opt, variables, env, f"Car '{d.name}' ({d.path}) jvm_options"))
        flat: dict[str, object] = {}
        _flatten("", d.settings, flat)
        for k, v in flat.items():
            settings[k] = _render(v, variables, env, f"Car '{d.name}' ({d.path}) setting {k}")
    return Car(
        name="+".join(names),
        names=tuple(d.name for d in defs),
        variables=variables,
        jvm_options=tuple(jvm),
        settings=settings,
        security=any(d.security for d in defs),
    )
