"""OSB's ``osbenchmark.utils.parse`` (2.4.0): typed reads of operation parameters.

Each function returns ``params[key]`` when it has the type (checked with ``isinstance``, so a bool
passes as an int, as in OSB, and an int does not pass as a float), else ``default`` when the key is
missing (for strings also when the value is empty; for floats only a truthy default), and
otherwise raises ``osbenchmark.exceptions.ConfigurationError`` naming the key, with OSB's texts.
"""

from __future__ import annotations

from typing import Any

from osbenchmark.exceptions import ConfigurationError


def _read(key: str, params: dict[str, Any], default: Any, kind: type, label: str, *, absent: bool) -> Any:
    if absent:
        if default is not None and (kind is not float or default):
            return default
        raise ConfigurationError(f"Value cannot be None for param {key}")
    value = params[key]
    if isinstance(value, kind):
        return value
    raise ConfigurationError(f"Value must be a {label} for param {key}")


def parse_string_parameter(key: str, params: dict[str, Any], default: str | None = None) -> str:
    """``params[key]`` as a string; a missing or empty value gives ``default``."""
    value: str = _read(key, params, default, str, "string", absent=key not in params or not params[key])
    return value


def parse_int_parameter(key: str, params: dict[str, Any], default: int | None = None) -> int:
    """``params[key]`` as an int."""
    value: int = _read(key, params, default, int, "int", absent=key not in params)
    return value


def parse_float_parameter(key: str, params: dict[str, Any], default: float | None = None) -> float:
    """``params[key]`` as a float."""
    value: float = _read(key, params, default, float, "float", absent=key not in params)
    return value


def parse_bool_parameter(key: str, params: dict[str, Any], default: bool | None = None) -> bool:
    """``params[key]`` as a bool."""
    value: bool = _read(key, params, default, bool, "bool", absent=key not in params)
    return value
