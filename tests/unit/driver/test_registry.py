from __future__ import annotations

import pickle

import pytest
from driver_helpers import op, static_es, task, track

from esbench.driver.worker.params import ParamSource
from esbench.driver.worker.registry import Registry, default_registry
from esbench.driver.worker.runners.base import RunnerResult, normalize_result
from esbench.exceptions import ConfigError, TrackError
from esbench.track.model import Operation


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, RunnerResult()),
        ((500, "docs"), RunnerResult(weight=500, unit="docs")),
        ({"weight": 2, "unit": "pages", "hits": 3}, RunnerResult(weight=2, unit="pages", meta={"hits": 3})),
        (
            {"success": False, "error-type": "bulk", "error-description": "x", "http-status": 409},
            RunnerResult(success=False, error_type="bulk", error_description="x", http_status=409),
        ),
        ({"success": False}, RunnerResult(success=False, error_type="unknown")),
        ("anything else", RunnerResult()),
    ],
)
def test_legacy_results_are_normalized(value, expected):
    assert normalize_result(value) == expected


async def test_plugin_runner_function_and_context_manager():
    registry = default_registry()
    events = []

    async def fn(es, params):
        events.append(("fn", params["x"]))
        return {"weight": 3, "unit": "docs"}

    class Managed:
        async def __aenter__(self):
            events.append("enter")
            return self

        async def __call__(self, es, params):
            events.append("call")
            return 1, "ops"

        async def __aexit__(self, *exc):
            events.append("exit")
            return False

    registry.register_runner("fn-op", fn, async_runner=True)
    registry.register_runner("managed-op", Managed(), async_runner=True)
    es = static_es(lambda *a: (200, b"{}"))
    assert await registry.runner("fn-op")(es, {"x": 1}) == RunnerResult(weight=3, unit="docs")
    assert await registry.runner("managed-op")(es, {}) == RunnerResult(weight=1, unit="ops")
    assert events == [("fn", 1), "enter", "call", "exit"]


def test_sync_runners_are_rejected_like_in_rally():
    registry = Registry()

    def sync_runner(es, params):
        return None

    with pytest.raises(TrackError, match="must be implemented as an async runner"):
        registry.register_runner("x", sync_runner)
    with pytest.raises(TrackError, match="is not async"):
        registry.register_runner("x", sync_runner, async_runner=True)


def test_plugins_may_override_builtin_runners():
    registry = default_registry()

    async def my_bulk(es, params):
        return None

    registry.register_runner("bulk", my_bulk, async_runner=True)
    assert "user-defined runner for [bulk]" in repr(registry.runner("bulk"))


def test_unknown_operation_type_lists_known_types():
    with pytest.raises(ConfigError, match=r"No runner is registered for the operation type 'nope'.*bulk"):
        default_registry().runner("nope")


def test_param_sources_by_name_class_and_function():
    registry = default_registry()

    class Mine(ParamSource):
        def params(self):
            return {"class": True, **self._params}

    def mine_fn(track, params, **kwargs):
        return {"fn": params["name"]}

    registry.register_param_source("mine", Mine)
    registry.register_param_source("mine-fn", mine_fn)
    t1 = task(Operation(name="a", operation_type="search", param_source="mine", params={"q": 1}))
    t2 = task(Operation(name="b", operation_type="search", param_source="mine-fn"))
    assert registry.param_source(t1, track()).params()["class"] is True
    assert registry.param_source(t1, track()).params()["q"] == 1
    assert registry.param_source(t2, track()).params() == {"fn": "b"}
    with pytest.raises(TrackError, match="either a function or a class"):
        registry.register_param_source("bad", object())
    t3 = task(Operation(name="c", operation_type="search", param_source="unknown"))
    with pytest.raises(ConfigError, match=r"param-source 'unknown'.*mine, mine-fn"):
        registry.param_source(t3, track())


def test_default_param_source_passes_params_through():
    registry = default_registry()
    source = registry.param_source(task(op("node-stats", request_timeout=3)), track())
    params = source.partition(0, 1).params()
    assert (
        params["request-timeout"] == 3
        and params["operation-type"] == "node-stats"
        and params["name"] == "node-stats"
    )


def test_schedulers_register_once():
    registry = default_registry()
    with pytest.raises(TrackError, match="already registered"):
        registry.register_scheduler("deterministic", object)
    registry.register_scheduler("mine", lambda current: current + 1)
    assert set(registry.schedulers) == {"deterministic", "poisson", "mine"}


def test_copy_is_independent_and_the_default_registry_pickles():
    base = default_registry()
    copy = base.copy()

    async def extra(es, params):
        return None

    copy.register_runner("extra", extra, async_runner=True)
    copy.register_track_processor("processor")
    assert "extra" in copy.operation_types() and "extra" not in base.operation_types()
    assert base.track_processors == () and copy.track_processors == ("processor",)
    restored = pickle.loads(pickle.dumps(base))
    assert restored.operation_types() == base.operation_types()
