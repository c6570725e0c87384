"""Values in a track document: target throughput, merged parameters, durations (for the reader's parts)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, SupportsFloat

from esbench.track.model import (
    Throughput,
)

# Rally's Task.THROUGHPUT_PATTERN: a number, one whitespace, a unit ending in "/s" (prefix match).


THROUGHPUT_PATTERN = re.compile(r"(?P<value>(\d*\.)?\d+)\s(?P<unit>\w+/s)")

# Renders and parses a file of the track (path relative to the track directory) into JSON.
FragmentLoader = Callable[[str, str], Any]

Path_ = tuple[str | int, ...]


def parse_target_throughput(value: object) -> Throughput | None:
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


def merge_parameters(base: Mapping[str, object], override: Mapping[str, object]) -> dict[str, object]:
    """Deep-merge challenge ``parameters`` over track ``parameters`` (Rally: ``collections.merge_dicts``).

    Nested dicts merge, lists are united (order kept, duplicates dropped), other values from
    ``override`` win.
    """
    out: dict[str, object] = dict(base)
    for key, value in override.items():
        # A missing key and a None value both fail the isinstance checks.
        current = out.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            out[key] = merge_parameters(current, value)
        elif isinstance(current, list) and isinstance(value, list):
            merged: list[object] = []
            for item in current + value:
                if item not in merged:
                    merged.append(item)
            out[key] = merged
        else:
            out[key] = value
    return out


def as_seconds(value: SupportsFloat | str | None) -> float | None:
    """``value`` as float seconds, None stays None."""
    return None if value is None else float(value)
