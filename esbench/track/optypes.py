"""Rally's built-in operation types and which of them are administrative, read from the table of
operation types (:mod:`esbench.track.optable`).

Source: ``esrally/track/track.py``, ``OperationType`` (esrally 2.13): each member carries an
``admin_op`` flag. Administrative operations are left out of the summary report unless the
operation sets ``include-in-reporting: true``; other types (and types esbench does not know, e.g.
from track plugins) are reported by default. esbench's own types (``templated-request``) are not
Rally's built-ins: like a plugin's, they are reported by default.
"""

from __future__ import annotations

from esbench.track.optable import OPERATION_TYPES, OpType, Retries

__all__ = [
    "ADMIN_TYPES",
    "BUILTIN_TYPES",
    "NON_ADMIN_TYPES",
    "OPERATION_TYPES",
    "OpType",
    "Retries",
    "by_name",
    "is_admin",
    "is_builtin",
]

_RALLY: tuple[OpType, ...] = tuple(op for op in OPERATION_TYPES if op.rally_id is not None)

NON_ADMIN_TYPES: frozenset[str] = frozenset(op.name for op in _RALLY if not op.admin)
ADMIN_TYPES: frozenset[str] = frozenset(op.name for op in _RALLY if op.admin)
BUILTIN_TYPES: frozenset[str] = NON_ADMIN_TYPES | ADMIN_TYPES


def is_builtin(operation_type: str) -> bool:
    """True if ``operation_type`` is one of Rally's built-in operation types."""
    return operation_type in BUILTIN_TYPES


def is_admin(operation_type: str) -> bool:
    """True if ``operation_type`` is a built-in administrative operation (not reported by default)."""
    return operation_type in ADMIN_TYPES


def by_name(operation_type: str) -> OpType | None:
    """The descriptor of ``operation_type`` in :data:`OPERATION_TYPES`, or None (e.g. a plugin's type)."""
    return _BY_NAME.get(operation_type)


_BY_NAME: dict[str, OpType] = {op.name: op for op in OPERATION_TYPES}
