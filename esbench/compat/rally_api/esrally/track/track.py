"""Rally's ``esrally.track.track`` (2.13): the mutable track classes plugins read and change.

The classes are :mod:`esbench.compat.trackview`'s (Rally's constructors and attributes); this module
adds Rally's ``OperationType`` enum and task filters.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any, cast

from esbench.compat.trackview import (
    Challenge,
    ComponentTemplate,
    DataStream,
    DocumentCorpus,
    Documents,
    Index,
    IndexTemplate,
    Operation,
    Parallel,
    Task,
    Track,
)
from esbench.compat.trackview import RallyThroughput as Throughput
from esbench.track.optypes import OPERATION_TYPES

__all__ = [
    "AdminStatus",
    "Challenge",
    "ComponentTemplate",
    "DataStream",
    "DocumentCorpus",
    "Documents",
    "Index",
    "IndexTemplate",
    "Operation",
    "OperationType",
    "Parallel",
    "Task",
    "TaskNameFilter",
    "TaskOpTypeFilter",
    "TaskTagFilter",
    "Throughput",
    "Track",
]


class AdminStatus(Enum):
    """Rally: whether an operation type is administrative (not shown in reports by default)."""

    Yes = True
    No = False


# Rally's operation types in its declaration order: (name, (id, administrative)), from the table of
# operation types (esbench's own types have no Rally id).
_TYPES = [(op.rally_name, (op.rally_id, op.admin)) for op in OPERATION_TYPES if op.rally_id is not None]


class _OperationTypeMixin:
    name: str
    value: Any

    @property
    def id(self) -> int:
        return cast("int", self.value[0])

    @property
    def admin_status(self) -> AdminStatus:
        return AdminStatus.Yes if self.value[1] else AdminStatus.No

    @property
    def admin_op(self) -> bool:
        return bool(self.value[1])

    def to_hyphenated_string(self) -> str:
        """``WaitForTransform`` -> ``wait-for-transform`` (Rally's rule)."""
        return "".join("-" + c.lower() if c.isupper() else c for c in self.name).lstrip("-")

    @classmethod
    def from_hyphenated_string(cls, v: str) -> Any:
        """The member whose hyphenated name is ``v`` (called on ``OperationType``).

        Raises:
            KeyError: no such operation type (as Rally).
        """
        for member in cast("Iterable[Any]", cls):  # cls is the OperationType enum
            if member.to_hyphenated_string() == v:
                return member
        raise KeyError(f"No enum value for [{v}]")


# mypy cannot follow an Enum whose members are computed (functional API over a generated list).
OperationType = Enum(  # type: ignore[misc]
    "OperationType",
    _TYPES,
    type=_OperationTypeMixin,
)


class TaskNameFilter:
    """Rally: matches a task by name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def matches(self, task: Any) -> bool:
        return bool(self.name == task.name)


class TaskOpTypeFilter:
    """Rally: matches a task by its operation type."""

    def __init__(self, op_type_name: str) -> None:
        self.op_type = op_type_name

    def matches(self, task: Any) -> bool:
        return bool(self.op_type == task.operation.type)


class TaskTagFilter:
    """Rally: matches a task by tag."""

    def __init__(self, tag_name: str) -> None:
        self.tag_name = tag_name

    def matches(self, task: Any) -> bool:
        return self.tag_name in task.tags
