"""Built-in runners, one class per operation type, grouped by family (see each module)."""

from __future__ import annotations

from collections.abc import Iterable

from esbench.driver.worker.refs import resolve
from esbench.driver.worker.runners.base import LegacyRunner, Retry, Runner, RunnerResult, normalize_result
from esbench.track.optypes import OPERATION_TYPES, OpType, Retries

__all__ = [
    "LegacyRunner",
    "Retry",
    "Runner",
    "RunnerResult",
    "builtin_runners",
    "normalize_result",
]


def builtin_runners(operation_types: Iterable[OpType] = OPERATION_TYPES) -> dict[str, Runner]:
    """Operation type -> runner instance, for a new registry, built from the table of operation
    types (:data:`esbench.track.optable.OPERATION_TYPES`, or another table, e.g. one extended by a
    test).

    Administrative operations are wrapped in :class:`Retry` (Rally's ``register_default_runners``);
    operations that are not idempotent (bulk, force-merge, point in time, create/restore snapshot,
    downsample) or that are measured as they come (searches, raw requests, sql, esql, async
    search submit/delete) are not; ``get-async-search`` retries until it succeeds (each type's
    ``retries``). All 59 operation types of Rally 2.13's ``OperationType`` and OSB 2.4.0's own types have a
    runner, except the types esbench refuses (``OpType.refused``: Kafka and gRPC).

    Raises:
        ImportError, AttributeError: a descriptor names a runner that does not exist.
    """
    runners: dict[str, Runner] = {}
    for op in operation_types:
        if op.runner is None:
            # A refused type (op.refused): the track is refused when it is loaded.
            continue
        cls = resolve(op.runner)
        # The composite's items run with the runners of this table (Rally: ``runner_for``).
        runner: Runner = cls(runners) if op.composite else cls()
        if op.retries is not Retries.NEVER:
            runner = Retry(runner, retry_until_success=op.retries is Retries.UNTIL_SUCCESS)
        runners[op.name] = runner
    return runners
