"""The coordinator: run a challenge's schedule on worker processes and return the task results.

:func:`run_challenge` filters the schedule (``--include-tasks``/``--exclude-tasks``), plans each
step (:mod:`esbench.driver.coordinator.allocator`), checks every task before the first request (runner,
param source, schedule), starts the worker pool (one process per core by default, never more than
the largest step needs; plain child processes, see
:mod:`esbench.driver.coordinator.pools.local` - never a fork of this process, which is unsafe with
threads and event loops) and walks the steps:

1. ``PrepareStep`` to the workers of the step, wait for ``Ready``;
2. ``StartStep`` with a common start time (``perf_counter``, at least Rally's 1 s pause after the
   previous join point outside test mode), so ramp-up and throughput windows line up;
3. forward ``completed-by`` (all clients of the named task ended, or any client with ``any``) as
   ``CompleteStep``; report progress about once a second;
4. at the join point merge the workers' recorder states per task and compute the
   :class:`~esbench.records.TaskResult` (``esbench.metrics.stats.task_result``) over the
   task's own span (from the start of its first allocation to the end of its last one).

A failed request with ``--on-error=abort``, a connection that Elasticsearch refuses, a runner bug,
a dead worker or Ctrl-C stop the race: the other workers are cancelled, and the outcome has the
results of every task that started (the interrupted one included, with what it measured) and the
race status ``failed`` or ``interrupted`` (task results carry no status of their own).
"""

from __future__ import annotations

import contextlib
import logging
import pickle
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from multiprocessing.connection import wait
from typing import TYPE_CHECKING, Any

from esbench.driver.coordinator.allocator import COMPLETED_BY_ANY, Step, plan_schedule
from esbench.driver.coordinator.checks import check_tasks
from esbench.driver.coordinator.filters import filter_schedule
from esbench.driver.coordinator.pools.base import WorkerHandle, WorkerPool
from esbench.driver.coordinator.pools.factory import create_pool
from esbench.driver.coordinator.pools.placement import SampleTally, clients_by_host
from esbench.driver.coordinator.steps import (
    StepOutcome,
    StepState,
    step_results,
    step_samples,
    worker_exception,
)
from esbench.driver.settings import CANCEL_GRACE, DEFAULT_TASK_PAUSE, START_LEAD, OnError

# The driver's public settings and outcome types, re-exported beside run_challenge (their old home).
from esbench.driver.settings import DriverOutcome as DriverOutcome
from esbench.driver.settings import DriverSettings as DriverSettings
from esbench.driver.settings import Progress as Progress
from esbench.driver.transport.client import ClientOptions, ConnectionSettings
from esbench.driver.transport.clusters import connection_settings
from esbench.driver.worker.process import (
    CancelStep,
    InitWorker,
    PrepareStep,
    ProgressReport,
    Ready,
    StartStep,
    StepDone,
)
from esbench.driver.worker.registry import Registry, race_registry
from esbench.driver.worker.waits import WAIT_NOTE_INTERVAL
from esbench.exceptions import ConfigError, DriverError, EsbenchError
from esbench.racelog import active_log_file
from esbench.records import STATUS_COMPLETED, STATUS_FAILED, STATUS_INTERRUPTED, TaskResult
from esbench.track.model import Challenge, Track

if TYPE_CHECKING:
    from esbench.corpus.model import CorpusSet

logger = logging.getLogger(__name__)


def _registry_blob(registry: Registry) -> bytes:
    """The registry pickled for the worker processes.

    Raises:
        esbench.exceptions.ConfigError: something registered cannot be sent to another process
            (a lambda, a class defined inside a function...).
    """
    try:
        return pickle.dumps(registry)
    except Exception as exc:
        raise ConfigError(
            f"The registered runners, param sources and schedulers cannot be sent to the worker "
            f"processes ({type(exc).__name__}: {exc}). Define them at module level in an importable "
            f"module (a track's track.py is fine), or run with one in-process worker (workers=0)."
        ) from exc


# -------------------------------------------------------------------------------- coordinator


