"""Live progress of a race: a rich display on a terminal, plain lines otherwise.

Fed by the driver's :class:`~esbench.driver.coordinator.run.Progress` callback (about once a second per
running task). On a terminal every task gets a row that updates in place: task name, a bar with the
percentage done (a pulsing bar for tasks that end at an unknown point), the elapsed time of the
task, the current throughput (over the last progress interval, warmup included) and the error count
so far. A task whose clients retry an operation that does not succeed (``cluster-health`` below
the wanted status) gets a ``[WAITING]`` line with the reason every few seconds. When the stream is
not a terminal (CI logs, ``2> file``) each report is one plain line, as
before. ``--quiet`` shows neither.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, TypedDict

from esbench.console import Console
from esbench.driver.coordinator.run import Progress
from esbench.driver.worker.waits import WAIT_NOTE_INTERVAL

if TYPE_CHECKING:
    from rich.progress import Progress as RichProgress
    from rich.progress import TaskID


def wait_line(p: Progress) -> str:
    """The line that says why a task waits (``p.waiting`` is set)."""
    return f"[WAITING] {p.task}: {p.waiting}"


def rate_text(p: Progress) -> str:
    """The throughput of a progress report as words that say what is happening.

    The rate counts responses (a bulk's documents when its response arrives), so while long requests
    are in flight it is 0 although the cluster is busy: then the text says no response arrived rather
    than "0 docs/s".
    """
    if p.throughput is None:
        return ""
    if p.samples == 0:
        return "waiting for the first response"
    if p.throughput == 0:
        return "no response since the last report (requests in flight or paused)"
    return f"{p.throughput:,.0f} {p.unit}"


def progress_line(p: Progress) -> str:
    """The plain one-line form of a progress report (non-terminal output)."""
    done = f"{p.percent_done:5.1f}%" if p.percent_done is not None else "     "
    errors = f" {p.errors:,} errors" if p.errors else ""
    return f"Running {p.task:<30} [{done}] {p.elapsed_s:7.1f}s {rate_text(p)}{errors}"


class _Fields(TypedDict):
    """The extra columns of a task's row (the ``task.fields[...]`` of the rich columns)."""

    elapsed: str
    rate: str
    errors: str


def _fields(p: Progress) -> _Fields:
    minutes, seconds = divmod(int(p.elapsed_s), 60)
    return {
        "elapsed": f"{minutes:d}:{seconds:02d}",
        "rate": rate_text(p),
        "errors": f"{p.errors:,} errors" if p.errors else "no errors",
    }


class LiveProgress:
    """A context manager whose value is the driver's progress callback.

    Args:
        console: decides where (its stream), whether (not quiet) and how (terminal or not).
    """

    def __init__(self, console: Console) -> None:
        self._console = console
        self._rich: RichProgress | None = None
        self._rows: dict[str, TaskID] = {}
        #: Task name -> monotonic time its wait was last shown.
        self._wait_shown: dict[str, float] = {}

    def __enter__(self) -> Callable[[Progress], None]:
        if not self._console.quiet and self._console.is_tty:
            from rich.console import Console as RichConsole
            from rich.progress import BarColumn, TaskProgressColumn, TextColumn
            from rich.progress import Progress as RichProgress

            rich = RichProgress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TaskProgressColumn(),
                TextColumn("{task.fields[elapsed]}"),
                TextColumn("{task.fields[rate]}"),
                TextColumn("{task.fields[errors]}"),
                console=RichConsole(file=self._console.stream),
                refresh_per_second=4,
            )
            self._rich = rich
            rich.start()
            return self._show_rich
        return self._show_plain

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._rich is not None:
            self._rich.stop()
        else:
            self._console.end_progress()

    def _wait_due(self, p: Progress) -> bool:
        # A wait that may never end says why, every WAIT_NOTE_INTERVAL seconds.
        now = time.monotonic()
        if not p.waiting or now - self._wait_shown.get(p.task, -WAIT_NOTE_INTERVAL) < WAIT_NOTE_INTERVAL:
            return False
        self._wait_shown[p.task] = now
        return True

    def _show_plain(self, p: Progress) -> None:
        self._console.progress(progress_line(p))
        if self._wait_due(p):
            self._console.info(wait_line(p))

    def _show_rich(self, p: Progress) -> None:
        # Only handed out by __enter__ after it set the rich display.
        assert self._rich is not None
        row = self._rows.get(p.task)
        total = 100.0 if p.percent_done is not None else None
        if row is None:
            row = self._rich.add_task(p.task, total=total, **_fields(p))
            self._rows[p.task] = row
        self._rich.update(row, total=total, completed=p.percent_done or 0.0, **_fields(p))
        if self._wait_due(p):
            self._rich.console.print(wait_line(p), markup=False, highlight=False, soft_wrap=True)
