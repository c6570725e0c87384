"""Rally's (and OpenSearch Benchmark's) built-in operation types and which of them are
administrative, read from the table of operation types (:mod:`esbench.track.optable`).

Source: ``esrally/track/track.py``, ``OperationType`` (esrally 2.13): each member carries an
``admin_op`` flag. Administrative operations are left out of the summary report unless the
operation sets ``include-in-reporting: true``; other types (and types esbench does not know, e.g.
from track plugins) are reported by default. esbench's own types (``templated-request``) are not
Rally's built-ins: like a plugin's, they are reported by default.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass

from esbench.track.model import Challenge
from esbench.track.optable import OPERATION_TYPES, OpType, Retries

__all__ = [
    "ADMIN_TYPES",
    "BUILTIN_TYPES",
    "NON_ADMIN_TYPES",
    "OPERATION_TYPES",
    "OpType",
    "Retries",
    "UnknownOperationType",
    "by_name",
    "is_admin",
    "is_builtin",
    "unknown_operation_types",
]

# OSB's own types count as built-in as well: OSB's loader gives them the same default
# (osbenchmark/workload/loader.py: include-in-reporting = not admin_op).
_BUILTIN: tuple[OpType, ...] = tuple(
    op for op in OPERATION_TYPES if op.rally_id is not None or (op.osb_id is not None and not op.refused)
)

NON_ADMIN_TYPES: frozenset[str] = frozenset(op.name for op in _BUILTIN if not op.admin)
ADMIN_TYPES: frozenset[str] = frozenset(op.name for op in _BUILTIN if op.admin)
BUILTIN_TYPES: frozenset[str] = NON_ADMIN_TYPES | ADMIN_TYPES


def is_builtin(operation_type: str) -> bool:
    """True if ``operation_type`` is one of Rally's or OSB's built-in operation types (not one
    esbench refuses)."""
    return operation_type in BUILTIN_TYPES


def is_admin(operation_type: str) -> bool:
    """True if ``operation_type`` is a built-in administrative operation (not reported by default)."""
    return operation_type in ADMIN_TYPES


def by_name(operation_type: str) -> OpType | None:
    """The descriptor of ``operation_type`` in :data:`OPERATION_TYPES`, or None (e.g. a plugin's type)."""
    return _BY_NAME.get(operation_type)


_BY_NAME: dict[str, OpType] = {op.name: op for op in OPERATION_TYPES}


@dataclass(frozen=True, kw_only=True)
class UnknownOperationType:
    """A task whose ``operation-type`` no runner serves, with the known types that look like it.

    Attributes:
        challenge / task: where it is.
        operation_type: the type as the track spells it.
        suggestions: up to three known types closest to it (difflib), best first; may be empty.
    """

    challenge: str
    task: str
    operation_type: str
    suggestions: tuple[str, ...]

    def describe(self) -> str:
        """One sentence naming the task and the type, with a did-you-mean when there is one; for
        a type esbench refuses (:attr:`OpType.refused`), the reason and what to use instead."""
        descriptor = _BY_NAME.get(self.operation_type)
        if descriptor is not None and descriptor.refused:
            return (
                f"Task '{self.task}' of challenge '{self.challenge}' has the operation-type "
                f"'{self.operation_type}', which esbench cannot run: {descriptor.refused}"
            )
        hint = f" Did you mean '{self.suggestions[0]}'?" if self.suggestions else ""
        return (
            f"Task '{self.task}' of challenge '{self.challenge}' has the operation-type "
            f"'{self.operation_type}', which is neither one of Rally's or esbench's operation types nor "
            f"registered by the track's plugins.{hint}"
        )


def unknown_operation_types(
    challenges: Iterable[Challenge], known: Iterable[str] | None = None
) -> tuple[UnknownOperationType, ...]:
    """The tasks of ``challenges`` whose operation type is not in ``known``, in schedule order.

    Rally accepts any ``operation-type`` when it loads a track (esrally/track/loader.py: a type that
    is not an ``OperationType`` member may be a plugin's, registered later by ``register(registry)``
    in track.py) and fails only when a worker reaches the task (esrally/driver/runner.py
    ``runner_for``: "No runner available for operation-type"). So the check needs the types the
    track's plugins registered: pass them in ``known`` (the race's registry); without ``known`` only
    the built-in types (:data:`OPERATION_TYPES`) count.

    Args:
        challenges: the challenges to check.
        known: every operation type that has a runner; None = the built-in ones.
    """
    names = sorted(set(known) if known is not None else {op.name for op in OPERATION_TYPES if not op.refused})
    name_set = frozenset(names)
    found: list[UnknownOperationType] = []
    for challenge in challenges:
        for task in challenge.tasks():
            op_type = task.operation.operation_type
            if op_type in name_set:
                continue
            found.append(
                UnknownOperationType(
                    challenge=challenge.name,
                    task=task.name,
                    operation_type=op_type,
                    suggestions=tuple(difflib.get_close_matches(op_type, names, n=3, cutoff=0.6)),
                )
            )
    return tuple(found)
