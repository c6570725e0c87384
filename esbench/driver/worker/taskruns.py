"""What a worker builds for the plugins of a race: its registry, and per step the task runs.

Rally (``esrally/driver/driver.py`` ``Worker``/``AsyncIoAdapter.run``) loads the track plugins in
every worker process and creates one param source per task when the task starts, in the worker
that runs its clients (partitions and schedulers per client follow in
:class:`esbench.driver.worker.executor.ClientExecutor`). Module-level and class-level state of a plugin
therefore lives as long as the worker, i.e. across the tasks of the race; esbench's workers live for
the whole race too.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from typing import TYPE_CHECKING

from esbench.driver.worker.pluginerrors import reraise_for_plugin
from esbench.driver.worker.runners.asserting import asserting_runner
from esbench.driver.worker.taskrun import TaskRun
from esbench.track.model import Task, Track

if TYPE_CHECKING:
    from esbench.corpus.model import CorpusSet
    from esbench.driver.settings import OnError
    from esbench.driver.worker.registry import Registry


def build_registry(track: Track, blob: bytes | None, corpora: CorpusSet | None = None) -> Registry:
    """The worker's registry: the coordinator's (pickled) one, which imports the track's plugin
    modules through its plugin host before its entries are read (and registers the plugins again
    when they cannot be read, :meth:`Registry.__setstate__`); without a blob (no coordinator's
    registry to receive), the built-ins. It becomes the registry the plugin API of this process
    answers from (``esrally.driver.runner.runner_for``). ``track`` is not read: the registry knows
    the directory of its plugin (``Registry.plugin_root``).

    Raises:
        esbench.exceptions.TrackError: the plugin cannot be imported or registered.
    """
    from esbench.driver.worker.registry import default_registry

    registry: Registry = pickle.loads(blob) if blob is not None else default_registry()
    registry.activate(corpora)
    return registry


def build_task_runs(
    registry: Registry,
    tasks: Mapping[str, Task],
    *,
    track: Track,
    corpora: CorpusSet | None,
    on_error: OnError,
    seed: int,
    keep_samples: bool = False,
    enable_assertions: bool = False,
    operation_bound_s: float | None = None,
) -> dict[str, TaskRun]:
    """One :class:`TaskRun` per task of a step: its runner and a new (unpartitioned) param source.
    With ``enable_assertions`` the runner of a task that can carry assertions checks them
    (:func:`~esbench.driver.worker.runners.asserting.asserting_runner`; the others are untouched).
    ``operation_bound_s`` bounds each runner call (OSB's workloads, :mod:`.operationbound`).

    Raises:
        esbench.exceptions.EsbenchError: unknown operation type or param source, bad params, or a
            plugin's param source constructor raised (one paragraph naming the plugin line).
    """
    registry.activate(corpora)
    runs = {}
    for name, task in tasks.items():
        runner = registry.runner(task.operation.operation_type)
        if enable_assertions:
            runner = asserting_runner(runner, task)
        try:
            source = registry.param_source(task, track, corpora=corpora)
        except Exception as exc:
            reraise_for_plugin(exc, where="the construction of its param source", task=name)
            raise
        runs[name] = TaskRun(
            task=task,
            runner=runner,
            source=source,
            schedulers=registry.schedulers,
            on_error=on_error,
            seed=seed,
            keep_samples=keep_samples,
            operation_bound_s=operation_bound_s,
        )
    return runs
