"""Why a client is waiting: a retried operation's last reason, for live progress and the race log.

An operation with ``retry-until-success`` (Rally's ``cluster-health`` waiting for ``green``, for
example) can wait forever. The retry wrapper (:class:`esbench.driver.worker.runners.base.Retry`) writes
the reason of each failed attempt into the client's :class:`WaitNote`, found through a context
variable that :class:`esbench.driver.worker.executor.ClientExecutor` sets for its client (every client
is its own asyncio task, so the variable is per client). The worker sends the note with its
progress reports; the coordinator shows it every :data:`WAIT_NOTE_INTERVAL` seconds.
"""

from __future__ import annotations

import time
from contextvars import ContextVar

#: Seconds between two notes about the same waiting task (terminal and race log).
WAIT_NOTE_INTERVAL = 5.0


class WaitNote:
    """The current wait of one client: ``reason`` (None when not waiting), ``since`` (monotonic s)
    and ``attempts`` (failed attempts so far)."""

    __slots__ = ("attempts", "reason", "since")

    def __init__(self) -> None:
        self.reason: str | None = None
        self.since: float | None = None
        self.attempts = 0

    def describe(self) -> str | None:
        """``"<reason> (waiting 12 s, 24 failed attempts)"``, or None when the client is not waiting
        or has waited less than :data:`WAIT_NOTE_INTERVAL` (most waits end quickly)."""
        if self.reason is None or self.since is None:
            return None
        waited = time.monotonic() - self.since
        if waited < WAIT_NOTE_INTERVAL:
            return None
        return f"{self.reason} (waiting {waited:.0f} s, {self.attempts} failed attempt(s))"


current_wait: ContextVar[WaitNote | None] = ContextVar("esbench_wait_note", default=None)


def note_waiting(reason: str) -> None:
    """Record that the current client retries because of ``reason`` (no-op outside a client)."""
    note = current_wait.get()
    if note is None:
        return
    if note.since is None:
        note.since = time.monotonic()
    note.reason = reason
    note.attempts += 1


def expect_wait(reason: str) -> None:
    """Record that the current client sends a request that may wait (``wait_for_status``), unless
    a failed attempt already said more."""
    note = current_wait.get()
    if note is not None and note.reason is None:
        note.reason = reason
        note.since = time.monotonic()


def update_wait(reason: str) -> None:
    """Replace the current client's waiting reason with a newer one (e.g. the status now), keeping
    when the wait began and the failed attempts so far; no-op when the client is not waiting."""
    note = current_wait.get()
    if note is not None and note.reason is not None:
        note.reason = reason


def done_waiting() -> None:
    """The current client's retried operation ended (succeeded or gave up)."""
    note = current_wait.get()
    if note is not None:
        note.reason = note.since = None
        note.attempts = 0
