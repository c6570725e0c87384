"""``--include-tasks`` / ``--exclude-tasks``: select the tasks of a challenge to run (pure).

Each filter is a task name, ``type:<operation-type>`` or ``tag:<tag>`` (Rally's
``filters_from_filtered_tasks`` and ``TaskNameFilter``/``TaskOpTypeFilter``/``TaskTagFilter``).
Rally's semantics (esrally/track/loader.py ``filter_tasks``):

* include: a task is kept if any filter matches it. A ``parallel`` block is kept if any of its
  tasks matches, and then only its matching tasks are kept.
* exclude: a task is dropped if any filter matches it. A ``parallel`` block is never dropped as a
  whole by a match; its matching tasks are dropped (a block left without tasks is dropped).

Administrative tasks get no special treatment: like Rally 2.x, ``--include-tasks=type:search``
also drops ``delete-index``/``create-index``, so the indices must already exist.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from esbench.exceptions import ConfigError
from esbench.track.model import Challenge, Parallel, ScheduleItem, Task

KINDS = ("name", "type", "tag")


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskFilter:
    """One filter: ``kind`` is ``name``, ``type`` or ``tag``."""

    kind: str
    value: str

    def matches(self, task: Task) -> bool:
        """True if ``task`` matches this filter."""
        if self.kind == "name":
            return task.name == self.value
        if self.kind == "type":
            return task.operation.operation_type == self.value
        return self.value in task.tags

    def __str__(self) -> str:
        return self.value if self.kind == "name" else f"{self.kind}:{self.value}"


def parse_task_filters(specs: Sequence[str], *, option: str = "--include-tasks") -> tuple[TaskFilter, ...]:
    """Parse filter specs (already split at commas; blanks ignored).

    Raises:
        esbench.exceptions.ConfigError: a spec with an unknown prefix or an empty value.
    """
    filters = []
    for raw in specs:
        spec = raw.strip()
        if not spec:
            continue
        kind, sep, value = spec.partition(":")
        if not sep:
            filters.append(TaskFilter(kind="name", value=spec))
            continue
        if kind not in ("type", "tag") or not value or ":" in value:
            raise ConfigError(
                f"Invalid task filter '{spec}' in {option}. Use a task name, 'type:<operation-type>' "
                f"or 'tag:<tag>', separated by commas (e.g. {option}=\"index-append,type:search\")."
            )
        filters.append(TaskFilter(kind=kind, value=value))
    return tuple(filters)


def _matches(item: ScheduleItem, filters: Sequence[TaskFilter]) -> bool:
    tasks = item.tasks if isinstance(item, Parallel) else (item,)
    return any(f.matches(t) for f in filters for t in tasks)


def _keep_tasks(item: Parallel, keep: Sequence[Task]) -> ScheduleItem | None:
    if not keep:
        return None
    if len(keep) == len(item.tasks):
        return item
    return dataclasses.replace(item, tasks=tuple(keep))


def filter_schedule(
    challenge: Challenge,
    *,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> Challenge:
    """The challenge with its schedule filtered (include first, then exclude; see module doc).

    Raises:
        esbench.exceptions.ConfigError: an invalid filter, or include filters that match no task
            (the message lists the challenge's tasks).
    """
    include_filters = parse_task_filters(include, option="--include-tasks")
    exclude_filters = parse_task_filters(exclude, option="--exclude-tasks")
    if not include_filters and not exclude_filters:
        return challenge
    schedule: list[ScheduleItem] = list(challenge.schedule)
    if include_filters:
        if not any(_matches(item, include_filters) for item in schedule):
            names = ", ".join(f"{t.name} (type:{t.operation.operation_type})" for t in challenge.tasks())
            wanted = ",".join(str(f) for f in include_filters)
            raise ConfigError(
                f"--include-tasks={wanted} matches no task of challenge '{challenge.name}'. "
                f"Its tasks are: {names}."
            )
        kept: list[ScheduleItem] = []
        for item in schedule:
            if not _matches(item, include_filters):
                continue
            if isinstance(item, Parallel):
                filtered = _keep_tasks(
                    item, [t for t in item.tasks if any(f.matches(t) for f in include_filters)]
                )
                if filtered is not None:
                    kept.append(filtered)
            else:
                kept.append(item)
        schedule = kept
    if exclude_filters:
        kept = []
        for item in schedule:
            if isinstance(item, Parallel):
                filtered = _keep_tasks(
                    item, [t for t in item.tasks if not any(f.matches(t) for f in exclude_filters)]
                )
                if filtered is not None:
                    kept.append(filtered)
            elif not any(f.matches(item) for f in exclude_filters):
                kept.append(item)
        schedule = kept
    return dataclasses.replace(challenge, schedule=tuple(schedule))
