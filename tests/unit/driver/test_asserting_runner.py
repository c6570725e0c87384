"""``--enable-assertions`` in the driver (``esbench.driver.worker.runners.asserting``): which
operations Rally 2.13 checks, the message of each kind, what is not checked, and that a task
without assertions keeps its runner (no cost per request). Against a real node in
``tests/integration/test_assertions.py``."""

from __future__ import annotations

from typing import Any

import pytest

from esbench.driver.worker.runners.asserting import AssertingRunner, asserting_runner, result_properties
from esbench.driver.worker.runners.base import LegacyRunner, Runner, RunnerResult
from esbench.driver.worker.runners.composite import Composite
from esbench.exceptions import ConfigError, TaskAssertionFailed, TrackValidationError
from esbench.track.model import Operation, Task

HITS_ABOVE_3 = [{"property": "hits", "condition": ">", "value": 3}]


class Returns(Runner):
    """A runner that returns ``result`` and counts its calls."""

    name = "returns"

    def __init__(self, result: RunnerResult) -> None:
        self.result = result
        self.calls = 0

    async def __call__(self, es: Any, params: Any) -> RunnerResult:
        self.calls += 1
        return self.result

    def repeatable(self, params: Any) -> bool:
        return True


def task(op_type: str, name: str = "op", param_source: str | None = None, **params: Any) -> Task:
    operation = Operation(name=name, operation_type=op_type, params=params, param_source=param_source)
    return Task(name=f"task-{name}", operation=operation)


SEARCH_3_HITS = RunnerResult(meta={"hits": 3, "hits_relation": "eq", "timed_out": False, "took": 1})


async def test_a_false_search_assertion_fails_with_rallys_text_without_the_operation_name():
    inner = Returns(SEARCH_3_HITS)
    runner = asserting_runner(inner, task("search", assertions=HITS_ABOVE_3, **{"detailed-results": True}))
    with pytest.raises(TaskAssertionFailed) as failed:
        await runner(None, {})
    assert str(failed.value) == (
        "Task 'task-op' failed an assertion (--enable-assertions): Expected [hits] to be > [3] but was [3]."
    )


async def test_true_assertions_pass_the_result_on():
    inner = Returns(SEARCH_3_HITS)
    spec = [
        {"property": "hits", "condition": "==", "value": 3},
        {"property": "timed_out", "condition": "==", "value": False},
        {"property": "weight", "condition": "==", "value": 1},
    ]
    runner = asserting_runner(inner, task("search", assertions=spec, **{"detailed-results": True}))
    assert await runner(None, {}) is SEARCH_3_HITS


async def test_other_operations_name_the_operation_as_their_params_carry_it():
    # Rally's default param source (and bulk's) passes the operation's params, name included, on.
    inner = Returns(RunnerResult(weight=3, unit="docs"))
    spec = [{"property": "weight", "condition": ">", "value": 100}]
    runner = asserting_runner(inner, task("bulk", name="load", assertions=spec))
    with pytest.raises(
        TaskAssertionFailed, match=r"Expected \[weight\] in \[load\] to be > \[100\] but was \[3\]\.$"
    ):
        await runner(None, {})


def test_a_search_with_assertions_needs_detailed_results_unless_it_pages():
    with pytest.raises(
        ConfigError, match=r"The property \[detailed-results\] must be \[true\] if assertions are defined"
    ):
        asserting_runner(Returns(SEARCH_3_HITS), task("search", assertions=HITS_ABOVE_3))
    paged = asserting_runner(
        Returns(SEARCH_3_HITS), task("paginated-search", assertions=HITS_ABOVE_3, pages=2)
    )
    assert isinstance(paged, AssertingRunner)


def test_malformed_assertions_name_the_task_and_the_json_path():
    spec = [{"property": "hits", "condition": "=", "value": 3}]
    with pytest.raises(TrackValidationError, match=r"task 'task-op': assertions\[0\]\.condition"):
        asserting_runner(
            Returns(SEARCH_3_HITS), task("search", assertions=spec, **{"detailed-results": True})
        )


def test_tasks_that_cannot_carry_assertions_keep_their_runner():
    inner = Returns(SEARCH_3_HITS)
    assert asserting_runner(inner, task("search", **{"detailed-results": True})) is inner
    # force-merge's Rally param source builds new params: its assertions never reach the runner.
    assert asserting_runner(inner, task("force-merge", assertions=HITS_ABOVE_3)) is inner


