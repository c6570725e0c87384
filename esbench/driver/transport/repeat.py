"""Repeating a prepared request from the connection: the unthrottled loop without a task switch.

A client that sends the same prepared request again and again, unthrottled (a task's plain
``search``), spends most of its Python time between two requests: the response future completes,
the event loop schedules the client's task, the task resumes the runner and the executor's loop,
which records the sample and calls the runner again. A :class:`Repeat` lets the connection do that
work itself when a response is whole: record the sample, check the loop's limits and send the
same bytes again, without completing the future. The executor's task resumes only when the
connection hands the request back: a limit is reached (iterations, the time period's deadline),
the step is completed or cancelled, or the response is one the executor must look at (a status of
400 or more, a connection that cannot be reused).

The connection repeats a request only when it would have gone on in the executor's loop
(:meth:`esbench.driver.worker.executor.ClientExecutor._loop`) with the same sample:

* the response is whole, its status is below 400 and the connection can be reused;
* ``iterations + 1 < total`` (``total`` -1: no iteration limit);
* ``perf_counter()`` is before ``deadline`` (Rally's ``TimePeriodBased``: no new request once the
  time period is over). As in the executor's loop, the clock is read for this check a few µs
  before the next request starts, so the one request per client the check lets through last may
  start just after the deadline; it is the one handed back;
* neither ``control.cancelled`` nor ``control.completed`` (the executor decides what completion
  means for this task);

and then records ``record(warmup=..., end=..., service_time=..., latency=service_time,
processing_time=..., weight=1.0, success=True, error_type=None, sent=..., received=...)``, the
sample :func:`esbench.driver.worker.executor._account` records for a plain search's response:

* ``end``: the request end (``perf_counter`` s on entry of the ``data_received`` call that completed
  it, as for every request);
* ``service_time`` = ``latency`` = end - start, where start is ``perf_counter()`` just before the
  request is written (unthrottled: latency is service time, Rally's rule);
* ``processing_time`` = the time after the response was parsed - start: the runner's own work in
  the executor's loop, of which only the parsing is left here;
* ``warmup``: start before ``warmup_end`` (time based: the loop takes its processing start, a few
  µs before the request start, so at most the one request per client that straddles the warmup
  end can land on the other side), else ``iterations < warmup_iterations``.

The request the connection finally hands back goes through the runner and the executor as any
other; ``iterations`` then tells the executor how many requests the connection accounted and
``last_start`` when that last request started (its processing start).

:class:`PyRepeat` is the reference; ``_repeat.c`` in ``esbench.driver.transport._connection`` is
its C twin (``Repeat`` is the one in use). The connection takes the repeat of the current client
from :data:`current_repeat` when it sends a prepared request (``connectioncore.send_prepared``),
and only on a transport with one node: with several, each request goes to the next node.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

from esbench._compiled import load


class StopFlags(Protocol):
    """What a repeat reads of the step after each response (a ``StepControl``)."""

    cancelled: bool
    completed: bool


class PyRepeat:
    """One client's limits and recorder for repeating its prepared request (see the module doc).

    Args:
        record: the task's ``TaskRecorder.record`` (keyword arguments as in the module doc).
        control: the step's stop flags, read after each response.
        total: the allocation's iteration limit, or -1 for none.
        deadline: ``perf_counter`` s after which no request starts (``inf``: none).
        time_based: warmup by time (``warmup_end``), else by iterations (``warmup_iterations``).
        warmup_end: ``perf_counter`` s; requests that start before it are warmup samples.
        warmup_iterations: the first this many requests are warmup samples.

    Attributes:
        iterations: requests of the allocation accounted so far (the executor sets it before each
            runner call; the connection adds one per request it repeats).
        last_start: ``perf_counter`` s when the connection last sent the request again (0.0: never).
    """

    __slots__ = (
        "control",
        "deadline",
        "iterations",
        "last_start",
        "record",
        "time_based",
        "total",
        "warmup_end",
        "warmup_iterations",
    )

    def __init__(
        self,
        record: Callable[..., None],
        control: StopFlags,
        *,
        total: int,
        deadline: float,
        time_based: bool,
        warmup_end: float,
        warmup_iterations: int,
    ) -> None:
        self.record = record
        self.control = control
        self.total = total
        self.deadline = deadline
        self.time_based = time_based
        self.warmup_end = warmup_end
        self.warmup_iterations = warmup_iterations
        self.iterations = 0
        self.last_start = 0.0


_C = load("esbench.driver.transport._connection")
if TYPE_CHECKING:  # the C class has the same fields
    Repeat = PyRepeat
else:
    #: :class:`PyRepeat` or its C twin (``_repeat.c``; see :mod:`esbench._compiled`).
    Repeat = _C.Repeat if _C is not None else PyRepeat

#: The repeat of the current client's allocation (None: every request goes back to its task).
current_repeat: ContextVar[Any] = ContextVar("esbench_repeat", default=None)
