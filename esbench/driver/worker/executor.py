"""The per-client loop (hot path): get params, wait for the schedule, run, time, record.

Timing points (all ``time.perf_counter()`` seconds; see docs/driver.md):

* **due** - when the schedule wants the request to start: the client's origin (step start plus its
  ramp-up wait) plus the scheduler's relative time. A request is throttled when that relative
  time is positive (Rally's ``expected_scheduled_time > 0``); unthrottled requests have no due time.
* **processing start/end** - around the whole runner call. The params are fetched before the
  schedule wait (as Rally does), so building a request body delays neither the request nor
  its latency.
* **request start/end** - earliest request start and latest last-byte time the HTTP layer
  reported during the call (:mod:`esbench.driver.transport.timing`); a runner that makes no request
  (``sleep``, plugins doing local work) falls back to the processing times.

service time = request end - request start; processing time = processing end - processing start;
latency = request end - due when throttled (includes any wait when the client fell behind:
no coordinated omission), else latency = service time (Rally's rule).

When a task stops (Rally's ``ScheduleHandle``/``TimePeriodBased``/``IterationBased``):

* ``warmup-time-period``/``time-period`` given: time based; warmup while a request starts before
  ``step start + warmup``; the client stops once ``step start + warmup + time-period`` has come
  (it does not start another request, also when it fell behind its schedule), or when the param
  source or runner ends. A throttled client whose next request would be due at or after it does
  not send it and waits for the end instead, so the task's span covers the whole time period.
* else ``warmup-iterations``/``iterations`` given: that many requests per client.
* else a runner that decides its completion (``completed``) or a finite param source (bulk) runs
  until it ends (time based, no time limit);
* else (an endless param source) one iteration.

Unthrottled requests that the runner says are repeatable (a plain search) may be recorded and sent
again by the connection itself, without a round through this loop; the samples are the ones this
loop would record (:mod:`esbench.driver.transport.repeat`, :mod:`.repeating`).

A step's ``completed-by`` and cancellation reach the client through :class:`StepControl`. As in
Rally's ``AsyncExecutor`` (esrally 2.13), ``completed-by`` is looked at after each request: a client
of another task finishes its current ramp-up or schedule wait, sends that request, records it and
stops, so every client that starts a task records at least one sample. Cancellation stops a client
at once, also in a wait, and aborts in-flight requests (the worker cancels the client tasks).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from esbench.driver.plan import ClientAllocation, ClientPlan
from esbench.driver.transport.repeat import current_repeat
from esbench.driver.transport.timing import RequestTiming, current_timing
from esbench.driver.worker.clock import Clock, SystemClock, wake_up
from esbench.driver.worker.context import RaceContext, current_context
from esbench.driver.worker.loopfailures import failed_call, note_failed_request, reraise_scheduler_error
from esbench.driver.worker.loopsetup import LoopSetup, loop_setup
from esbench.driver.worker.operationbound import bounded_call
from esbench.driver.worker.outcome import RequestFailure
from esbench.driver.worker.pluginerrors import reraise_for_plugin
from esbench.driver.worker.repeating import repeat_for
from esbench.driver.worker.runners.base import Runner, RunnerResult
from esbench.driver.worker.scheduler import Scheduler
from esbench.driver.worker.taskrun import TaskRun
from esbench.driver.worker.waits import WaitNote, current_wait


class StepControl:
    """Shared by the clients of one step in one worker: start time, completion, cancellation.

    Args:
        start_at: ``perf_counter`` time at which the step starts in every worker.
        completing_task: name of the task whose own clients keep running when the step is
            completed (``completed-by: <task>``); None with ``completed-by: any``.
    """

    def __init__(self, start_at: float, *, completing_task: str | None = None) -> None:
        self.start_at = start_at
        self.completing_task = completing_task
        self.completed = False
        self.cancelled = False
        self._waiters: set[asyncio.Future[None]] = set()

    def should_stop(self, task_name: str) -> bool:
        """True if a client of ``task_name`` must not start another request."""
        return self.cancelled or (self.completed and task_name != self.completing_task)

    def complete(self) -> None:
        """``completed-by`` fired: clients of the other tasks stop after their next request."""
        self.completed = True
        self._wake_all()

    def cancel(self) -> None:
        """Stop every client before its next request (the worker also cancels in-flight ones)."""
        self.cancelled = True
        self._wake_all()

    def _wake_all(self) -> None:
        for waiter in list(self._waiters):
            wake_up(waiter)

    def new_waiter(self) -> asyncio.Future[None]:
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.add(waiter)
        return waiter

    def drop_waiter(self, waiter: asyncio.Future[None]) -> None:
        self._waiters.discard(waiter)


class ClientExecutor:
    """Runs one client's allocations of a step, one after the other (see module doc).

    Args:
        plan: the client's allocations.
        es: the client's Elasticsearch client (``es.http`` for built-in runners).
        runs: the worker's :class:`TaskRun` by task name.
        control: the step's :class:`StepControl`.
        context: the worker's race context (PIT ids...).
        clock: time source.
        on_natural_end: called with ``(task_name, client_id)`` when an allocation ends by its own
            limit (not by completion or cancellation).
    """

    def __init__(
        self,
        *,
        plan: ClientPlan,
        es: Any,
        runs: Mapping[str, TaskRun],
        control: StepControl,
        context: RaceContext,
        clock: Clock | None = None,
        on_natural_end: Callable[[str, int], None] | None = None,
    ) -> None:
        self.plan = plan
        self.es = es
        self.runs = runs
        self.control = control
        self.context = context
        self.clock = clock or SystemClock()
        self.on_natural_end = on_natural_end
        self.timing = RequestTiming()
        #: Why this client waits, if it retries an operation (esbench.driver.worker.waits).
        self.wait = WaitNote()
        self.current: str | None = None
        self._progress: Callable[[], float | None] = lambda: None

    def progress(self) -> float | None:
        """Fraction (0..1) of the current allocation done, or None if unknown."""
        return self._progress()

    async def run(self) -> None:
        """Run all allocations.

        Raises:
            esbench.exceptions.RaceAborted: a request failed and ``--on-error=abort`` applies.
            esbench.exceptions.ConnectionFailed: a TLS failure (configuration: no request can succeed).
            esbench.exceptions.DriverError: a runner raised something that is not a request error.
            esbench.exceptions.EsbenchError: a runner or scheduler found bad parameters.
        """
        current_timing.set(self.timing)
        current_context.set(self.context)
        current_wait.set(self.wait)
        for position, allocation in enumerate(self.plan.allocations):
            if self.control.should_stop(allocation.task.name):
                break
            self.current = allocation.task.name
            natural = await self._run_allocation(allocation, first=position == 0)
            if natural and self.on_natural_end is not None:
                self.on_natural_end(allocation.task.name, self.plan.client_id)
        current_repeat.set(None)
        self._progress = lambda: 1.0

    async def _wait_until(self, due: float) -> bool:
        """Sleep until ``due``; False if the step was cancelled instead.

        ``completed-by`` does not cut the wait short: Rally's ``AsyncExecutor`` sleeps out a
        ramp-up or a throttled wait, sends the request and only then looks at completion.
        """
        clock = self.clock
        control = self.control
        while True:
            rest = due - clock.now()
            if rest <= 0:
                return True
            if control.cancelled:
                return False
            waiter = control.new_waiter()
            try:
                await clock.sleep(rest, waiter)
            finally:
                control.drop_waiter(waiter)

    async def _run_allocation(self, allocation: ClientAllocation, *, first: bool = True) -> bool:
        """Run one allocation; True if it ended by its own limit. ``first``: the client's first
        allocation of the step, whose schedule begins at the step start."""
        run = self.runs[allocation.task.name]
        now = self.clock.now
        start_at = self.control.start_at
        # The first allocation's schedule and time period count from the step start, also when a
        # busy machine let this worker begin late: its requests are due from there, and a late
        # start shows in their latency. (Marking the wake-up instead made the task's first
        # 1-second window partial, so it was left out; issue #26.) A later allocation (a
        # ``clients`` cap) really starts when the previous one ends.
        run.mark_start(start_at if first else max(now(), start_at))
        try:
            return await self._loop(allocation, run)
        finally:
            run.mark_end(max(now(), start_at))

    def _track_progress(self, setup: LoopSetup, runner: Runner, done: Callable[[], int]) -> None:
        """Make :meth:`progress` report the allocation's progress: by iterations (``done()`` of
        ``setup.total_iterations``), else by time to the deadline, else as the param source or a
        runner that decides its end reports it (None if neither does)."""
        now = self.clock.now
        start_at = self.control.start_at
        total_iterations, deadline, source = setup.total_iterations, setup.deadline, setup.source
        runner_decides = setup.runner_decides

        def progress() -> float | None:
            if total_iterations:
                return min(done() / total_iterations, 1.0)
            if deadline is not None:
                span = deadline - start_at
                return min(max((now() - start_at) / span, 0.0), 1.0) if span > 0 else 1.0
            value = getattr(source, "percent_completed", None)
            if value is None and runner_decides:
                value = getattr(runner, "percent_completed", None)
            return float(value) if value is not None else None

        self._progress = progress

    async def _loop(self, allocation: ClientAllocation, run: TaskRun) -> bool:
        """Send the allocation's requests until its limit (True), cancellation or completion by
        another task (False). The driver's hot path (benchmarks/bench_request_cost.py): per
        request it calls out once (:func:`_account`), and a throttled schedule once more
        (:func:`_next_due`); errors and failures go to :mod:`.loopfailures`. With a repeat, one
        runner call may stand for many requests (module doc)."""
        task = allocation.task
        name = task.name
        runner = run.runner
        setup = loop_setup(allocation, run, start_at=self.control.start_at)
        source, scheduler, scheduled, rebase = setup.source, setup.scheduler, setup.scheduled, setup.rebase
        time_based, total_iterations = setup.time_based, setup.total_iterations
        warmup_iterations, runner_decides = setup.warmup_iterations, setup.runner_decides
        warmup_end, deadline = setup.warmup_end, setup.deadline
        iterations = 0
        control = self.control
        # The connection may record and resend this allocation's request itself (issue 25):
        # the requests it accounted show in repeat.iterations when the runner returns.
        repeat = repeat_for(setup, runner, run.recorder.record, control, self.clock)
        # The first request goes through this loop even with a repeat: its start and end make
        # Rally's whole-task interval (TaskRecorder.note_client); the repeat takes over after it.
        current_repeat.set(None)
        bound = run.operation_bound_s if repeat is None else None
        if repeat is None:
            self._track_progress(setup, runner, lambda: iterations)
        else:
            self._track_progress(setup, runner, lambda: max(iterations, repeat.iterations))
        now = self.clock.now
        origin = control.start_at + allocation.ramp_up_wait
        began = now()
        if not await self._wait_until(origin):
            return False
        # Rally's AsyncExecutor takes its client's start (total_start) when it begins, before its
        # ramp-up wait: here the wake-up at the step start, or the begin of a later allocation.
        client_start = max(began, now() - allocation.ramp_up_wait)
        first: tuple[float, float] | None = None  # the client's first request: start, end
        timing = self.timing
        record = run.recorder.record
        es = self.es
        get_params = source.params
        next_due = 0.0
        due = 0.0
        last_start = origin
        throttled = False
        try:
            while True:
                if total_iterations is not None and iterations >= total_iterations:
                    return True
                if scheduled:
                    next_due = _next_due(
                        scheduler, next_due, rebase and iterations > 1, last_start - origin, name
                    )
                    throttled = next_due > 0.0
                    due = origin + next_due
                    if throttled and deadline is not None and due >= deadline:
                        # Nothing more is due, but the time period lasts until the deadline: the span
                        # ends there, so the last 1-second window is complete and counts (issue #26).
                        return await self._wait_until(deadline)
                # Rally's TimePeriodBased: the clock ends the task, also for a client that fell
                # behind its schedule (its due times are still before the deadline).
                if deadline is not None and now() >= deadline:
                    return True
                if control.cancelled:
                    return False
                try:
                    params = get_params()
                except StopIteration:
                    return True
                except Exception as exc:
                    reraise_for_plugin(exc, where=f"{type(source).__name__}.params()", task=name)
                    raise
                if throttled and due > now() and not await self._wait_until(due):
                    return False
                if scheduled:
                    scheduler.before_request(now())
                timing.reset()
                fatal = None
                if repeat is not None:
                    repeat.iterations = iterations
                processing_start = last_start = now()
                try:
                    if bound is None:
                        result = await runner(es, params)
                    else:
                        result = await bounded_call(runner, es, params, bound)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    result, fatal = failed_call(exc, runner, task)
                if repeat is not None and repeat.iterations != iterations:
                    # The last request the connection sent is this call's; the ones before it are recorded.
                    iterations = repeat.iterations
                    processing_start = last_start = repeat.last_start
                warmup = processing_start < warmup_end if time_based else iterations < warmup_iterations
                iterations += 1
                end = _account(
                    run, record, timing, result, fatal, processing_start, now(), due if throttled else None,
                    warmup, scheduler if scheduled else None, name,
                )  # fmt: skip
                if first is None:
                    first = (processing_start, end)
                    current_repeat.set(repeat)
                if runner_decides and runner.completed:  # type: ignore[attr-defined]  # checked above
                    return True
                # Rally's AsyncExecutor looks at completed-by after each request, so every client that
                # starts a task sends at least one request (and records its sample) before it stops.
                if control.completed and control.should_stop(name):
                    return False
        finally:
            if first is not None:
                run.recorder.note_client(
                    client_start=client_start, first_start=first[0], first_end=first[1], last_start=last_start
                )


def _next_due(scheduler: Scheduler, previous: float, rebase: bool, since_origin: float, task: str) -> float:
    """The scheduler's next due time (s after the client's origin) after ``previous``, or after
    ``since_origin`` (the last request's start) for a unit-aware schedule that ran unthrottled
    until now (``rebase``: it continues from there rather than bursting to catch up).

    Raises:
        Exception: what the scheduler raised (a plugin's named as such).
    """
    current = since_origin if rebase and previous == 0.0 else previous
    try:
        return scheduler.next(current)
    except Exception as exc:
        reraise_scheduler_error(exc, scheduler, task)
        raise


def _account(
    run: TaskRun,
    record: Callable[..., None],
    timing: RequestTiming,
    result: RunnerResult,
    fatal: RequestFailure | None,
    processing_start: float,
    processing_end: float,
    due: float | None,
    warmup: bool,
    scheduler: Scheduler | None,
    task: str,
) -> float:
    """Record one request's sample with ``record`` (timings per the module doc; ``due`` None when
    unthrottled), adopt the first weighted response's unit, tell the ``scheduler`` (None when
    unthrottled) and count a failure.

    Once per request, positional: the loop's locals are its arguments (measured with
    benchmarks/bench_request_cost.py: about 1 % CPU per request over the body inline).

    Returns:
        The request's end (``perf_counter`` s): its response end, else the runner call's end.

    Raises:
        esbench.exceptions.ConnectionFailed / RaceAborted: see :func:`note_failed_request`.
    """
    if timing.end != 0.0:
        end = timing.end
        service_time = end - timing.start
    else:
        end = processing_end
        service_time = processing_end - processing_start
    success = result.success
    weight = result.weight
    record(
        warmup=warmup,
        end=end,
        service_time=service_time,
        latency=end - due if due is not None else service_time,
        processing_time=processing_end - processing_start,
        weight=weight,
        success=success,
        error_type=None if success else (result.error_type or "unknown"),
        sent=timing.sent,
        received=timing.received,
    )
    if weight > 0 and run.unit_pending:
        run.observe_unit(result.unit)
    if scheduler is not None:
        scheduler.after_request(processing_end, weight, result.unit, result.meta)
    if not success:
        note_failed_request(run, result, warmup=warmup, fatal=fatal, task=task)
    return end
