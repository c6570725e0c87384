"""The verdict of a race's last line: did every task measure something, and did any fail throughout?

Rally ends every race that ran to the end with ``[SUCCESS]``, also when every request of a task
failed (a query against a missing index) or a bulk task ended inside its warmup and measured
nothing. esbench says ``[SUCCESS]`` only when neither happened; otherwise the last line is
``[WARNING] completed with errors: ...`` naming the tasks (docs/metrics.md, "The last line").
``--fail-on-error-rate=PCT`` (:func:`worst_error_rate`) turns a high error rate into exit status 1.
"""

from __future__ import annotations

from dataclasses import dataclass

from esbench.records import RaceResult, describe_line


@dataclass(frozen=True, kw_only=True)
class TaskProblem:
    """Why one task's result cannot be read as a measurement.

    Attributes:
        task: the task's name.
        reason: what happened, e.g. ``failed on every request (200 of 200)``.
    """

    task: str
    reason: str

    def __str__(self) -> str:
        return f"task '{self.task}' {self.reason}"


def race_problems(race: RaceResult) -> tuple[TaskProblem, ...]:
    """The tasks of ``race`` that failed on every measurement request (any task, administrative ones
    included: a failing delete-index can spoil what follows), or that are reported but recorded no
    measurement sample (all in the warmup, or no request at all). Empty when the race is sound."""
    problems = []
    for t in race.tasks:
        if t.sample_count and t.error_count >= t.sample_count:
            top = f": {describe_line(t.error_descriptions[0])}" if t.error_descriptions else ""
            reason = f"failed on every request ({t.error_count} of {t.sample_count}{top})"
            problems.append(TaskProblem(task=t.task, reason=reason))
        elif t.include_in_reporting and t.sample_count == 0:
            reason = (
                f"measured nothing: its {t.warmup_sample_count} requests all fell inside its warmup"
                if t.warmup_sample_count
                else "measured nothing: it recorded no request"
            )
            problems.append(TaskProblem(task=t.task, reason=reason))
    return tuple(problems)


def worst_error_rate(race: RaceResult) -> tuple[str, float] | None:
    """``(task, error rate in %)`` of the task with the highest error rate, or None without requests."""
    rates = [(t.task, t.error_count / t.sample_count * 100.0) for t in race.tasks if t.sample_count]
    return max(rates, key=lambda tr: tr[1]) if rates else None


def last_line_status(race_status: str, problems: tuple[TaskProblem, ...]) -> str:
    """The bracketed word and text that open the last line: ``[SUCCESS]``, ``[WARNING] completed with
    errors: <problems>``, ``[FAILURE]`` or ``[INTERRUPTED]`` (``race_status`` a RaceStatus value)."""
    if race_status == "completed":
        if not problems:
            return "[SUCCESS]"
        return "[WARNING] completed with errors: " + "; ".join(str(p) for p in problems) + ";"
    return {"failed": "[FAILURE]", "interrupted": "[INTERRUPTED]"}.get(
        race_status, f"[{race_status.upper()}]"
    )
