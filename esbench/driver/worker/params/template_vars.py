"""Template variables of the ``templated-request`` param source: INFINI Loadgen's variable types.

Semantics from Loadgen's source (``domain.go`` ``buildVariableValue``, ``LoaderConfig.Init``) and
its framework (``core/util`` ``GetAutoIncrement32ID``, ``GetUUID`` = ``rs/xid``):

=================  ========================================================================
type               value (a string)
=================  ========================================================================
file               a random line of ``path`` (lines end at ``\\n`` or ``\\r\\n``), plus ``data``
list               a random item of ``data``
sequence           a counter: ``from+1, from+2 ... to``, then ``0 ... to`` again (32-bit; with
                   ``to`` 0 it wraps after 2^31-1); one counter for the whole run
sequence64         the same, 64-bit (wraps after 2^63-1)
range              a random integer in [``from``, ``to``] (both included)
random_array       ``size`` values of the variable ``variable_key`` joined by ``,``; with
                   ``variable_type: string`` each is quoted with ``string_bracket`` (default
                   ``"``); ``square_bracket: true`` adds ``[`` ``]``
uuid               an ``xid`` (20 characters of base32hex, time-ordered), as Loadgen produces
now_local          Go ``Time.String()`` in the local zone: ``2006-01-02 15:04:05.999999999 -0700 MST``
now_utc            the same in UTC (``+0000 UTC``)
now_utc_lite       UTC as ``2006-01-02T15:04:05.000``
now_unix           Unix time in seconds (also ``now_unix_in_ms``/``_micro``/``_nano``)
now_with_format    local time formatted with the Go layout ``format``
env                ``$[[env.NAME]]``: the environment variable NAME, else the configured default
int_array_bitmap   ``size`` random integers of [``from``, ``to``] as a Roaring bitmap, serialized
                   and base64-encoded (:mod:`.template_bitmap`)
=================  ========================================================================

``replace`` (a mapping) rewrites every value (Go ``strings.Replacer``: one pass, no overlaps).

How esbench differs, and why: the counter of a ``sequence`` is shared out among the clients (client
``i`` of ``n`` takes every ``n``-th value of the run's sequence), because the clients run in
several processes; values stay unique across clients. The clock of the ``now_*`` types is read
once per placeholder and request, not once per body line (a bulk is built in milliseconds).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from esbench.exceptions import ConfigError


class VariableType(StrEnum):
    """Loadgen's variable types (see module doc)."""

    FILE = "file"
    LIST = "list"
    SEQUENCE = "sequence"
    SEQUENCE64 = "sequence64"
    RANGE = "range"
    RANDOM_ARRAY = "random_array"
    UUID = "uuid"
    NOW_LOCAL = "now_local"
    NOW_UTC = "now_utc"
    NOW_UTC_LITE = "now_utc_lite"
    NOW_UNIX = "now_unix"
    NOW_UNIX_IN_MS = "now_unix_in_ms"
    NOW_UNIX_IN_MICRO = "now_unix_in_micro"
    NOW_UNIX_IN_NANO = "now_unix_in_nano"
    NOW_WITH_FORMAT = "now_with_format"
    ENV = "env"
    INT_ARRAY_BITMAP = "int_array_bitmap"


#: Keys a variable may have, by type (Loadgen's ``Variable`` struct).
_COMMON = frozenset({"name", "type", "replace"})
_KEYS: dict[VariableType, frozenset[str]] = {
    VariableType.FILE: _COMMON | {"path", "data"},
    VariableType.LIST: _COMMON | {"data", "path"},
    VariableType.SEQUENCE: _COMMON | {"from", "to"},
    VariableType.SEQUENCE64: _COMMON | {"from", "to"},
    VariableType.RANGE: _COMMON | {"from", "to"},
    VariableType.RANDOM_ARRAY: _COMMON
    | {"variable_key", "variable_type", "square_bracket", "string_bracket", "size"},
    VariableType.NOW_WITH_FORMAT: _COMMON | {"format"},
    VariableType.INT_ARRAY_BITMAP: _COMMON | {"from", "to", "size"},
    VariableType.ENV: _COMMON | {"value", "default"},
}


