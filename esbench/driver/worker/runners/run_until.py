"""``run-until``: repeats a request until a value in its response meets a criterion.

Rally 2.13 (``esrally/driver/runner.py``, ``RunUntil``; registered with ``Retry``): ``method``
(GET) ``path`` with ``body`` and ``request-params``; the value at ``json-path`` (dot-separated, ijson
prefix syntax: ``item`` steps into an array) is compared with ``criterion``: ``{"operator": ...,
"value": ...}`` where operator is ``exists``, ``not_exists`` or one of the integer comparisons
``gte``, ``lte``, ``eq``, ``neq`` (those need ``value``). Between attempts it waits
``retry-wait-interval`` seconds (default 60). 1 op; the service time spans all attempts.

Deviation: Rally re-sends at once, without waiting, while the value is missing or falsy (so
``not_exists`` can never be met there); esbench waits the interval before every new attempt and
evaluates ``not_exists`` on a missing value.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from esbench.driver.worker.runners.base import (
    RallyParams,
    Runner,
    RunnerResult,
    failed,
    json_or_none,
    mandatory,
    request_options,
    send,
)
from esbench.exceptions import ConfigError

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient

_NUMERIC: dict[str, Callable[[Any, Any], bool]] = {
    "gte": lambda v, t: int(v) >= int(t),
    "lte": lambda v, t: int(v) <= int(t),
    "eq": lambda v, t: int(v) == int(t),
    "neq": lambda v, t: int(v) != int(t),
}
OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "exists": lambda v, _: v is not None,
    "not_exists": lambda v, _: v is None,
    **_NUMERIC,
}

_MISSING = object()


def json_path_value(data: object, path: str) -> object:
    """The value at ``path`` (``a.b``, ``a.item.b``: first array element that has it), or None."""
    value = _lookup(data, path.split(".") if path else [])
    return None if value is _MISSING else value


def _lookup(data: object, steps: list[str]) -> object:
    if not steps:
        return data
    step, rest = steps[0], steps[1:]
    if step == "item" and isinstance(data, list):
        for element in data:
            found = _lookup(element, rest)
            if found is not _MISSING:
                return found
        return _MISSING
    if isinstance(data, Mapping) and step in data:
        return _lookup(data[step], rest)
    return _MISSING


def criterion_met(criterion: Mapping[str, Any], value: object) -> bool:
    """Whether ``value`` meets ``criterion`` (a missing value never meets a numeric comparison)."""
    operator = criterion["operator"]
    if operator in _NUMERIC and value is None:
        return False
    return OPERATORS[operator](value, criterion.get("value"))


class RunUntil(Runner):
    """``run-until`` (see the module doc).

    Raises:
        esbench.exceptions.ConfigError: unknown operator, or a comparison without ``value``.
    """

    name = "run-until"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        path = str(mandatory(params, "path", self.name))
        json_path = str(mandatory(params, "json-path", self.name))
        criterion = mandatory(params, "criterion", self.name)
        operator = criterion.get("operator") if isinstance(criterion, Mapping) else None
        if operator not in OPERATORS:
            raise ConfigError(
                f"Operation '{params.get('name') or self.name}' (run-until): unsupported criterion "
                f"operator {operator!r}; use one of {', '.join(OPERATORS)}."
            )
        if operator in _NUMERIC and "value" not in criterion:
            raise ConfigError(
                f"Operation '{params.get('name') or self.name}' (run-until): criterion operator "
                f"'{operator}' requires a 'value' field."
            )
        method = str(params.get("method", "GET")).upper()
        wait = float(params.get("retry-wait-interval", 60))
        query, headers, timeout = request_options(params)
        while True:
            response = await send(
                es, method, path, query=query, body=params.get("body"), headers=headers, timeout=timeout
            )
            if response.status >= 400:
                return failed(response)
            if criterion_met(criterion, json_path_value(json_or_none(response), json_path)):
                return RunnerResult()
            await asyncio.sleep(wait)
