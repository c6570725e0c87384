"""Adding an operation type: one descriptor and one runner module, run through the registry.

The test writes a runner module (with its param source) to a temporary directory, describes the
type once, and runs a race step with it; nothing else of esbench is touched.
"""

from __future__ import annotations

import sys
import textwrap

import pytest
from driver_helpers import challenge, op, task, track

from esbench.driver.coordinator.run import DriverSettings, run_challenge, tasks_of
from esbench.driver.transport.client import ClientOptions
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.runners import Retry
from esbench.exceptions import ConfigError
from esbench.track.optable import OPERATION_TYPES, OpType, Retries

RUNNER_MODULE = """
from esbench.driver.worker.params.base import ParamSource
from esbench.driver.worker.runners.base import Runner, RunnerResult


class Echo(Runner):
    name = "echo-weight"

    async def __call__(self, es, params):
        return RunnerResult(weight=params["weight"], unit="echoes")


class EchoParams(ParamSource):
    def params(self):
        return {**self._params, "weight": self._params["base"] * 2}
"""


@pytest.fixture
def echo_type(tmp_path, monkeypatch):
    (tmp_path / "echo_optype_module.py").write_text(textwrap.dedent(RUNNER_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield OpType(
        name="echo-weight",
        runner="echo_optype_module:Echo",
        param_source="echo_optype_module:EchoParams",
        retries=Retries.ON_REQUEST,
    )
    sys.modules.pop("echo_optype_module", None)


def test_one_descriptor_and_one_runner_module_make_a_working_operation_type(echo_type, es_stub):
    registry = default_registry((*OPERATION_TYPES, echo_type))
    assert isinstance(registry.runner("echo-weight"), Retry)
    assert type(registry.runner("echo-weight").delegate).__name__ == "Echo"
    t = task(op("echo-weight", base=3), iterations=4, warmup_iterations=0)
    outcome = run_challenge(
        track=track(),
        challenge=challenge(t),
        hosts=[es_stub.host],
        client_options=ClientOptions(),
        settings=DriverSettings(workers=0, task_pause_s=0),
        corpora=None,
        registry=registry,
    )
    assert outcome.status == "completed", outcome.error
    result = tasks_of(outcome)["echo-weight"]
    assert (result.sample_count, result.total_weight, result.throughput_unit) == (4, 24, "echoes/s")


def test_without_its_descriptor_the_type_is_unknown(echo_type):
    with pytest.raises(ConfigError, match="No runner is registered for the operation type 'echo-weight'"):
        default_registry().runner("echo-weight")


def test_a_track_with_a_plugin_needs_a_plugin_host(tmp_path):
    from esbench.driver.worker.registry import race_registry
    from esbench.track.model import Track

    (tmp_path / "track.py").write_text("def register(registry):\n    pass\n")
    with pytest.raises(ConfigError, match=r"has a plugin .* but the driver was given no plugin host"):
        race_registry(Track(name="plugged", root=tmp_path, challenges=()), None)