class _Coordinator:
    def __init__(
        self,
        *,
        track: Track,
        steps: Sequence[Step],
        connection: ConnectionSettings,
        settings: DriverSettings,
        corpora: CorpusSet | None,
        registry_blob: bytes | None,
        progress: Callable[[Progress], None] | None,
        pool: WorkerPool,
        pool_size: int,
        seed: int,
    ) -> None:
        self.track = track
        self.seed = seed
        self.steps = steps
        self.connection = connection
        self.settings = settings
        self.corpora = corpora
        self.registry_blob = registry_blob
        self.progress = progress
        self.pool = pool
        self.pool_size = pool_size
        self.handles: list[WorkerHandle] = []
        self.samples = SampleTally()
        self.context: dict[str, Any] = {}
        self.pause = settings.task_pause_s if settings.task_pause_s is not None else DEFAULT_TASK_PAUSE
        self._progress_failed = False
        #: Task name -> monotonic time its wait was last logged.
        self._wait_logged: dict[str, float] = {}

    # ------------------------------------------------------------------------- lifecycle

    def run(self) -> DriverOutcome:
        results: list[TaskResult] = []
        status = STATUS_COMPLETED
        error: EsbenchError | None = None
        try:
            try:
                self._start_pool()
            except KeyboardInterrupt:
                return DriverOutcome(
                    tasks=(), status=STATUS_INTERRUPTED, error="interrupted by the user", seed=self.seed
                )
            except EsbenchError as exc:
                return DriverOutcome(
                    tasks=(), status=STATUS_FAILED, error=str(exc), exception=exc, seed=self.seed
                )
            previous_end: float | None = None
            try:
                for step in self.steps:
                    outcome = self._run_step(step, previous_end)
                    results.extend(outcome.results)
                    previous_end = outcome.end
                    if outcome.interrupted:
                        status = STATUS_INTERRUPTED
                        break
                    if outcome.error is not None:
                        status = STATUS_FAILED
                        error = outcome.error
                        break
            except KeyboardInterrupt:
                # Between steps (a step handles its own interruption): keep what was measured.
                status = STATUS_INTERRUPTED
        finally:
            self._stop_pool()
        message = (
            str(error)
            if error is not None
            else ("interrupted by the user" if status == STATUS_INTERRUPTED else None)
        )
        return DriverOutcome(
            tasks=tuple(results),
            status=status,
            error=message,
            exception=error,
            seed=self.seed,
            load_driver=self._placement_record(),
        )

    def _placement_record(self) -> dict[str, Any]:
        placements = self.pool.placements()
        if not placements:
            return {}
        hosts = {p.worker_id: p.host for p in placements}
        return {
            "backend": str(self.pool.kind),
            "workers": [asdict(p) for p in placements],
            "clients": clients_by_host(self.steps, hosts),
            "samples": self.samples.by_host(hosts),
        }

    def _start_pool(self) -> None:
        def init_for(worker_id: int) -> InitWorker:
            return InitWorker(
                worker_id=worker_id,
                track=self.track,
                corpora=self.corpora,
                registry_blob=self.registry_blob,
                connection=self.connection,
                on_error=self.settings.on_error,
                progress_interval=self.settings.progress_interval_s,
                seed=self.seed,
                log_file=active_log_file(),
                profile=self.settings.profiling,
                keep_samples=self.settings.sample_sink is not None,
                enable_assertions=self.settings.enable_assertions,
            )

        self.handles = self.pool.start(self.pool_size, init_for)
        self._await_ready(self.handles, step=-1)

    def _stop_pool(self) -> None:
        self.pool.stop()

    def _await_ready(self, handles: Sequence[WorkerHandle], *, step: int) -> None:
        pending = {h.worker_id: h for h in handles}
        while pending:
            ready = wait([w for h in pending.values() for w in h.waitables()], timeout=1.0)
            for handle in list(pending.values()):
                if handle.conn in ready or handle.conn.poll():
                    try:
                        message = handle.conn.recv()
                    except (EOFError, OSError):
                        raise DriverError(handle.describe_death()) from None
                    if isinstance(message, Ready) and message.step == step:
                        if message.error is not None:
                            raise worker_exception(message.error)
                        del pending[handle.worker_id]
                elif not handle.alive():
                    raise DriverError(handle.describe_death())

    # ------------------------------------------------------------------------------ steps

    def _run_step(self, step: Step, previous_end: float | None) -> StepOutcome:
        handles = self.handles[: len(step.workers)]
        completing_task = step.completed_by if step.completed_by not in (None, COMPLETED_BY_ANY) else None
        for handle, plan in zip(handles, step.workers, strict=True):
            handle.send(
                PrepareStep(
                    step=step.index,
                    clients=plan.clients,
                    context=dict(self.context),
                    completing_task=completing_task,
                    completed_by_any=step.completed_by == COMPLETED_BY_ANY,
                )
            )
        try:
            self._await_ready(handles, step=step.index)
        except KeyboardInterrupt:
            return self._abandon(step, handles, interrupted=True)
        except EsbenchError as exc:
            outcome = self._abandon(step, handles, interrupted=False)
            outcome.error = exc
            return outcome

        start_at = time.perf_counter() + START_LEAD
        if previous_end is not None:
            start_at = max(start_at, previous_end + self.pause)
        for handle in handles:
            handle.send(StartStep(step=step.index, start_at=start_at))
        return self._monitor(step, handles, start_at)

    def _abandon(self, step: Step, handles: Sequence[WorkerHandle], *, interrupted: bool) -> StepOutcome:
        for handle in handles:
            handle.send(CancelStep(step=step.index))
        self._collect(step, handles, deadline=time.perf_counter() + CANCEL_GRACE)
        return StepOutcome(results=[], end=time.perf_counter(), interrupted=interrupted)

    def _collect(
        self, step: Step, handles: Sequence[WorkerHandle], *, deadline: float
    ) -> dict[int, StepDone]:
        """Receive StepDone from every live worker until ``deadline``."""
        done: dict[int, StepDone] = {}
        while len(done) < len(handles):
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                break
            live = [h for h in handles if h.worker_id not in done and not h.dead]
            if not live:
                break
            ready = wait([w for h in live for w in h.waitables()], timeout=min(remaining, 0.5))
            for handle in live:
                if handle.conn in ready or handle.conn.poll():
                    message = self._receive(handle)
                    if isinstance(message, StepDone) and message.step == step.index:
                        done[handle.worker_id] = message
                elif not handle.alive():
                    handle.dead = True
        return done

    def _receive(self, handle: WorkerHandle) -> Any:
        try:
            return handle.conn.recv()
        except (EOFError, OSError):
            handle.dead = True
            return None

    def _monitor(self, step: Step, handles: Sequence[WorkerHandle], start_at: float) -> StepOutcome:
        state = StepState(step, handles)
        interrupted = False
        interval = max(self.settings.progress_interval_s, 0.05)
        next_progress = start_at + interval
        try:
            while len(state.done) < len(handles):
                live = [h for h in handles if h.worker_id not in state.done]
                timeout = max(0.0, next_progress - time.perf_counter())
                ready = wait([w for h in live for w in h.waitables()], timeout=timeout)
                for handle in live:
                    if not handle.dead and (handle.conn in ready or (ready and handle.conn.poll())):
                        message = self._receive(handle)
                        if message is not None:
                            state.handle(handle, message)
                    if handle.worker_id in state.done:
                        continue
                    if handle.dead or handle.exited(ready) or not handle.alive():
                        if not handle.dead and handle.conn.poll():
                            continue  # read what it sent before it went away first
                        state.worker_died(handle)
                if time.perf_counter() >= next_progress:
                    self._report(step, start_at, state.reports, state.last_weights)
                    next_progress = time.perf_counter() + interval
        except KeyboardInterrupt:
            interrupted = True
            state.cancel_all()
            with contextlib.suppress(KeyboardInterrupt):
                rest = [h for h in handles if h.worker_id not in state.done]
                state.done.update(self._collect(step, rest, deadline=time.perf_counter() + CANCEL_GRACE))
        done = list(state.done.values())
        self.samples.add(done)
        end = max((d.end for d in done), default=time.perf_counter())
        for message in done:
            for key, value in message.context_changes.items():
                if value is None:
                    self.context.pop(key, None)
                else:
                    self.context[key] = value
        results = step_results(step, done, start_at=start_at, end=end)
        if self.settings.sample_sink is not None:
            for samples in step_samples(step, done):
                self.settings.sample_sink(samples)
        return StepOutcome(results=results, end=end, error=state.error, interrupted=interrupted)

    def _log_waits(self, reports: dict[int, ProgressReport]) -> None:
        # The race log says why a task does not progress, every WAIT_NOTE_INTERVAL seconds (the
        # terminal gets it from the progress display, which --quiet turns off).
        now = time.monotonic()
        for report in reports.values():
            for name, counters in report.tasks.items():
                if (
                    counters.waiting
                    and now - self._wait_logged.get(name, -WAIT_NOTE_INTERVAL) >= WAIT_NOTE_INTERVAL
                ):
                    self._wait_logged[name] = now
                    logger.info("Task '%s' is waiting: %s", name, counters.waiting)

    def _report(
        self,
        step: Step,
        start_at: float,
        reports: dict[int, ProgressReport],
        last: dict[str, tuple[float, float]],
    ) -> None:
        self._log_waits(reports)
        if self.progress is None or self._progress_failed or not reports:
            return
        now = time.perf_counter()
        for task in step.tasks:
            counters = [r.tasks[task.name] for r in reports.values() if task.name in r.tasks]
            if not counters:
                continue
            weight = sum(c.weight for c in counters)
            percents = [c.percent for c in counters if c.percent is not None]
            previous = last.get(task.name)
            at = max(r.at for r in reports.values())
            throughput = None
            if previous is not None and at > previous[1]:
                throughput = (weight - previous[0]) / (at - previous[1])
            elif at > start_at:
                throughput = weight / (at - start_at)
            last[task.name] = (weight, at)
            report = Progress(
                task=task.name,
                percent_done=100.0 * sum(percents) / len(percents) if percents else None,
                elapsed_s=max(0.0, now - start_at),
                throughput=throughput,
                unit=counters[0].unit,
                samples=sum(c.count for c in counters),
                errors=sum(c.errors for c in counters),
                waiting=next((c.waiting for c in counters if c.waiting), None),
            )
            try:
                self.progress(report)
            except Exception:
                logger.exception("The progress callback failed; progress reports are turned off.")
                self._progress_failed = True
                return


