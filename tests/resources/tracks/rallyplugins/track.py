"""Track plugin written for esbench's tests in the style of the public rally-tracks plugins.

Every object here uses Rally's plugin API only (``esrally.*``), so the same file runs under Rally
2.13 and under esbench (benchmarks/rally_plugin_fixtures.py compares both):

* ``RecordingScheduler`` keeps class-level state: ``record-marks`` stores its schedule, and
  ``replay-marks`` (a later task) replays it; its runner fails when nothing was recorded.
* ``RawBodySource`` hands the built-in bulk runner a body as ``str`` without a trailing newline,
  as ``bytes``, or as a list of lines; an unknown form raises ``TrackConfigError``.
* ``WrappedBulkSource`` wraps Rally's ``BulkIndexParamSource`` (as msmarco-v2-vector does).
* ``TermQuerySource`` is a ``ParamSource`` subclass with a finite size per client.
* ``RenameField`` is a track processor that rewrites task params and the schedule (as http_logs'
  ``RuntimeFieldResolver`` does).
* ``ClientSearch`` is a ``Runner`` subclass using ``es.search(body=..., params=...)``,
  ``es.perform_request`` and ``es.options(...)``; ``delegating_health`` calls another runner
  via ``runner_for``/``unwrap``.
* ``register`` reads ``registry.meta_data["async_runner"]`` to choose async runners, as pmc does.
"""

from copy import copy

from esrally import exceptions
from esrally.driver.runner import Runner, runner_for, unwrap
from esrally.track import loader
from esrally.track.params import BulkIndexParamSource, ParamSource

DOC = '{"index":{"_index":"plugin-docs"}}\n{"title":"raw %d","status":%d}'


class RecordingScheduler:
    """Replays in ``replay-marks`` the schedule recorded by ``record-marks`` (class-level state)."""

    recorded = {}  # noqa: RUF012 - class-level state shared by the tasks of a race

    def __init__(self, task, target_throughput):
        self.task = task
        self.wait = 1 / target_throughput
        self.replay = list(RecordingScheduler.recorded.get("record-marks", []))

    def next(self, current):
        if self.task.name == "record-marks":
            RecordingScheduler.recorded.setdefault("record-marks", []).append(current + self.wait)
            return current + self.wait
        if self.replay:
            return self.replay.pop(0)
        return current + self.wait


async def record_marks(es, params):
    # Rally times a runner by its requests: a runner that sends none fails under Rally.
    await es.cluster.health()
    return {"weight": 1, "unit": "ops", "success": True}


async def check_marks(es, params):
    await es.cluster.health()
    if RecordingScheduler.recorded.get("record-marks"):
        return {"weight": 1, "unit": "ops", "success": True}
    return {"weight": 1, "unit": "ops", "success": False, "error-type": "nothing-recorded"}


class RawBodySource:
    def __init__(self, track, params, **kwargs):
        self.form = params.get("body-form")
        if self.form not in ("str", "bytes", "lines"):
            raise exceptions.TrackConfigError(f"body-form must be str, bytes or lines, got [{self.form}]")
        self.calls = 0

    def partition(self, partition_index, total_partitions):
        return self

    @property
    def infinite(self):
        return True

    def params(self):
        self.calls += 1
        body = DOC % (self.calls, 200)
        if self.form == "bytes":
            body = (body + "\n").encode("utf-8")
        elif self.form == "lines":
            body = body.split("\n")
        return {
            "body": body,
            "action-metadata-present": True,
            "bulk-size": 1,
            "unit": "docs",
            "index": "plugin-docs",
        }


class WrappedBulkSource:
    def __init__(self, track, params, **kwargs):
        self.inner = BulkIndexParamSource(track, params, **kwargs)
        self.corpora = self.inner.corpora

    def partition(self, partition_index, total_partitions):
        return self.inner.partition(partition_index, total_partitions)

    def params(self):
        raise exceptions.RallyAssertionError("WrappedBulkSource must be partitioned")


class TermQuerySource(ParamSource):
    def __init__(self, track, params, **kwargs):
        super().__init__(track, params, **kwargs)
        self.per_client = params.get("queries-per-client", 1)
        self.index = track.indices[0].name
        self.done = 0

    def partition(self, partition_index, total_partitions):
        clone = copy(self)
        clone.offset = partition_index
        return clone

    def size(self):
        return self.per_client

    def params(self):
        if self.done >= self.per_client:
            raise StopIteration()
        self.done += 1
        return {
            "index": self.index,
            "body": {"query": {"term": {"status": 200 + 100 * (self.offset % 3)}}},
        }


class RenameField(loader.TrackProcessor):
    def on_after_load_track(self, track):
        for task in track.challenges[0].schedule:
            if task.name.endswith("-rewritten"):
                task.operation = copy(task.operation)
                task.operation.params = self._rename(task.operation.params)
                task.iterations = 6

    def _rename(self, value):
        if isinstance(value, dict):
            return {("title" if k == "FIELD" else k): self._rename(v) for k, v in value.items()}
        if isinstance(value, str):
            return "raw" if value == "title" else value
        return value


class ClientSearch(Runner):
    async def __call__(self, es, params):
        response = await es.search(
            index=params["index"], body=params["body"], params={"request_cache": "false"}
        )
        health = await es.perform_request("GET", "/_cluster/health")
        await es.options(ignore_status=404).indices.delete(index="no-such-index-of-the-fixture")
        hits = response["hits"]["total"]["value"]
        return {"weight": 1, "unit": "ops", "success": hits > 0 and "status" in health, "hits": hits}

    def __repr__(self):
        return "client-search"


async def delegating_health(es, params):
    await unwrap(runner_for("cluster-health"))(es, params)
    return 1, "ops"


def register(registry):
    async_runner = registry.meta_data.get("async_runner", False)
    if not async_runner:
        raise exceptions.SystemSetupError("this fixture needs async runners")
    registry.register_runner("record-marks", record_marks, async_runner=True)
    registry.register_runner("check-marks", check_marks, async_runner=True)
    registry.register_runner("client-search", ClientSearch(), async_runner=True)
    registry.register_runner("delegating-health", delegating_health, async_runner=True)
    registry.register_scheduler("recording-scheduler", RecordingScheduler)
    registry.register_param_source("raw-body-source", RawBodySource)
    registry.register_param_source("wrapped-bulk-source", WrappedBulkSource)
    registry.register_param_source("term-query-source", TermQuerySource)
    registry.register_track_processor(RenameField())
    registry.register_track_processor(loader.DefaultTrackPreparator())