async def test_a_failed_request_is_not_checked_but_a_failed_bulk_is():
    not_found = RunnerResult(weight=0, success=False, error_type="404", http_status=404)
    runner = asserting_runner(Returns(not_found), task("raw-request", assertions=HITS_ABOVE_3))
    assert await runner(None, {}) is not_found
    rejected = RunnerResult(weight=5, unit="docs", success=False, error_type="bulk", meta={"error-count": 2})
    spec = [{"property": "error-count", "condition": "==", "value": 0}]
    runner = asserting_runner(Returns(rejected), task("bulk", name="load", assertions=spec))
    with pytest.raises(
        TaskAssertionFailed, match=r"Expected \[error-count\] in \[load\] to be == \[0\] but was \[2\]"
    ):
        await runner(None, {})


async def test_a_missing_property_ends_the_race_with_what_the_response_has():
    runner = asserting_runner(
        Returns(RunnerResult()),
        task("cluster-health", assertions=[{"property": "hits.total", "condition": ">", "value": 0}]),
    )
    with pytest.raises(
        TaskAssertionFailed,
        match=r"cannot check the assertion \[hits.total > 0\].*"
        r"no \[hits\] in the response \(its keys: success, unit, weight\)",
    ):
        await runner(None, {})


async def test_a_plugin_param_source_has_its_assertions_read_from_each_calls_params():
    inner = Returns(RunnerResult(meta={"docs": 4}))
    runner = asserting_runner(inner, task("my-op", param_source="mine"))
    assert isinstance(runner, AssertingRunner)
    assert (await runner(None, {"name": "x"})).meta == {"docs": 4}  # no assertions in these params
    spec = [{"property": "docs", "condition": "<", "value": 4}]
    with pytest.raises(
        TaskAssertionFailed, match=r"Expected \[docs\] in \[mine-op\] to be < \[4\] but was \[4\]"
    ):
        await runner(None, {"name": "mine-op", "assertions": spec})


async def test_a_plugin_runner_is_checked_whatever_success_says():
    async def plugin(es: Any, params: Any) -> dict[str, Any]:
        return {"weight": 1, "unit": "ops", "success": False, "state": "red"}

    spec = [{"property": "state", "condition": "==", "value": "green"}]
    runner = asserting_runner(
        LegacyRunner(plugin, name="my-op"), task("my-op", name="check", assertions=spec)
    )
    with pytest.raises(
        TaskAssertionFailed, match=r"Expected \[state\] in \[check\] to be == \[green\] but was \[red\]"
    ):
        await runner(None, {})


async def test_composite_items_check_their_own_assertions():
    search = Returns(SEARCH_3_HITS)
    composite = Composite({"search": search})
    runner = asserting_runner(composite, task("composite"))
    requests = [
        {
            "name": "first",
            "operation-type": "search",
            "assertions": [{"property": "hits", "condition": "==", "value": 3}],
        },
        {"name": "second", "operation-type": "search", "assertions": HITS_ABOVE_3},
    ]
    with pytest.raises(
        TaskAssertionFailed, match=r"Expected \[hits\] in \[second\] to be > \[3\] but was \[3\]"
    ):
        await runner(None, {"requests": requests})
    assert search.calls == 2


def test_the_wrapper_is_never_repeated_by_the_connection_and_keeps_the_inners_completion():
    class Decides(Returns):
        completed = False
        percent_completed = 0.25

    inner = Decides(SEARCH_3_HITS)
    runner = asserting_runner(inner, task("search", assertions=HITS_ABOVE_3, **{"detailed-results": True}))
    assert inner.repeatable({}) and not runner.repeatable({})
    assert runner.completed is False and runner.percent_completed == 0.25
    plain = asserting_runner(
        Returns(SEARCH_3_HITS), task("search", assertions=HITS_ABOVE_3, **{"detailed-results": True})
    )
    assert plain.completed is None  # the executor then does not let the runner end the task


def test_result_properties_are_rallys_return_value():
    result = RunnerResult(weight=2.0, unit="docs", success=False, error_type="bulk", meta={"took": 5})
    assert result_properties(result) == {
        "weight": 2,
        "unit": "docs",
        "success": False,
        "error-type": "bulk",
        "took": 5,
    }