@dataclass(frozen=True, slots=True, kw_only=True)
class VariableSpec:
    """One variable, validated (see module doc for each type's fields).

    Attributes:
        name: the name used in ``$[[name]]``.
        type: the variable type.
        lines: values of ``file``/``list`` (``replace`` already applied).
        start / stop: ``from`` / ``to`` of sequences and ranges.
        layout: the Go layout of ``now_with_format``.
        replace: ``(old, new)`` pairs applied to every value.
        size / array_key / quote / square_bracket: ``random_array`` (``size`` also of
            ``int_array_bitmap``).
        value: the value of an ``env`` variable.
    """

    name: str
    type: VariableType
    lines: tuple[str, ...] = ()
    start: int = 0
    stop: int = 0
    layout: str = ""
    replace: tuple[tuple[str, str], ...] = ()
    size: int = 0
    array_key: str = ""
    quote: str | None = None
    square_bracket: bool = False
    value: str = ""
    meta: Mapping[str, object] = field(default_factory=dict)


def read_lines(path: Path, *, what: str) -> tuple[str, ...]:
    """The lines of a dictionary or ``file`` variable (``\\n`` or ``\\r\\n``; no final empty line).

    Raises:
        ConfigError: the file is missing, unreadable, not UTF-8 or has no line.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"The {what} file {path} does not exist. Give the path of a text file with one value per "
            f"line (relative paths are relative to the configuration file or track)."
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"The {what} file {path} cannot be read ({exc}). It must be UTF-8 text.") from None
    lines = tuple(text.splitlines())
    if not lines:
        raise ConfigError(
            f"The {what} file {path} is empty: it needs at least one line (one value per line)."
        )
    return lines


def _int(raw: Mapping[str, object], key: str, where: str, default: int = 0) -> int:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ConfigError(f"{where}: '{key}' must be a whole number, got {value!r}.")
    try:
        number = int(value)
    except ValueError:
        raise ConfigError(f"{where}: '{key}' must be a whole number, got {value!r}.") from None
    if number < 0:
        raise ConfigError(
            f"{where}: '{key}' must not be negative (Loadgen reads it as unsigned), got {number}."
        )
    return number


def parse_variable(raw: Any, *, where: str, base_dir: Path, env: Mapping[str, str]) -> VariableSpec:
    """One Loadgen variable definition (a mapping) as a :class:`VariableSpec`.

    Args:
        raw: the mapping from the YAML or track JSON.
        where: where it was written, for messages (``"loadgen.yml line 12"``, a JSON path).
        base_dir: directory relative ``path`` values are resolved against.
        env: the configured ``env`` defaults (for ``env`` variables).

    Raises:
        ConfigError: unknown type or key, missing or bad field, missing or empty file.
    """
    name, kind = _name_and_type(raw, where)
    replace = raw.get("replace") or {}
    if not isinstance(replace, Mapping):
        raise ConfigError(f"{where}: 'replace' of variable '{name}' must be a mapping of old: new strings.")
    pairs = tuple((str(k), str(v)) for k, v in replace.items())
    spec: dict[str, Any] = {"name": name, "type": kind, "replace": pairs}
    spec.update(_type_fields(kind, raw, name, pairs, where=where, base_dir=base_dir, env=env))
    return VariableSpec(**spec)


def _name_and_type(raw: Any, where: str) -> tuple[str, VariableType]:
    """The variable's checked ``name`` and ``type``; every key must belong to that type."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: a variable must be a mapping with 'name' and 'type', got {raw!r}.")
    name = str(raw.get("name", "")).strip()
    if not name:
        raise ConfigError(f"{where}: the variable has no 'name'.")
    try:
        kind = VariableType(str(raw.get("type", "")))
    except ValueError:
        raise ConfigError(
            f"{where}: variable '{name}' has the unknown type {raw.get('type')!r}. Known types: "
            f"{', '.join(t.value for t in VariableType)}."
        ) from None
    allowed = _KEYS.get(kind, _COMMON)
    for key in raw:
        if key not in allowed:
            raise ConfigError(
                f"{where}: variable '{name}' ({kind}) has the unsupported key '{key}'. Its keys are: "
                f"{', '.join(sorted(allowed))}."
            )
    return name, kind


