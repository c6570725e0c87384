"""Why requests failed, under the summary report: the top error descriptions per task and the race log.

Rally's report only says "Please check the logs"; esbench shows, for every task with failed
requests (hidden administrative tasks included, as the error-rate warnings), the most frequent
distinct failures from ``TaskResult.error_descriptions`` (HTTP status, Elasticsearch error type,
reason, number of requests) and names the race log (``esbench.log``) when it is on this machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from esbench.console import tabulate
from esbench.records import describe_line

__all__ = [
    "HEADERS",
    "TITLE",
    "describe_line",
    "failure_csv_rows",
    "failure_json",
    "failure_rows",
    "log_hint",
]
from esbench.racelog import existing_race_log
from esbench.records import RaceResult, TaskResult
from esbench.reporting.formats import Cell

HEADERS: tuple[str, ...] = ("Task", "Requests", "HTTP status", "Error", "Reason")
#: Descriptions per task shown in text and markdown (json has all that were recorded).
TOP_PER_TASK = 5
#: Longest reason shown in text and markdown tables, in characters.
MAX_SHOWN_REASON = 200
TITLE = "Failed requests by reason"

#: Task, requests, HTTP status (``""`` when none), error type, reason.
Row = tuple[str, int, int | str, str, str]


class FailureJson(TypedDict):
    """One recorded error description of a task (:func:`failure_json`)."""

    task: str
    count: int
    error_type: str
    http_status: int | None
    es_type: str | None
    reason: str


def undescribed(task: TaskResult) -> int:
    """Failed requests of ``task`` that no recorded description covers (0 for races stored before
    descriptions existed: their failures are all undescribed and there is nothing to list)."""
    if not task.error_descriptions:
        return 0
    return max(task.error_count - sum(d.count for d in task.error_descriptions), 0)


def _shown(reason: str) -> str:
    return reason if len(reason) <= MAX_SHOWN_REASON else reason[: MAX_SHOWN_REASON - 1] + "…"


def failure_rows(race: RaceResult, *, top: int = TOP_PER_TASK) -> list[Row]:
    """Rows of :data:`HEADERS`: the ``top`` descriptions of each task with failures, then one row
    for the task's remaining failed requests (other or undescribed reasons), if any."""
    rows: list[Row] = []
    for t in race.tasks:
        shown = t.error_descriptions[:top]
        for d in shown:
            status = d.http_status if d.http_status is not None else ""
            rows.append((t.task, d.count, status, d.es_type or d.error_type, _shown(d.reason)))
        rest = t.error_count - sum(d.count for d in shown) if shown else 0
        if rest > 0:
            rows.append((t.task, rest, "", "", "(other reasons)"))
    return rows


def failure_table(race: RaceResult, *, markdown: bool = False) -> str:
    """The titled pipe table of :func:`failure_rows` (``""`` when no request failed with a
    recorded description); text is left-aligned so that reasons read naturally."""
    rows = failure_rows(race)
    if not rows:
        return ""
    table = tabulate(
        [list(r) for r in rows], headers=list(HEADERS), tablefmt="pipe", numalign="right", stralign="left"
    )
    title = f"**{TITLE}:**" if markdown else f"{TITLE}:"
    return f"{title}\n\n{table}"


def failure_json(race: RaceResult) -> list[FailureJson]:
    """Every recorded description: ``{"task", "count", "error_type", "http_status", "es_type",
    "reason"}``, per task in schedule order, most frequent first."""
    return [
        {
            "task": t.task,
            "count": d.count,
            "error_type": d.error_type,
            "http_status": d.http_status,
            "es_type": d.es_type,
            "reason": d.reason,
        }
        for t in race.tasks
        for d in t.error_descriptions
    ]


def failure_csv_rows(race: RaceResult, *, top: int = TOP_PER_TASK) -> list[tuple[str, str, Cell, str]]:
    """Rows for the summary's ``Metric | Task | Value | Unit`` CSV: ``failed requests: <description>``,
    task, number of requests, ``requests``."""
    return [
        (f"failed requests: {describe_line(d)}", t.task, d.count, "requests")
        for t in race.tasks
        for d in t.error_descriptions[:top]
    ]


def race_log(race: RaceResult) -> Path | None:
    """The race's log file if it is on this machine."""
    return existing_race_log(race.race_id)


def log_hint(race: RaceResult) -> str:
    """`` The race log is PATH.`` when the log exists here, else ``""``."""
    path = race_log(race)
    return f" The race log is {path}." if path is not None else ""
