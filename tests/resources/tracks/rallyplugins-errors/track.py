"""A plugin that fails on purpose, for esbench's tests of plugin error reports (written for esbench)."""

from esrally import exceptions
from esrally.track import loader
from esrally.track.params import ParamSource


def _fail_in(params):
    return params.get("fail-in")


class FailingSource(ParamSource):
    def __init__(self, track, params, **kwargs):
        super().__init__(track, params, **kwargs)
        if _fail_in(params) == "constructor":
            raise exceptions.TrackConfigError("the failing-source was told to fail in its constructor")

    def params(self):
        if _fail_in(self._params) == "params":
            return self._params["no-such-param"]
        return dict(self._params)


class FailingScheduler:
    def __init__(self, task, target_throughput):
        self.fail = _fail_in(task.operation.params) == "next"
        self.wait = 1 / target_throughput

    def next(self, current):
        if self.fail and current > 0:
            raise ValueError("the failing-scheduler was told to fail in next()")
        return current + self.wait


async def failing_op(es, params):
    if _fail_in(params) == "runner":
        raise RuntimeError("the failing-op runner was told to fail")
    # Rally times a runner by its requests: one that sends none fails under Rally.
    await es.cluster.health()
    return {"weight": 1, "unit": "ops"}


class FailingProcessor(loader.TrackProcessor):
    def on_after_load_track(self, track):
        for task in track.challenges[0].schedule:
            if _fail_in(task.operation.params) == "processor":
                raise exceptions.TrackConfigError(f"task [{task.name}] asked the processor to fail")


def register(registry):
    registry.register_param_source("failing-source", FailingSource)
    registry.register_scheduler("failing-scheduler", FailingScheduler)
    registry.register_runner("failing-op", failing_op, async_runner=True)
    registry.register_track_processor(FailingProcessor())
