"""A worker: one event loop (uvloop when installed) running its share of the clients of each step.

A worker lives for the whole race, in its own process (or, for tests, a thread), and talks to the
coordinator over a ``multiprocessing`` pipe with the small messages below. Per step:

``PrepareStep`` (build param sources and open the clients' connections) -> ``Ready`` ->
``StartStep(start_at)`` (every worker starts its clients at the same ``perf_counter`` time; the
clock is CLOCK_MONOTONIC, shared by the processes of a machine) -> ``ProgressReport`` about once a
second and ``ClientEnded`` for clients of a task that can complete the step -> ``StepDone`` with
the recorders' states at the join point. ``CompleteStep`` (``completed-by``) and ``CancelStep``
(Ctrl-C, abort, failure elsewhere) can arrive at any time during a step.

Worker processes ignore SIGINT: the coordinator decides how a Ctrl-C ends the race.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any, cast

from esbench.driver.plan import ClientPlan
from esbench.driver.transport.client import ConnectionSettings
from esbench.driver.transport.http import HttpTransport
from esbench.driver.transport.lazyclient import LazyClient
from esbench.driver.worker.clock import Clock, SystemClock
from esbench.driver.worker.context import RaceContext
from esbench.driver.worker.executor import ClientExecutor, StepControl
from esbench.driver.worker.loop import new_loop, watch_pipe
from esbench.driver.worker.operationbound import operation_bound_s
from esbench.driver.worker.profiling import worker_profile
from esbench.driver.worker.stepfailure import WorkerError, as_worker_error
from esbench.driver.worker.taskrun import TaskRun, kept_samples
from esbench.driver.worker.taskruns import build_registry, build_task_runs
from esbench.metrics.recorder import RecorderState
from esbench.racelog import attach_worker_log
from esbench.records.samples import RequestSamples
from esbench.track.model import Task, Track

if TYPE_CHECKING:
    from esbench.corpus.model import CorpusSet
    from esbench.driver.settings import OnError
    from esbench.driver.transport.esclient import EsbenchClient
    from esbench.driver.worker.registry import Registry

logger = logging.getLogger(__name__)

#: Seconds between two progress reports of a worker.
PROGRESS_INTERVAL = 1.0


# ------------------------------------------------------------------------------------- messages


@dataclass(frozen=True, slots=True)
class InitWorker:
    """First message: what the worker needs for the whole race."""

    worker_id: int
    track: Track
    corpora: CorpusSet | None
    registry_blob: bytes | None
    connection: ConnectionSettings = field(repr=False)
    on_error: OnError
    progress_interval: float = PROGRESS_INTERVAL
    seed: int = 0
    #: The race log to append to (``esbench.racelog``), None for no log file.
    log_file: str | None = None
    #: Profile the worker with cProfile (``--enable-driver-profiling``); written beside ``log_file``.
    profile: bool = False
    #: Keep every request's sample for the metrics store (``esbench.metrics.samples``).
    keep_samples: bool = False
    #: ``--enable-assertions``: the task runs check their tasks' assertions.
    enable_assertions: bool = False


@dataclass(frozen=True, slots=True)
class PrepareStep:
    step: int
    clients: tuple[ClientPlan, ...]
    context: dict[str, Any]
    completing_task: str | None
    completed_by_any: bool


@dataclass(frozen=True, slots=True)
class StartStep:
    step: int
    start_at: float


@dataclass(frozen=True, slots=True)
class CompleteStep:
    step: int


@dataclass(frozen=True, slots=True)
class CancelStep:
    step: int


@dataclass(frozen=True, slots=True)
class Shutdown:
    pass


@dataclass(frozen=True, slots=True)
class Ready:
    worker_id: int
    step: int
    error: WorkerError | None = None


@dataclass(frozen=True, slots=True)
class TaskCounters:
    """Live counters of one task in one worker (warmup and measurement together)."""

    count: int
    weight: float
    errors: int
    percent: float | None
    unit: str
    #: Why a client of the task retries an operation (esbench.driver.worker.waits), None if none does.
    waiting: str | None = None


@dataclass(frozen=True, slots=True)
class ProgressReport:
    worker_id: int
    step: int
    at: float
    tasks: dict[str, TaskCounters]


@dataclass(frozen=True, slots=True)
class ClientEnded:
    worker_id: int
    step: int
    task: str
    client_id: int


@dataclass(frozen=True, slots=True)
class StepDone:
    worker_id: int
    step: int
    end: float
    states: dict[str, RecorderState]
    item_errors: dict[str, dict[str, int]]
    context_changes: dict[str, Any]
    error: WorkerError | None = None
    #: task name -> (start of its first allocation, end of its last one) in this worker,
    #: perf_counter seconds; tasks that no client of this worker started are missing.
    spans: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: task name -> its requests in this worker, only with ``InitWorker.keep_samples``.
    samples: dict[str, RequestSamples] = field(default_factory=dict)


#: What the coordinator sends to a worker (after :class:`InitWorker`).
CoordinatorMessage = PrepareStep | StartStep | CompleteStep | CancelStep | Shutdown
#: What a worker sends to the coordinator.
WorkerMessage = Ready | ProgressReport | ClientEnded | StepDone


# ------------------------------------------------------------------------------------ runtime


class _StepExecution:
    """One step in this worker: task runs, executors and their asyncio tasks."""

    def __init__(self, prepare: PrepareStep, runs: dict[str, TaskRun]) -> None:
        self.prepare = prepare
        self.runs = runs
        self.control: StepControl | None = None
        self.executors: list[ClientExecutor] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.runner: asyncio.Task[None] | None = None


class WorkerRuntime:
    """The worker's event-loop side (see module doc).

    Args:
        conn: the worker's end of the pipe.
        init: the :class:`InitWorker` message.
        clock: time source (tests inject a simulated one).
        http_factory: makes the HTTP transport of each client (default: the client's nodes).
    """

    def __init__(
        self,
        conn: Connection,
        init: InitWorker,
        *,
        clock: Clock | None = None,
        http_factory: Callable[[int], HttpTransport] | None = None,
        registry: Registry | None = None,
    ) -> None:
        self.conn = conn
        self.init = init
        self.worker_id = init.worker_id
        self.clock = clock or SystemClock()
        self.http_factory = http_factory
        self.registry = (
            registry if registry is not None else build_registry(init.track, init.registry_blob, init.corpora)
        )
        self.context = RaceContext()
        self.clients: dict[int, EsbenchClient] = {}
        self.step: _StepExecution | None = None
        self._stopped: asyncio.Future[None] | None = None

    def send(self, message: WorkerMessage) -> None:
        try:
            self.conn.send(message)
        except (BrokenPipeError, EOFError, OSError):
            # The coordinator is gone; nothing left to report to.
            if self._stopped is not None and not self._stopped.done():
                self._stopped.set_result(None)

    async def serve(self) -> None:
        """Handle messages until ``Shutdown`` (or the coordinator's end of the pipe closes)."""
        loop = asyncio.get_running_loop()
        self._stopped = loop.create_future()
        watch_pipe(loop, self.conn, self._on_readable)
        self.send(Ready(worker_id=self.worker_id, step=-1))
        try:
            await self._stopped
        finally:
            loop.remove_reader(self.conn.fileno())
            await self._cancel_step()
            for client in self.clients.values():
                with contextlib.suppress(Exception):
                    await client.close()

    def _on_readable(self) -> None:
        try:
            while self.conn.poll():
                self._dispatch(self.conn.recv())
        except (EOFError, OSError):
            if self._stopped is not None and not self._stopped.done():
                self._stopped.set_result(None)

    def _dispatch(self, message: CoordinatorMessage) -> None:
        if isinstance(message, PrepareStep):
            self._prepare(message)
        elif isinstance(message, StartStep):
            self._start(message)
        elif isinstance(message, CompleteStep):
            if (
                self.step is not None
                and self.step.control is not None
                and message.step == self.step.prepare.step
            ):
                self.step.control.complete()
        elif isinstance(message, CancelStep):
            if self.step is not None and message.step == self.step.prepare.step:
                self._cancel_clients()
            else:
                # Nothing of that step runs here (its preparation failed, or it just ended):
                # answer so the coordinator need not wait.
                self.send(self._step_done(message.step, {}, context_changes={}))
        elif isinstance(message, Shutdown) and self._stopped is not None and not self._stopped.done():
            self._stopped.set_result(None)

    # ----------------------------------------------------------------------------- prepare

    def _client(self, client_id: int) -> EsbenchClient:
        client = self.clients.get(client_id)
        if client is None:
            http: HttpTransport | None = (
                self.http_factory(client_id) if self.http_factory is not None else None
            )
            # Same attributes as an EsbenchClient; elasticsearch-py is imported only if a runner uses
            # the client API (the lazyclient module).
            client = cast("EsbenchClient", LazyClient(self.init.connection, http=http))
            self.clients[client_id] = client
        return client

    def _prepare(self, message: PrepareStep) -> None:
        try:
            self.context.update(message.context)
            tasks: dict[str, Task] = {}
            for plan in message.clients:
                for allocation in plan.allocations:
                    tasks.setdefault(allocation.task.name, allocation.task)
            runs = build_task_runs(
                self.registry,
                tasks,
                track=self.init.track,
                corpora=self.init.corpora,
                on_error=self.init.on_error,
                seed=self.init.seed,
                keep_samples=self.init.keep_samples,
                enable_assertions=self.init.enable_assertions,
                operation_bound_s=operation_bound_s(self.init.track, self.init.connection.options.timeout),
            )
            for plan in message.clients:
                self._client(plan.client_id)
            self.step = _StepExecution(message, runs)
            self.send(Ready(worker_id=self.worker_id, step=message.step))
        except Exception as exc:
            self.send(Ready(worker_id=self.worker_id, step=message.step, error=as_worker_error(exc)))

    # ------------------------------------------------------------------------------- start

    def _start(self, message: StartStep) -> None:
        step = self.step
        if step is None or step.prepare.step != message.step:
            return
        prepare = step.prepare
        control = StepControl(message.start_at, completing_task=prepare.completing_task)
        step.control = control
        for run in step.runs.values():
            run.start(message.start_at)

        def ended(task_name: str, client_id: int) -> None:
            if prepare.completed_by_any:
                control.complete()
            if prepare.completed_by_any or task_name == prepare.completing_task:
                self.send(
                    ClientEnded(
                        worker_id=self.worker_id, step=prepare.step, task=task_name, client_id=client_id
                    )
                )

        loop = asyncio.get_running_loop()
        for plan in prepare.clients:
            executor = ClientExecutor(
                plan=plan,
                es=self.clients[plan.client_id],
                runs=step.runs,
                control=control,
                context=self.context,
                clock=self.clock,
                on_natural_end=ended,
            )
            step.executors.append(executor)
            step.tasks.append(loop.create_task(executor.run()))
        step.runner = loop.create_task(self._run_step(step))

    async def _run_step(self, step: _StepExecution) -> None:
        progress = asyncio.get_running_loop().create_task(self._report_progress(step))
        error: WorkerError | None = None
        try:
            pending = set(step.tasks)
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
                failure = next(
                    (t.exception() for t in done if not t.cancelled() and t.exception() is not None), None
                )
                if failure is not None and error is None:
                    error = as_worker_error(failure)
                    assert step.control is not None
                    step.control.cancel()
                    for t in pending:
                        t.cancel()
        finally:
            progress.cancel()
        self.send(self._step_done(step.prepare.step, step.runs, error=error))
        if self.step is step:
            self.step = None

    def _step_done(
        self,
        step: int,
        runs: dict[str, TaskRun],
        *,
        error: WorkerError | None = None,
        context_changes: dict[str, Any] | None = None,
    ) -> StepDone:
        """The report of step ``step`` that ended now with the task runs ``runs`` ({} when nothing of
        it ran here); ``context_changes`` default to what the step's runners changed."""
        end = self.clock.now()
        return StepDone(
            worker_id=self.worker_id,
            step=step,
            end=end,
            states={name: run.recorder.state() for name, run in runs.items()},
            item_errors={name: dict(run.item_errors) for name, run in runs.items() if run.item_errors},
            context_changes=self.context.take_changes() if context_changes is None else context_changes,
            error=error,
            # perf_counter seconds; a run still going when the step ended (cancelled) ends with it.
            spans={
                name: (run.first_start, run.last_end if run.last_end is not None else end)
                for name, run in runs.items()
                if run.first_start is not None
            },
            samples=kept_samples(runs),
        )

    def _counters(self, step: _StepExecution) -> dict[str, TaskCounters]:
        percents: dict[str, list[float]] = {}
        waiting: dict[str, str] = {}
        for executor in step.executors:
            if executor.current is None:
                continue
            note = executor.wait.describe()
            if note is not None:
                waiting.setdefault(executor.current, note)
            value = executor.progress()
            if value is not None:
                percents.setdefault(executor.current, []).append(value)
        counters = {}
        for name, run in step.runs.items():
            values = percents.get(name)
            rec = run.recorder
            counters[name] = TaskCounters(
                count=rec.count,
                weight=rec.total_weight,
                errors=rec.error_count,
                percent=(sum(values) / len(values)) if values else None,
                unit=rec.throughput_unit,
                waiting=waiting.get(name),
            )
        return counters

    async def _report_progress(self, step: _StepExecution) -> None:
        while True:
            await asyncio.sleep(self.init.progress_interval)
            self.send(
                ProgressReport(
                    worker_id=self.worker_id,
                    step=step.prepare.step,
                    at=time.perf_counter(),
                    tasks=self._counters(step),
                )
            )

    # ------------------------------------------------------------------------------ cancel

    def _cancel_clients(self) -> None:
        step = self.step
        if step is None:
            return
        if step.control is None:
            # Prepared but not started: report an empty step so the coordinator can go on.
            self.step = None
            self.send(self._step_done(step.prepare.step, step.runs))
            return
        step.control.cancel()
        for t in step.tasks:
            t.cancel()

    async def _cancel_step(self) -> None:
        step = self.step
        if step is None:
            return
        self._cancel_clients()
        if step.runner is not None:
            with contextlib.suppress(BaseException):
                await step.runner


def _serve(conn: Connection, init: InitWorker, runtime_kwargs: Mapping[str, Any] | None = None) -> None:
    """Build the worker's runtime and serve until shutdown (profiled with ``init.profile``); a runtime
    that cannot be built is answered with an error :class:`Ready`."""
    try:
        runtime = WorkerRuntime(conn, init, **dict(runtime_kwargs or {}))
    except Exception as exc:
        with contextlib.suppress(BrokenPipeError, OSError):
            conn.send(Ready(worker_id=getattr(init, "worker_id", -1), step=-1, error=as_worker_error(exc)))
        return
    profiled = worker_profile(init.worker_id, init.log_file if init.profile else None)
    with profiled, asyncio.Runner(loop_factory=new_loop) as runner:
        runner.run(runtime.serve())


def worker_main(conn: Connection, *, in_thread: bool = False) -> None:
    """Entry point of a worker process (or thread): receive ``InitWorker``, serve until shutdown."""
    if not in_thread:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        init: InitWorker = conn.recv()
    except (EOFError, OSError):
        return
    with contextlib.suppress(OSError):  # no race log is no reason to fail the race
        attach_worker_log(init.log_file, init.connection.credentials)
    _serve(conn, init)


def run_in_thread(
    conn: Connection, init: InitWorker, *, runtime_kwargs: Mapping[str, Any] | None = None
) -> None:
    """Thread entry point used by in-process workers (tests): like :func:`worker_main`."""
    _serve(conn, init, runtime_kwargs)
