"""Task overrides: change one task's clients, target-throughput, bulk-size or time periods.

A track -> track rewrite, so it lives with the track model: planning varies these per race without
editing the track, :func:`apply_task_overrides` rewrites the loaded (frozen)
:class:`~esbench.track.model.Track` with :func:`dataclasses.replace`, and race control calls it once,
right after loading the track, with ``RaceSettings.task_overrides``. Neither planning nor race
control imports the other for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from esbench.exceptions import ConfigError
from esbench.track.model import Challenge, Parallel, Task, Throughput, Track


@dataclass(frozen=True, kw_only=True)
class TaskOverride:
    """What to change in one task; None leaves the track's value.

    Attributes:
        clients: number of clients (>= 1).
        target_throughput: overall target in ``target_throughput_unit`` (``ops/s`` or e.g. ``docs/s``).
        target_throughput_unit: the unit of ``target_throughput``.
        bulk_size: the operation's ``bulk-size`` (documents per bulk request).
        time_period / warmup_time_period: seconds (replace iterations-based limits).
    """

    clients: int | None = None
    target_throughput: float | None = None
    target_throughput_unit: str = "ops/s"
    bulk_size: int | None = None
    time_period: float | None = None
    warmup_time_period: float | None = None

    def describe(self) -> str:
        """``clients=4, target-throughput=50 ops/s`` (only what is set)."""
        parts = []
        if self.clients is not None:
            parts.append(f"clients={self.clients}")
        if self.target_throughput is not None:
            parts.append(f"target-throughput={self.target_throughput:g} {self.target_throughput_unit}")
        if self.bulk_size is not None:
            parts.append(f"bulk-size={self.bulk_size}")
        if self.time_period is not None:
            parts.append(f"time-period={self.time_period:g}s")
        if self.warmup_time_period is not None:
            parts.append(f"warmup-time-period={self.warmup_time_period:g}s")
        return ", ".join(parts)


def apply_task_overrides(
    track: Track, challenge_name: str | None, overrides: Mapping[str, TaskOverride]
) -> Track:
    """The track with ``overrides`` (task name -> override) applied to tasks of one challenge.

    Args:
        track: the loaded track.
        challenge_name: the challenge to change (None = the default challenge).
        overrides: task name -> :class:`TaskOverride`; empty returns ``track`` unchanged.

    Raises:
        ConfigError: a task name that is not in the challenge (the message lists its tasks), an
            override that makes no sense (clients < 1, a non-positive rate or bulk size), or a bulk
            size for a task whose operation is not ``bulk`` and has no ``bulk-size`` parameter.
    """
    if not overrides:
        return track
    challenge = track.find_challenge(challenge_name)
    names = [t.name for t in challenge.tasks()]
    missing = [n for n in overrides if n not in names]
    if missing:
        raise ConfigError(
            f"Task '{missing[0]}' is not in challenge '{challenge.name}' of track '{track.name}'. "
            f"Its tasks are: {', '.join(names)}. Give one of them with --task."
        )
    for name, override in overrides.items():
        _validate(name, override)
    by_name = {t.name: t for t in challenge.tasks()}
    for name, override in overrides.items():
        operation = by_name[name].operation
        # A bulk size on a search would change nothing: every point would measure the same race and
        # the optimiser would name a "best" value of a parameter the task does not have.
        if (
            override.bulk_size is not None
            and operation.operation_type != "bulk"
            and "bulk-size" not in operation.params
        ):
            bulk = [t.name for t in challenge.tasks() if t.operation.operation_type == "bulk"]
            hint = f"Its bulk tasks: {', '.join(bulk)}." if bulk else "The challenge has no bulk task."
            raise ConfigError(
                f"Task '{name}' of challenge '{challenge.name}' runs a {operation.operation_type} operation, "
                f"which has no bulk size: a bulk-size cannot be set or optimised for it. Give a bulk task "
                f"with --task. {hint}"
            )

    def rewrite(task: Task) -> Task:
        override = overrides.get(task.name)
        return _apply(task, override) if override is not None else task

    schedule = tuple(
        replace(item, tasks=tuple(rewrite(t) for t in item.tasks))
        if isinstance(item, Parallel)
        else rewrite(item)
        for item in challenge.schedule
    )
    new_challenge: Challenge = replace(challenge, schedule=schedule)
    challenges = tuple(new_challenge if c is challenge else c for c in track.challenges)
    return replace(track, challenges=challenges)


def _validate(name: str, o: TaskOverride) -> None:
    problems = []
    if o.clients is not None and o.clients < 1:
        problems.append(f"clients must be at least 1 (got {o.clients})")
    if o.target_throughput is not None and not o.target_throughput > 0:
        problems.append(f"target-throughput must be positive (got {o.target_throughput})")
    if o.bulk_size is not None and o.bulk_size < 1:
        problems.append(f"bulk-size must be at least 1 (got {o.bulk_size})")
    for label, value in (("time-period", o.time_period), ("warmup-time-period", o.warmup_time_period)):
        if value is not None and value < 0:
            problems.append(f"{label} must not be negative (got {value})")
    if problems:
        raise ConfigError(f"Invalid override of task '{name}': {'; '.join(problems)}.")


def _apply(task: Task, o: TaskOverride) -> Task:
    changes: dict[str, Any] = {}
    if o.clients is not None:
        changes["clients"] = o.clients
    if o.target_throughput is not None:
        changes["target_throughput"] = Throughput(
            value=float(o.target_throughput), unit=o.target_throughput_unit
        )
        changes["target_interval"] = None
    if o.bulk_size is not None:
        params = dict(task.operation.params)
        params["bulk-size"] = o.bulk_size
        # batch-size must be a multiple of bulk-size; the track's value was chosen for its own bulk size.
        params.pop("batch-size", None)
        changes["operation"] = replace(task.operation, params=params)
    if o.time_period is not None:
        changes["time_period"] = o.time_period
        changes["iterations"] = None
    if o.warmup_time_period is not None:
        changes["warmup_time_period"] = o.warmup_time_period
        changes["warmup_iterations"] = None
    return replace(task, **changes)
