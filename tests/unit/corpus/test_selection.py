"""corpora_read: which corpora a challenge's tasks read (race control and ``esbench download``)."""

from __future__ import annotations

from pathlib import Path

from esbench.corpus import corpora_read
from esbench.track.model import DocumentCorpus, Operation, Task, Track


def _track(*names: str) -> Track:
    return Track(
        name="t",
        root=Path("."),
        challenges=(),
        corpora=tuple(DocumentCorpus(name=n, documents=()) for n in names),
    )


def _task(operation_type: str, **params: object) -> Task:
    operation = Operation(name="op", operation_type=operation_type, params=params)
    return Task(name=operation_type, operation=operation)


def test_only_bulk_tasks_read_corpora() -> None:
    assert corpora_read(_track("a", "b"), [_task("search"), _task("create-index")]) == []
    assert corpora_read(_track(), [_task("bulk")]) == []


def test_a_bulk_task_without_corpora_reads_all_of_them_in_track_order() -> None:
    assert corpora_read(_track("b", "a"), [_task("search"), _task("bulk")]) == ["b", "a"]


def test_named_corpora_in_track_order_then_unknown_names() -> None:
    track = _track("a", "b", "c")
    tasks = [_task("bulk", corpora="c"), _task("bulk", corpora=["zz", "a"])]
    assert corpora_read(track, tasks) == ["a", "c", "zz"]