# ------------------------------------------------------------------------------------ entry


def run_challenge(
    *,
    track: Track,
    challenge: Challenge,
    hosts: Sequence[str],
    client_options: ClientOptions,
    settings: DriverSettings,
    corpora: CorpusSet | None,
    registry: Registry | None = None,
    progress: Callable[[Progress], None] | None = None,
    _thread_runtime: dict[str, Any] | None = None,
) -> DriverOutcome:
    """Run ``challenge`` against ``hosts`` and return the results of every task that started.

    Args:
        track: the loaded track (plugins already registered in ``registry``, if given).
        challenge: the challenge to run (its schedule is filtered by ``settings``).
        hosts: ``host:port`` strings or URLs.
        client_options: client options (credentials, TLS, timeout).
        settings: driver settings.
        corpora: the prepared corpora (``esbench.corpus.prepare.prepare_corpora``) or None if the
            challenge has no bulk operation.
        registry: runners, param sources and schedulers; default: the built-ins plus the track's
            plugins.
        progress: called about once a second per running task with a :class:`Progress`.

    Returns:
        The outcome; its status is ``failed`` or ``interrupted`` if the race stopped early.

    Raises:
        esbench.exceptions.ConfigError: bad settings, filters, hosts, or a task that cannot run
            (unknown operation type, param source or schedule; invalid operation parameters).
        esbench.exceptions.TrackError: the track's plugins cannot be loaded.
    """
    _check_settings(settings)
    challenge = filter_schedule(challenge, include=settings.include_tasks, exclude=settings.exclude_tasks)
    if registry is None:
        registry = race_registry(track, settings.plugins)
    connection = connection_settings(hosts, client_options, settings.other_clusters)
    in_thread = settings.workers == 0
    pool = create_pool(
        load_driver=settings.load_driver,
        ray_address=settings.ray_address,
        load_driver_hosts=settings.load_driver_hosts,
        workers=settings.workers,
        thread_kwargs={"registry": registry, **(_thread_runtime or {})},
    )
    # Checked before the pool's capacity is asked: a Ray pool joins its cluster for that.
    steps = plan_schedule(challenge.schedule, max_workers=1)
    check_tasks(steps, registry, track, corpora, assertions=settings.enable_assertions)
    seed = settings.seed if settings.seed is not None else random.SystemRandom().randrange(2**32)
    if not steps:
        return DriverOutcome(tasks=(), status=STATUS_COMPLETED, seed=seed)
    registry_blob = None if in_thread else _registry_blob(registry)
    try:
        steps = plan_schedule(challenge.schedule, max_workers=pool.capacity())
    except EsbenchError as exc:
        pool.stop()
        return DriverOutcome(tasks=(), status=STATUS_FAILED, error=str(exc), exception=exc, seed=seed)
    except KeyboardInterrupt:
        pool.stop()
        return DriverOutcome(tasks=(), status=STATUS_INTERRUPTED, error="interrupted by the user", seed=seed)
    logger.info("Race seed for random schedules: %d (DriverSettings.seed repeats it).", seed)
    pool_size = max(len(step.workers) for step in steps)
    coordinator = _Coordinator(
        track=track,
        steps=steps,
        connection=connection,
        settings=settings,
        corpora=corpora,
        registry_blob=registry_blob,
        progress=progress,
        pool=pool,
        pool_size=pool_size,
        seed=seed,
    )
    return coordinator.run()


def _check_settings(settings: DriverSettings) -> None:
    """Raises ConfigError for an unknown ``on_error`` or a negative number of workers."""
    if settings.on_error not in tuple(OnError):
        raise ConfigError(
            f"--on-error must be one of {', '.join(e.value for e in OnError)}, got '{settings.on_error}'."
        )
    if settings.workers is not None and settings.workers < 0:
        raise ConfigError(f"The number of worker processes must be positive, got {settings.workers}.")


def tasks_of(outcome: DriverOutcome) -> dict[str, TaskResult]:
    """The outcome's results by task name (convenience for callers and tests)."""
    return {t.task: t for t in outcome.tasks}
