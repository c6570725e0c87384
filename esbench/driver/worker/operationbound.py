"""OSB's bound on one operation: a call that takes longer than the client timeout is an error.

OpenSearch Benchmark 2.4.0 runs every operation of a workload under
``asyncio.wait_for(execute_single(...), timeout)`` (``osbenchmark/worker_coordinator/
worker_coordinator.py``, ``AsyncExecutor._execute_request``): ``timeout`` is the task's
``request-timeout`` parameter, else the client options' ``timeout`` (``--client-options``, 60 s by
default in ``osbenchmark/utils/opts.py``). When it expires the call is abandoned and counted as a
failed request with error type ``timeout``, and the task goes on. This matters for the operations
that loop inside one call, such as a ``cluster-health`` wait with ``retry-until-success``: Rally,
and esbench for Rally's tracks, wait until the condition holds; OSB gives up after the timeout.
esbench applies the bound to workloads in OSB's format only (:attr:`esbench.track.model.Track.dialect`),
and not to calls the connection repeats itself (one call standing for many requests,
:mod:`esbench.driver.transport.repeat`), whose single requests the client's own timeout bounds.
"""

from __future__ import annotations

import asyncio
from typing import Any

from esbench.driver.worker.runners.base import Runner, RunnerResult
from esbench.track.dialect import Dialect
from esbench.track.model import Track

#: OSB 2.4.0's default client ``timeout`` (s) when ``--client-options`` names none.
OSB_DEFAULT_TIMEOUT_S = 60.0


def operation_bound_s(track: Track, client_timeout_s: float | None) -> float | None:
    """The bound (s) on one operation of ``track``'s tasks: the client timeout for a workload in
    OSB's format, None (no bound, as in Rally) otherwise, and None with no client timeout
    (``--client-options=timeout:None``: OSB 2.4.0 cannot take it, ``int(None)`` in
    ``AsyncExecutor.__init__``; esbench follows Rally's meaning, no timeout at all). The client
    options default to OSB's 60 s (:data:`OSB_DEFAULT_TIMEOUT_S`)."""
    if track.dialect is not Dialect.OSB:
        return None
    return client_timeout_s


async def bounded_call(runner: Runner, es: Any, params: Any, bound_s: float) -> Any:
    """``await runner(es, params)``, abandoned after the task's ``request-timeout`` parameter, else
    ``bound_s`` seconds: then a failed :class:`RunnerResult` with error type ``timeout`` and weight
    0, as OSB records it.

    Raises:
        Whatever the runner raises (a ``TimeoutError`` of its own included).
    """
    # OSB: ``request-timeout`` unless it is absent or None (param sources pass None through).
    asked = params.get("request-timeout") if isinstance(params, dict) else None
    limit = bound_s if asked is None else asked
    scope = asyncio.timeout(float(limit))
    try:
        async with scope:
            return await runner(es, params)
    except TimeoutError:
        if not scope.expired():
            raise
        return RunnerResult(
            weight=0,
            success=False,
            error_type="timeout",
            error_description=f"the operation took more than {float(limit):g} s (OSB's operation bound)",
        )
