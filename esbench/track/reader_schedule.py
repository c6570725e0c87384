"""Challenges, schedules and parallel blocks of a track document.

A part of :class:`esbench.track.reader.TrackReader`, which mixes it in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from esbench.track.model import (
    Challenge,
    Operation,
    Parallel,
    ScheduleItem,
    Task,
)
from esbench.track.values import (
    Path_,
    merge_parameters,
)

if TYPE_CHECKING:
    from esbench.exceptions import TrackValidationError


class ScheduleReader:
    """The challenges and schedule part of :class:`TrackReader` (a mixin; see its docstring)."""

    if TYPE_CHECKING:  # provided by TrackReader

        def _error(self, path: Sequence[Any], message: str, fix: str) -> TrackValidationError: ...

        def _operations(self, specs: Sequence[Mapping[str, Any]]) -> dict[str, Operation]: ...

        def _task(
            self,
            spec: Mapping[str, Any],
            ops: Mapping[str, Operation],
            challenge: str,
            path: Path_,
            *,
            defaults: Mapping[str, Any] | None = None,
            completed_by: str | None = None,
        ) -> Task: ...

    # -- challenges -----------------------------------------------------------------------------

    def _challenge_specs(self, spec: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], Path_]]:
        given = [key for key in ("schedule", "challenge", "challenges") if spec.get(key) is not None]
        if not given:
            raise self._error(
                [],
                "the track defines neither 'challenges', 'challenge' nor 'schedule'",
                'Add a "schedule" (a list of tasks) or "challenges" to the track.',
            )
        if len(given) > 1:
            raise self._error(
                [given[1]],
                f"the track defines {' and '.join(repr(k) for k in given)} but only one of them is allowed",
                "Keep exactly one of 'challenges', 'challenge' and 'schedule'.",
            )
        key = given[0]
        if key == "challenge":
            return [(spec["challenge"], ("challenge",))]
        if key == "challenges":
            return [(c, ("challenges", i)) for i, c in enumerate(spec["challenges"])]
        return [({"name": "default", "schedule": spec["schedule"]}, ())]

    def _challenges(self, spec: Mapping[str, Any]) -> tuple[Challenge, ...]:
        ops = self._operations(spec.get("operations", []))
        track_parameters = spec.get("parameters") or {}
        specs = self._challenge_specs(spec)
        challenges: list[Challenge] = []
        default_name: str | None = None
        for challenge_spec, base in specs:
            name = challenge_spec["name"]
            default = len(specs) == 1 or bool(challenge_spec.get("default", False))
            if default and default_name is not None:
                raise self._error(
                    [*base, "default"],
                    f"both '{default_name}' and '{name}' are marked as default challenge",
                    'Mark only one challenge with "default": true.',
                )
            if any(c.name == name for c in challenges):
                raise self._error(
                    [*base, "name"],
                    f"duplicate challenge name '{name}'",
                    "Give every challenge a unique name.",
                )
            schedule_path = (*base, "schedule") if base else ("schedule",)
            schedule = self._schedule(challenge_spec["schedule"], ops, name, schedule_path)
            challenges.append(
                Challenge(
                    name=name,
                    schedule=schedule,
                    description=challenge_spec.get("description") or "",
                    user_info=challenge_spec.get("user-info"),
                    default=default,
                    parameters=merge_parameters(track_parameters, challenge_spec.get("parameters") or {}),
                    meta=dict(challenge_spec.get("meta") or {}),
                    auto_generated=not base,
                )
            )
            if default:
                default_name = name
        if default_name is None:
            names = ", ".join(c.name for c in challenges)
            raise self._error(
                ["challenges"],
                f"no challenge is marked as default (challenges: {names})",
                'Add "default": true to one of the challenges.',
            )
        return tuple(challenges)

    def _schedule(
        self, items: Sequence[Mapping[str, Any]], ops: Mapping[str, Operation], challenge: str, path: Path_
    ) -> tuple[ScheduleItem, ...]:
        schedule: list[ScheduleItem] = []
        for i, item in enumerate(items):
            if "parallel" in item:
                schedule.append(self._parallel(item["parallel"], ops, challenge, (*path, i, "parallel")))
            else:
                schedule.append(self._task(item, ops, challenge, (*path, i)))
        seen: set[str] = set()
        for i, scheduled in enumerate(schedule):
            for task in scheduled.tasks if isinstance(scheduled, Parallel) else (scheduled,):
                if task.name in seen:
                    raise self._error(
                        [*path, i],
                        f"challenge '{challenge}' has more than one task named '{task.name}'",
                        'Give the repeated tasks unique names with the task\'s "name" property.',
                    )
                seen.add(task.name)
        return tuple(schedule)

    def _parallel(
        self, spec: Mapping[str, Any], ops: Mapping[str, Operation], challenge: str, path: Path_
    ) -> Parallel:
        defaults = {
            key: spec.get(key)
            for key in (
                "warmup-iterations",
                "iterations",
                "warmup-time-period",
                "time-period",
                "ramp-up-time-period",
            )
        }
        completed_by = spec.get("completed-by")
        tasks: list[Task] = []
        for i, task_spec in enumerate(spec["tasks"]):
            if "parallel" in task_spec:
                raise self._error(
                    [*path, "tasks", i, "parallel"],
                    "'parallel' elements cannot be nested",
                    "Flatten the inner parallel block into the outer one.",
                )
            task_path = (*path, "tasks", i)
            if (
                "ramp-up-time-period" in task_spec
                and task_spec["ramp-up-time-period"] != defaults["ramp-up-time-period"]
            ):
                where = (
                    "it is only allowed on the 'parallel' element"
                    if defaults["ramp-up-time-period"] is None
                    else "it differs from the enclosing 'parallel' element"
                )
                raise self._error(
                    [*task_path, "ramp-up-time-period"],
                    f"a task in a 'parallel' element of challenge '{challenge}' sets ramp-up-time-period but "
                    f"{where}",
                    "Set ramp-up-time-period on the 'parallel' element only.",
                )
            tasks.append(
                self._task(task_spec, ops, challenge, task_path, defaults=defaults, completed_by=completed_by)
            )
        if completed_by:
            matching = [t for t in tasks if t.completes_parent]
            if len(matching) > 1:
                raise self._error(
                    [*path, "completed-by"],
                    f"more than one task is named '{completed_by}', the task given in completed-by",
                    "Give the tasks unique names.",
                )
            if not matching and completed_by != "any":
                names = ", ".join(t.name for t in tasks)
                raise self._error(
                    [*path, "completed-by"],
                    f"completed-by names the task '{completed_by}' but the 'parallel' element has no such "
                    "task "
                    f"(tasks: {names})",
                    'Use one of the task names, or "any" to end the block when its first task completes.',
                )
        return Parallel(tasks=tuple(tasks), clients=spec.get("clients"))
