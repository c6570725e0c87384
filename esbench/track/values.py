"""Values in a track document: target throughput, merged parameters, durations (for the reader's parts)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from esbench.track.model import (
    Throughput,
)

# Rally's Task.THROUGHPUT_PATTERN: a number, one whitespace, a unit ending in "/s" (prefix match).


THROUGHPUT_PATTERN = re.compile(r"(?P<value>(\d*\.)?\d+)\s(?P<unit>\w+/s)")

# Renders and parses a file of the track (path relative to the track directory) into JSON.
FragmentLoader = Callable[[str, str], Any]

Path_ = tuple[Any, ...]


def parse_target_throughput(value: Any) -> Throughput | None:
    """``target-throughput`` as a :class:`Throughput` (Rally: ``Task.target_throughput``).

    ``100`` → 100 ops/s; ``"500 docs/s"`` → 500 docs/s; 0 → None (unthrottled).

    Raises:
        ValueError: a string that is not ``"<number> <unit>/s"``, or neither number nor string.
    """
    if value is None or isinstance(value, bool):
        if isinstance(value, bool):
            raise ValueError(f"target throughput [{value}] must be a number or a string like '500 docs/s'")
        return None
    if isinstance(value, str):
        match = THROUGHPUT_PATTERN.match(value)
        if not match:
            raise ValueError(
                f"invalid target throughput [{value}]; write a number or a string like '500 docs/s'"
            )
        number, unit = float(match.group("value")), match.group("unit")
    elif isinstance(value, int | float):
        number, unit = float(value), "ops/s"
    else:
        raise ValueError(f"target throughput [{value}] must be a number or a string like '500 docs/s'")
    return Throughput(value=number, unit=unit) if number else None


def merge_parameters(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Deep-merge challenge ``parameters`` over track ``parameters`` (Rally: ``collections.merge_dicts``).

    Nested dicts merge, lists are united (order kept, duplicates dropped), other values from
    ``override`` win.
    """
    out: dict[str, Any] = dict(base)
    for key, value in override.items():
        if key in out and isinstance(out[key], dict) and isinstance(value, dict):
            out[key] = merge_parameters(out[key], value)
        elif key in out and isinstance(out[key], list) and isinstance(value, list):
            merged: list[Any] = []
            for item in out[key] + value:
                if item not in merged:
                    merged.append(item)
            out[key] = merged
        else:
            out[key] = value
    return out


def as_seconds(value: Any) -> float | None:
    """``value`` as float seconds, None stays None."""
    return None if value is None else float(value)
