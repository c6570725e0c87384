"""``composite``: several requests measured as one operation (Rally 2.13, ``esrally/driver/runner.py``
``Composite``/``CompositeContext``/``RequestTiming``; track docs "composite").

``requests`` is a list whose items are either an operation (``operation-type`` plus that
operation's params, given to its runner as they are: no param source) or ``{"stream": [...]}``, a
nested list run concurrently with what follows it. Before an operation item runs, every stream
started before it is awaited; streams still open at the end are awaited too. ``max-connections``
(default unlimited) bounds the operations in flight. Only the operation types in
:data:`SUPPORTED_OPERATION_TYPES` may appear (Rally's list).

Each composite runs with its own context (Rally: ``CompositeContext``, empty per call) for
``open-point-in-time``/``submit-async-search`` ids; esbench seeds it with the race context's values
so an id stored by an earlier task stays visible, and does not hand the composite's values back.

Result: 1 op; meta-data ``dependent_timing``: per operation item ``operation`` (its ``name``),
``operation-type``, ``absolute_time`` (epoch s), ``request_start``/``request_end``
(``perf_counter`` s) and ``service_time`` (s). A failing item ends the composite (streams still
running are cancelled) and the operation fails with the item's error, as the item's exception
does in Rally.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from esbench.driver.transport.timing import RequestTiming, current_timing
from esbench.driver.worker.context import RaceContext, current_context, race_context
from esbench.driver.worker.runners.base import RallyParams, Runner, RunnerResult, mandatory
from esbench.exceptions import ConfigError

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient

#: Operation types allowed in ``requests`` (Rally's ``Composite.supported_op_types``).
SUPPORTED_OPERATION_TYPES = (
    "open-point-in-time",
    "close-point-in-time",
    "search",
    "paginated-search",
    "composite-agg",
    "raw-request",
    "sleep",
    "submit-async-search",
    "get-async-search",
    "delete-async-search",
    "field-caps",
)


def validate_requests(requests: object, where: str) -> None:
    """Check the ``requests`` structure.

    Args:
        requests: the composite's ``requests`` value.
        where: what to name in messages (``"operation 'x' (composite): requests"``).

    Raises:
        esbench.exceptions.ConfigError: not a list, an item with neither ``stream`` nor
            ``operation-type``, or an operation type outside :data:`SUPPORTED_OPERATION_TYPES`.
    """
    if not isinstance(requests, Sequence) or isinstance(requests, str | bytes):
        raise ConfigError(f"{where} must be a list of operations and streams, got {type(requests).__name__}.")
    for i, item in enumerate(requests):
        path = f"{where}[{i}]"
        if isinstance(item, Mapping) and "stream" in item:
            validate_requests(item["stream"], f"{path}.stream")
        elif isinstance(item, Mapping) and "operation-type" in item:
            if item["operation-type"] not in SUPPORTED_OPERATION_TYPES:
                raise ConfigError(
                    f"{path}: unsupported operation-type [{item['operation-type']}] in a composite "
                    f"operation. Use one of [{', '.join(SUPPORTED_OPERATION_TYPES)}]."
                )
        else:
            raise ConfigError(f"{path}: a requests item must contain [stream] or [operation-type].")


class _ItemFailed(Exception):
    """Carries a failed item's result out of the streams (cancelling the others)."""

    def __init__(self, result: RunnerResult) -> None:
        super().__init__(result.error_description)
        self.result = result


class Composite(Runner):
    """``composite`` (see the module doc).

    Args:
        runners: operation type -> runner, the table the items' runners are taken from (the
            built-in table this runner is part of).
    """

    name = "composite"

    def __init__(self, runners: Mapping[str, Runner]) -> None:
        self._runners = runners

    def with_item_runners(self, wrap: Callable[[Runner], Runner]) -> Composite:
        """A composite whose items run through ``wrap(runner)`` instead (``--enable-assertions``
        checks each item's own ``assertions``, as Rally's items run through ``runner_for``)."""
        return Composite(
            {t: wrap(r) if t in SUPPORTED_OPERATION_TYPES else r for t, r in self._runners.items()}
        )

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        requests = mandatory(params, "requests", self.name)
        validate_requests(requests, f"Operation '{params.get('name') or self.name}' (composite): requests")
        limit = asyncio.BoundedSemaphore(int(params.get("max-connections", sys.maxsize)))
        token = current_context.set(RaceContext(race_context().snapshot()))
        try:
            timings = await self._run_stream(es, requests, limit)
        except _ItemFailed as failure:
            return failure.result
        finally:
            current_context.reset(token)
        return RunnerResult(meta={"dependent_timing": timings})

    async def _run_stream(
        self, es: EsbenchClient, stream: Sequence[RallyParams], limit: asyncio.BoundedSemaphore
    ) -> list[dict[str, object]]:
        streams: list[asyncio.Task[list[dict[str, object]]]] = []
        timings: list[dict[str, object]] = []
        try:
            for item in stream:
                if "stream" in item:
                    streams.append(asyncio.create_task(self._run_stream(es, item["stream"], limit)))
                    continue
                if streams:
                    for stream_timings in await asyncio.gather(*streams):
                        timings += stream_timings
                    streams = []
                async with limit:
                    timings.append(await self._run_item(es, item))
            if streams:
                for stream_timings in await asyncio.gather(*streams):
                    timings += stream_timings
        except BaseException:
            for task in streams:
                if not task.done():
                    task.cancel()
            raise
        return timings

    async def _run_item(self, es: EsbenchClient, item: RallyParams) -> dict[str, object]:
        op_type = item["operation-type"]
        parent = current_timing.get()
        timing = RequestTiming()
        absolute_time = time.time()
        token = current_timing.set(timing)
        try:
            result = await self._runners[op_type](es, item)
        finally:
            current_timing.reset(token)
            if parent is not None and timing.observed:
                parent.observe(timing.start, timing.end, timing.sent, timing.received)
        if not result.success:
            raise _ItemFailed(result)
        return {
            "operation": item.get("name"),
            "operation-type": op_type,
            "absolute_time": absolute_time,
            "request_start": timing.start,
            "request_end": timing.end,
            "service_time": timing.end - timing.start,
        }
