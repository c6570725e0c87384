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


# Rally's operation types in its declaration order: (name, id, administrative).
_TYPES = (
    "IndexStats 1 No;NodeStats 2 No;Search 3 No;Bulk 4 No;RawRequest 5 No;WaitForRecovery 6 No;"
    "WaitForSnapshotCreate 7 No;Composite 8 No;SubmitAsyncSearch 9 No;GetAsyncSearch 10 No;"
    "DeleteAsyncSearch 11 No;PaginatedSearch 12 No;ScrollSearch 13 No;OpenPointInTime 14 No;"
    "ClosePointInTime 15 No;Sql 16 No;FieldCaps 17 No;CompositeAgg 18 No;"
    "WaitForCurrentSnapshotsCreate 19 No;Downsample 20 No;Esql 21 No;EsqlProfile 59 No;"
    "ForceMerge 22 Yes;ClusterHealth 23 Yes;PutPipeline 24 Yes;Refresh 25 Yes;"
    "CreateIndex 26 Yes;DeleteIndex 27 Yes;CreateIndexTemplate 28 Yes;"
    "DeleteIndexTemplate 29 Yes;ShrinkIndex 30 Yes;CreateMlDatafeed 31 Yes;"
    "DeleteMlDatafeed 32 Yes;StartMlDatafeed 33 Yes;StopMlDatafeed 34 Yes;CreateMlJob 35 Yes;"
    "DeleteMlJob 36 Yes;OpenMlJob 37 Yes;CloseMlJob 38 Yes;Sleep 39 Yes;"
    "DeleteSnapshotRepository 40 Yes;CreateSnapshotRepository 41 Yes;CreateSnapshot 42 Yes;"
    "RestoreSnapshot 43 Yes;PutSettings 44 Yes;CreateTransform 45 Yes;StartTransform 46 Yes;"
    "WaitForTransform 47 Yes;DeleteTransform 48 Yes;CreateDataStream 49 Yes;"
    "DeleteDataStream 50 Yes;CreateComposableTemplate 51 Yes;DeleteComposableTemplate 52 Yes;"
    "CreateComponentTemplate 53 Yes;DeleteComponentTemplate 54 Yes;TransformStats 55 Yes;"
    "CreateIlmPolicy 56 Yes;DeleteIlmPolicy 57 Yes;RunUntil 58 No"
)


class _OperationTypeMixin:
    name: str
    value: Any

    @property
    def id(self) -> int:
        return self.value[0]

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
    [(n, (int(i), a == "Yes")) for n, i, a in (entry.split() for entry in _TYPES.split(";"))],
    type=_OperationTypeMixin,
)


class TaskNameFilter:
    """Rally: matches a task by name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def matches(self, task: Any) -> bool:
        return self.name == task.name


class TaskOpTypeFilter:
    """Rally: matches a task by its operation type."""

    def __init__(self, op_type_name: str) -> None:
        self.op_type = op_type_name

    def matches(self, task: Any) -> bool:
        return self.op_type == task.operation.type


class TaskTagFilter:
    """Rally: matches a task by tag."""

    def __init__(self, tag_name: str) -> None:
        self.tag_name = tag_name

    def matches(self, task: Any) -> bool:
        return self.tag_name in task.tags
