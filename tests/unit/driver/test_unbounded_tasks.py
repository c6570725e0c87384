"""A task with warmup-time-period, no time-period and an operation that never ends by itself: Rally
2.13 runs it (``TimePeriodBased(warmup, None)``); esbench runs it too, silently when its parallel
block's ``completed-by`` task ends it, with a warning otherwise (it used to refuse both)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from esbench.driver.coordinator.allocator import plan_schedule
from esbench.driver.coordinator.checks import check_tasks
from esbench.driver.worker.registry import default_registry
from esbench.track.model import Challenge, Operation, Parallel, Task, Track

WARNING = "does not end by itself"


def search(name: str = "search", **fields: object) -> Task:
    op = Operation(name=name, operation_type="search", params={"index": "i", "body": {}})
    return Task(name=name, operation=op, warmup_time_period=1.0, **fields)  # type: ignore[arg-type]


def sleeper(**fields: object) -> Task:
    op = Operation(name="sleeper", operation_type="sleep", params={"duration": 0})
    return Task(name="sleeper", operation=op, iterations=3, **fields)  # type: ignore[arg-type]


def check(*items: Task | Parallel, caplog: pytest.LogCaptureFixture) -> list[str]:
    track = Track(name="t", root=Path("."), challenges=(Challenge(name="c", schedule=items, default=True),))
    with caplog.at_level(logging.WARNING, logger="esbench.driver.coordinator.checks"):
        check_tasks(plan_schedule(items, max_workers=2), default_registry(), track, corpora=None)
    return [r.getMessage() for r in caplog.records if WARNING in r.getMessage()]


def test_ended_by_the_blocks_completed_by_task_runs_without_warning(caplog: pytest.LogCaptureFixture) -> None:
    block = Parallel(tasks=(sleeper(completes_parent=True), search()))
    assert check(block, caplog=caplog) == []


def test_completed_by_any_also_ends_it(caplog: pytest.LogCaptureFixture) -> None:
    block = Parallel(tasks=(sleeper(any_completes_parent=True), search(any_completes_parent=True)))
    assert check(block, caplog=caplog) == []


@pytest.mark.parametrize(
    "item",
    [
        search(),
        Parallel(tasks=(sleeper(), search())),
        Parallel(tasks=(sleeper(), search(completes_parent=True))),
    ],
    ids=["alone", "block-without-completed-by", "completed-by-itself"],
)
def test_nothing_ends_it_runs_with_a_warning(item: Task | Parallel, caplog: pytest.LogCaptureFixture) -> None:
    warnings = check(item, caplog=caplog)
    assert len(warnings) == 1
    assert "Task 'search'" in warnings[0] and "runs until the race is interrupted" in warnings[0]


def test_a_time_period_bounds_it(caplog: pytest.LogCaptureFixture) -> None:
    assert check(search(time_period=2.0), caplog=caplog) == []
