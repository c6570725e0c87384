"""OSB's ``osbenchmark.workload.workload`` (2.4.0): Rally's track classes under OSB's names.

OSB renamed ``Track`` to ``Workload`` and ``Challenge`` to ``TestProcedure``; the other classes
keep Rally's names. They are the ``esrally`` stand-in's classes (:mod:`esbench.compat.trackview`),
so a workload processor reads and changes the same objects a Rally track processor does.
"""

from __future__ import annotations

from esrally.track.track import (
    AdminStatus,
    ComponentTemplate,
    DataStream,
    DocumentCorpus,
    Documents,
    Index,
    IndexTemplate,
    Operation,
    OperationType,
    Parallel,
    Task,
    TaskNameFilter,
    TaskOpTypeFilter,
    TaskTagFilter,
)
from esrally.track.track import Challenge as TestProcedure
from esrally.track.track import Track as Workload

__all__ = [
    "AdminStatus",
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
    "TestProcedure",
    "Workload",
]
