"""Where plugin objects are made: never in the coordinator's checks, per client in the worker."""

from __future__ import annotations

from pathlib import Path

import pytest

from esbench.compat import default_registry
from esbench.driver.coordinator.allocator import plan_schedule
from esbench.driver.coordinator.checks import check_tasks
from esbench.exceptions import ConfigError
from esbench.track.model import Challenge, Operation, Task, Throughput, Track

made: list[str] = []


class CountingScheduler:
    def __init__(self, task, target_throughput):
        made.append(f"scheduler:{task.name}")

    def next(self, current):
        return current + 1


class CountingSource:
    def __init__(self, track, params, **kwargs):
        made.append("source")

    def partition(self, partition_index, total_partitions):
        return self

    def params(self):
        return {}


def _track(schedule: str) -> tuple[Track, Task]:
    task = Task(
        name="t1",
        operation=Operation(
            name="op", operation_type="sleep", params={"duration": 0}, param_source="counting"
        ),
        schedule=schedule,
        target_throughput=Throughput(value=10.0),
        iterations=1,
    )
    challenge = Challenge(name="c", schedule=(task,), default=True)
    return Track(name="t", root=Path("/nonexistent"), challenges=(challenge,)), task


def test_the_coordinator_makes_no_plugin_scheduler_or_param_source():
    registry = default_registry()
    registry.register_scheduler("counting", CountingScheduler)
    registry.register_param_source("counting", CountingSource)
    track, task = _track("counting")
    made.clear()
    check_tasks(plan_schedule((task,), max_workers=2), registry, track, corpora=None)
    assert made == []


def test_an_unknown_schedule_is_still_found_before_the_race():
    registry = default_registry()
    registry.register_param_source("counting", CountingSource)
    track, task = _track("no-such-schedule")
    with pytest.raises(ConfigError, match="no-such-schedule"):
        check_tasks(plan_schedule((task,), max_workers=2), registry, track, corpora=None)


def test_plugin_param_sources_get_the_rally_shaped_track_once_per_process():
    from esbench.compat.trackview import Track as RallyTrack

    seen = []

    class Source(CountingSource):
        def __init__(self, track, params, **kwargs):
            seen.append(track)

    registry = default_registry()
    registry.register_param_source("counting", Source)
    track, task = _track("deterministic")
    registry.param_source(task, track)
    registry.param_source(task, track)
    assert isinstance(seen[0], RallyTrack) and seen[0] is seen[1]
    assert seen[0].challenges[0].schedule[0].operation.param_source == "counting"
