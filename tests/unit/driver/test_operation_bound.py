"""OSB's bound on one operation (osbenchmark/worker_coordinator/worker_coordinator.py
``_execute_request``): a call longer than the task's ``request-timeout``, else the client timeout, is
a failed request of type ``timeout``; Rally's tracks have no such bound."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from esbench.driver.settings import DEFAULT_TIMEOUT
from esbench.driver.worker.operationbound import OSB_DEFAULT_TIMEOUT_S, bounded_call, operation_bound_s
from esbench.driver.worker.runners.base import RunnerResult
from esbench.track.dialect import Dialect
from esbench.track.model import Challenge, Track


def _track(dialect: Dialect) -> Track:
    return Track(
        name="t",
        root=Path("."),
        challenges=(Challenge(name="c", schedule=(), default=True),),
        dialect=dialect,
    )


def test_only_workloads_in_osbs_format_are_bounded_by_the_client_timeout() -> None:
    assert operation_bound_s(_track(Dialect.RALLY), 7.0) is None
    assert operation_bound_s(_track(Dialect.OSB), 7.0) == 7.0
    assert operation_bound_s(_track(Dialect.OSB), None) is None  # --client-options=timeout:None
    assert OSB_DEFAULT_TIMEOUT_S == DEFAULT_TIMEOUT == 60.0


async def _never(es: Any, params: Any) -> RunnerResult:
    # Waits for something that never comes, as a retry-until-success loop on a condition that never holds.
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


async def test_a_call_that_never_ends_is_a_timeout_error_after_the_bound() -> None:
    result = await asyncio.wait_for(bounded_call(_never, None, {}, 0.05), timeout=30)
    assert isinstance(result, RunnerResult)
    assert (result.success, result.error_type, result.weight) == (False, "timeout", 0)
    assert "0.05 s" in (result.error_description or "")


async def test_the_tasks_request_timeout_wins_over_the_client_timeout() -> None:
    result = await asyncio.wait_for(bounded_call(_never, None, {"request-timeout": 0.02}, 3600.0), timeout=30)
    assert result.error_type == "timeout" and "0.02 s" in result.error_description


async def test_a_request_timeout_of_none_means_the_client_timeout() -> None:
    # OSB's vector-search param source passes "request-timeout": None through.
    result = await asyncio.wait_for(bounded_call(_never, None, {"request-timeout": None}, 0.03), timeout=30)
    assert result.error_type == "timeout" and "0.03 s" in result.error_description


async def test_a_call_within_the_bound_returns_what_the_runner_returned() -> None:
    done = RunnerResult(weight=3, unit="docs")

    async def quick(es: Any, params: Any) -> RunnerResult:
        return done

    assert await bounded_call(quick, None, {}, 60.0) is done


async def test_a_timeout_the_runner_raises_itself_is_not_taken_for_the_bound() -> None:
    async def own_timeout(es: Any, params: Any) -> RunnerResult:
        raise TimeoutError("the runner's own")

    with pytest.raises(TimeoutError, match="the runner's own"):
        await bounded_call(own_timeout, None, {}, 60.0)
