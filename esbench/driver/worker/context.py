"""Named values that operations hand to later operations (Rally's ``CompositeContext``).

``open-point-in-time`` stores the PIT id under its operation name, ``paginated-search`` with
``with-point-in-time-from`` reads it and ``close-point-in-time`` removes it. Rally allows this only
inside one ``composite`` operation; esbench also carries the values across tasks: each worker
process keeps a :class:`RaceContext`, sends the values its clients set or removed at the join
point, and the coordinator hands the merged values to every worker with the next step.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

from esbench.exceptions import ConfigError


class RaceContext:
    """Values by operation name, with the changes since :meth:`take_changes` (None = removed)."""

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        self._values: dict[str, Any] = dict(values or {})
        self._changes: dict[str, Any] = {}

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key`` (an operation name)."""
        self._values[key] = value
        self._changes[key] = value

    def get(self, key: str) -> Any:
        """The value stored under ``key``.

        Raises:
            esbench.exceptions.ConfigError: nothing is stored under ``key``; the message lists the
                names that are.
        """
        try:
            return self._values[key]
        except KeyError:
            known = ", ".join(sorted(self._values)) or "none"
            raise ConfigError(
                f"No value named '{key}' is available (known: {known}). An operation that refers to "
                f"another one with 'with-point-in-time-from' (or similar) needs that operation "
                f"(e.g. open-point-in-time named '{key}') to run earlier in the schedule."
            ) from None

    def remove(self, key: str) -> None:
        """Forget ``key`` (no error if unknown)."""
        self._values.pop(key, None)
        self._changes[key] = None

    def update(self, changes: Mapping[str, Any]) -> None:
        """Apply changes from another process (None removes a key)."""
        for key, value in changes.items():
            if value is None:
                self._values.pop(key, None)
            else:
                self._values[key] = value

    def take_changes(self) -> dict[str, Any]:
        """The changes since the previous call (and forget them)."""
        changes, self._changes = self._changes, {}
        return changes

    def snapshot(self) -> dict[str, Any]:
        """A copy of all current values."""
        return dict(self._values)


#: The race context of the current worker (set by the worker for each client task).
current_context: ContextVar[RaceContext | None] = ContextVar("esbench_race_context", default=None)


def race_context() -> RaceContext:
    """The current worker's race context (a private one when called outside the driver)."""
    ctx = current_context.get()
    if ctx is None:
        ctx = RaceContext()
        current_context.set(ctx)
    return ctx
