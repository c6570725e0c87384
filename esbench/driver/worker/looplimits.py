"""How long one client runs a task: Rally's choice between time- and iteration-based loops
(``esrally/driver/driver.py`` ``schedule_for``, ``requires_time_period_schedule``).

A time-based task without ``time-period`` whose operation never ends by itself (a search with a
``warmup-time-period`` only) has no deadline, as in Rally's ``TimePeriodBased(warmup, None)``: it
runs until its ``parallel`` block's ``completed-by`` task ends it, or until the race is stopped.
:func:`unbounded` names that case; the coordinator warns about it when nothing ends it
(:mod:`esbench.driver.coordinator.checks`).
"""

from __future__ import annotations

from typing import Any

from esbench.driver.worker.params.base import is_infinite
from esbench.driver.worker.params.protocol import ClientParamSource
from esbench.exceptions import ConfigError
from esbench.track.model import Task


def loop_limits(task: Task, runner: Any, source: ClientParamSource) -> tuple[bool, int | None, int]:
    """Rally's choice between time- and iteration-based loops for one client.

    Returns:
        ``(time_based, total_iterations or None, warmup_iterations)``.

    Raises:
        esbench.exceptions.ConfigError: zero iterations.
    """
    if task.warmup_time_period is not None or task.time_period is not None:
        return True, None, 0
    if task.warmup_iterations is not None or task.iterations is not None:
        warmup = task.warmup_iterations or 0
        iterations = task.iterations
        if iterations is None:
            iterations = 1 if is_infinite(source) else None
        total = warmup + iterations if iterations is not None else None
        if total == 0:
            raise ConfigError(
                f"Task '{task.name}' must run at least one iteration (warmup-iterations + iterations)."
            )
        return False, total, warmup
    if getattr(runner, "completed", None) is not None or not is_infinite(source):
        return True, None, 0
    return False, 1, 0


def unbounded(task: Task, runner: Any, source: ClientParamSource) -> bool:
    """Whether a client of ``task`` runs without end of its own: time-based (a
    ``warmup-time-period``) without ``time-period``, an operation whose runner does not say when it
    is done (``completed``), and a param source without end. Rally 2.13 runs such a task until
    something else stops it (``TimePeriodBased`` with ``time_period=None``)."""
    return (
        task.warmup_time_period is not None
        and task.time_period is None
        and getattr(runner, "completed", None) is None
        and is_infinite(source)
    )