def _type_fields(
    kind: VariableType,
    raw: Mapping[str, Any],
    name: str,
    pairs: tuple[tuple[str, str], ...],
    *,
    where: str,
    base_dir: Path,
    env: Mapping[str, str],
) -> dict[str, Any]:
    """The :class:`VariableSpec` fields of one variable type (values, bounds, layout...)."""
    spec: dict[str, Any] = {}
    if kind in (VariableType.FILE, VariableType.LIST):
        lines: list[str] = []
        if raw.get("path"):
            lines.extend(read_lines(base_dir / str(raw["path"]), what=f"variable '{name}'"))
        data = raw.get("data") or []
        if not isinstance(data, list):
            raise ConfigError(f"{where}: 'data' of variable '{name}' must be a list of strings.")
        lines.extend(s for s in (str(v).strip() for v in data) if s)
        if not lines:
            raise ConfigError(
                f"{where}: variable '{name}' ({kind}) has no values: give 'path' (a file with one value "
                f"per line) or a non-empty 'data' list."
            )
        spec["lines"] = tuple(apply_replace(pairs, v) for v in lines) if pairs else tuple(lines)
    elif kind in (VariableType.SEQUENCE, VariableType.SEQUENCE64, VariableType.RANGE):
        spec["start"] = _int(raw, "from", where)
        spec["stop"] = _int(raw, "to", where)
        if kind is VariableType.RANGE and spec["stop"] < spec["start"]:
            raise ConfigError(
                f"{where}: range variable '{name}' has 'to' ({spec['stop']}) below 'from' ({spec['start']})."
            )
    elif kind is VariableType.RANDOM_ARRAY:
        spec["array_key"] = str(raw.get("variable_key", "")).strip()
        if not spec["array_key"]:
            raise ConfigError(
                f"{where}: random_array '{name}' needs 'variable_key' (the variable of its items)."
            )
        spec["size"] = _int(raw, "size", where)
        item_type = str(raw.get("variable_type", "number"))
        if item_type not in ("number", "string"):
            raise ConfigError(
                f"{where}: 'variable_type' of '{name}' must be number or string, got {item_type!r}."
            )
        spec["quote"] = (str(raw.get("string_bracket") or '"')) if item_type == "string" else None
        spec["square_bracket"] = bool(raw.get("square_bracket", False))
    elif kind is VariableType.INT_ARRAY_BITMAP:
        spec["start"] = _int(raw, "from", where)
        spec["stop"] = _int(raw, "to", where)
        spec["size"] = _int(raw, "size", where)
        if not 0 <= spec["start"] <= spec["stop"] < 1 << 32:
            raise ConfigError(
                f"{where}: int_array_bitmap '{name}' needs 0 <= from <= to < 2^32 (32-bit unsigned "
                f"integers), got from {spec['start']}, to {spec['stop']}."
            )
    elif kind is VariableType.NOW_WITH_FORMAT:
        if not raw.get("format"):
            raise ConfigError(
                f"{where}: now_with_format '{name}' needs 'format', a Go layout such as "
                f"2006-01-02T15:04:05-0700."
            )
        spec["layout"] = str(raw["format"])
    elif kind is VariableType.ENV:
        spec["value"] = env_value(name, env, default=raw.get("default", raw.get("value")), where=where)
    return spec


def env_value(name: str, env: Mapping[str, str], *, default: str | None = None, where: str) -> str:
    """The value of ``env.NAME``: the process environment, else the configured default.

    Raises:
        ConfigError: neither is set.
    """
    key = name[4:] if name.startswith("env.") else name
    value = os.environ.get(key)
    if value is None:
        value = env.get(key, default)
    if value is None:
        raise ConfigError(
            f"{where}: the environment variable {key} is not set and has no default. Export {key}, or "
            f"give it a default in the 'env' section."
        )
    return str(value)


def apply_replace(pairs: Sequence[tuple[str, str]], value: str) -> str:
    """Go ``strings.NewReplacer(pairs...).Replace(value)``: one left-to-right pass, no overlaps."""
    if not pairs:
        return value
    return _replacer(tuple(pairs))(value)


_REPLACERS: dict[tuple[tuple[str, str], ...], Callable[[str], str]] = {}


#: ``re.Pattern.sub`` with a replacement function (bound as a default for speed).
_Sub = Callable[[Callable[[re.Match[str]], str], str], str]


def _replacer(pairs: tuple[tuple[str, str], ...]) -> Callable[[str], str]:
    fn = _REPLACERS.get(pairs)
    if fn is None:
        table = dict(reversed(pairs))  # the first pair of a repeated key wins, as in Go
        pattern = re.compile("|".join(re.escape(k) for k, _ in pairs if k))

        def fn(value: str, _sub: _Sub = pattern.sub, _table: dict[str, str] = table) -> str:
            return _sub(lambda m: _table[m.group(0)], value)

        _REPLACERS[pairs] = fn
    return fn
