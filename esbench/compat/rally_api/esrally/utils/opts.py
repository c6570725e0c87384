"""Rally's ``esrally.utils.opts`` (2.13): parsing of ``k:v,k:v`` / JSON command line values."""

from __future__ import annotations

import json
import re
from typing import Any, cast

_JSON_ARRAY_START = re.compile(r"^(\s*\[)")


def csv_to_list(csv: str | None) -> list[Any] | None:
    """``a,b`` -> ``["a", "b"]``; a JSON array (inline or a ``.json`` file) is parsed."""
    if csv is None:
        return None
    if csv.endswith(".json"):
        with open(csv, encoding="utf-8") as f:
            content = f.read()
        if not _JSON_ARRAY_START.match(content):
            raise ValueError(f"csv args only support arrays in json but you supplied [{csv}]")
        return cast("list[Any]", json.loads(content))
    if _JSON_ARRAY_START.match(csv):
        return cast("list[Any]", json.loads(csv))
    if not csv.strip():
        return []
    return [e.strip() for e in csv.split(",")]


def to_bool(v: str | None) -> bool | None:
    if v is None:
        return None
    if v.lower() == "false":
        return False
    if v.lower() == "true":
        return True
    raise ValueError(f"Could not convert value '{v}'")


def to_none(v: str | None) -> None:
    if v is None or v.lower() == "none":
        return None
    raise ValueError(f"Could not convert value '{v}'")


def _convert(v: str) -> Any:
    if v.startswith("'"):
        return v[1:-1]
    for parse in (int, float, to_bool):
        try:
            return parse(v)
        except ValueError:
            pass
    if v.lower() == "none":
        return None
    return v


def kv_to_map(kvs: list[str]) -> dict[str, Any]:
    """``["k:v", ...]`` -> dict; values: quoted string, int, float, bool, none, else string."""
    result = {}
    for kv in kvs:
        k, v = kv.split(":")
        result[k.strip()] = _convert(v.strip())
    return result


def to_dict(arg: str, default_parser: Any = kv_to_map) -> Any:
    """A ``.json`` file, inline JSON, or ``k:v,k:v`` (Rally's ``--track-params`` rules)."""
    if arg.endswith(".json"):
        with open(arg, encoding="utf-8") as f:
            return json.load(f)
    try:
        return json.loads(arg)
    except json.decoder.JSONDecodeError:
        return default_parser(csv_to_list(arg))
