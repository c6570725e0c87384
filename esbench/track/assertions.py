"""Task assertions: what a track says an operation's response must show (Rally 2.13).

An operation may carry ``"assertions": [{"property": "hits", "condition": ">", "value": 3}, ...]``;
with ``--enable-assertions`` each one is checked against what the operation's runner returned, and
the first that does not hold ends the race. Rally keeps them as plain operation params (its loader
and track schema do not look at them) and checks them in ``esrally/driver/runner.py``
``AssertingRunner``:

* ``property`` is a dotted path into the runner's return value (``"hits"``, ``"a.b.c"``): each part
  is one key of a nested mapping;
* ``condition`` is one of ``>``, ``>=``, ``<``, ``<=``, ``==`` and compares the value seen with
  ``value`` (``seen > value`` for ``>``);
* a failed one reads ``Expected [hits] to be > [3] but was [3].``, with ``in [NAME]`` after the
  property when the runner's params carry the operation's ``name`` (see
  :mod:`esbench.driver.worker.runners.asserting` for which operations do).

Here the assertions are parsed into :class:`Assertion` once, before the first request, so a
malformed one is a track error naming the operation and the JSON path instead of a failure in the
middle of the race.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from esbench.exceptions import TrackValidationError


class Condition(StrEnum):
    """The comparisons of Rally's ``AssertingRunner.predicates``: ``seen <condition> value``."""

    GREATER = ">"
    GREATER_OR_EQUAL = ">="
    LESS = "<"
    LESS_OR_EQUAL = "<="
    EQUAL = "=="


# Any: the operator module's comparisons are typed for operands that support them; holds() checks.
_COMPARE: dict[Condition, Callable[[Any, Any], Any]] = {
    Condition.GREATER: operator.gt,
    Condition.GREATER_OR_EQUAL: operator.ge,
    Condition.LESS: operator.lt,
    Condition.LESS_OR_EQUAL: operator.le,
    Condition.EQUAL: operator.eq,
}

_ORDERED = frozenset({Condition.GREATER, Condition.GREATER_OR_EQUAL, Condition.LESS, Condition.LESS_OR_EQUAL})


class MissingProperty(LookupError):
    """The property path does not lead to a value of the response (its ``str`` says where it stops)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Assertion:
    """One entry of an operation's ``assertions``.

    Attributes:
        property: the dotted path into the runner's return value (``"hits"``, ``"hits.total"``).
        condition: how the value seen compares with ``value``.
        value: the expected value as the track gives it (a number for the ordering conditions;
            any JSON value for ``==``).
    """

    property: str
    condition: Condition
    value: object
    #: ``property`` split at its dots, once (checked on every response).
    parts: tuple[str, ...] = field(init=False, compare=False, repr=False)
    ordered: bool = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", tuple(self.property.split(".")))
        object.__setattr__(self, "ordered", self.condition in _ORDERED)

    def extract(self, properties: Mapping[str, object]) -> object:
        """The value at :attr:`property` in ``properties`` (Rally: ``path.split(".")``, one key per part).

        Raises:
            MissingProperty: a part is not a key of the mapping reached so far, or what was reached
                is not a mapping; the message names the part and the keys there were.
        """
        seen: object = properties
        walked: list[str] = []
        for key in self.parts:
            if not isinstance(seen, Mapping):
                raise MissingProperty(
                    f"[{'.'.join(walked)}] is {_shown(seen)}, not an object with the key [{key}]"
                )
            if key not in seen:
                where = f"under [{'.'.join(walked)}]" if walked else "in the response"
                keys = ", ".join(sorted(str(k) for k in seen)) or "none"
                raise MissingProperty(f"there is no [{key}] {where} (its keys: {keys})")
            seen = seen[key]
            walked.append(key)
        return seen

    def holds(self, seen: object) -> bool:
        """True if ``seen <condition> value``.

        Raises:
            TypeError: an ordering condition on a value that is not a number (Rally would raise
                the same comparing, e.g., None with 3).
        """
        if self.ordered and not _is_number(seen):
            raise TypeError(f"{_shown(seen)} is not a number")
        return bool(_COMPARE[self.condition](seen, self.value))

    def failure(self, seen: object, *, operation: str | None) -> str:
        """Rally's message for this assertion failing with ``seen`` (``AssertingRunner.check_assertion``).

        ``operation`` is the name in the runner's params, if they carry one.
        """
        where = f" in [{operation}]" if operation else ""
        return f"Expected [{self.property}]{where} to be {self.condition} [{self.value}] but was [{seen}]."

    def describe(self) -> str:
        """The assertion as one line: ``hits > 3``."""
        return f"{self.property} {self.condition} {self.value!r}"


def _is_number(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and not (isinstance(value, float) and math.isnan(value))
    )


def _shown(value: object) -> str:
    return "null" if value is None else f"{type(value).__name__} {value!r}"


def parse_assertions(spec: object, *, where: str) -> tuple[Assertion, ...]:
    """The assertions of one operation from its ``assertions`` value.

    Args:
        spec: the value of the operation's ``assertions`` key (a list of objects).
        where: what to name in messages, e.g. ``"operation 'term'"``.

    Raises:
        esbench.exceptions.TrackValidationError: not a list; an entry that is not an object, lacks
            ``property``/``condition``/``value``, has another key, an empty property or a part of
            one, an unknown condition, or a non-number ``value`` with an ordering condition. The
            message names ``where`` and the JSON path (``assertions[1].condition``).
    """
    if not isinstance(spec, list):
        raise TrackValidationError(
            f"{where}: 'assertions' must be a list of objects such as "
            f'{{"property": "hits", "condition": ">", "value": 0}}, got {_shown(spec)}.'
        )
    return tuple(_parse_one(entry, where=f"{where}: assertions[{i}]") for i, entry in enumerate(spec))


_KEYS = ("property", "condition", "value")


def _parse_one(entry: object, *, where: str) -> Assertion:
    if not isinstance(entry, Mapping):
        raise TrackValidationError(
            f'{where} must be an object with "property", "condition" and "value", got {_shown(entry)}.'
        )
    missing = [k for k in _KEYS if k not in entry]
    if missing:
        raise TrackValidationError(
            f"{where} has no {', '.join(repr(k) for k in missing)}: an assertion needs "
            f'"property" (a dotted path such as "hits"), "condition" (one of '
            f'{", ".join(c.value for c in Condition)}) and "value".'
        )
    extra = sorted(str(k) for k in entry if k not in _KEYS)
    if extra:
        raise TrackValidationError(
            f"{where} has the unknown key(s) {', '.join(extra)}; an assertion has only "
            f'"property", "condition" and "value".'
        )
    path = entry["property"]
    if not isinstance(path, str) or not path or any(not part for part in path.split(".")):
        raise TrackValidationError(
            f'{where}.property must be a dotted path of keys such as "hits" or "hits.total", '
            f"got {_shown(path)}."
        )
    try:
        condition = Condition(entry["condition"])
    except ValueError:
        raise TrackValidationError(
            f"{where}.condition is {_shown(entry['condition'])}; use one of "
            f"{', '.join(c.value for c in Condition)}."
        ) from None
    value = entry["value"]
    if condition in _ORDERED and not _is_number(value):
        raise TrackValidationError(
            f"{where}.value must be a number for the condition {condition.value}, got {_shown(value)}."
        )
    return Assertion(property=path, condition=condition, value=value)
