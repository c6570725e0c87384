"""Built-in runners, one class per operation type, grouped by family (see each module)."""

from __future__ import annotations

from esbench.driver.worker.runners import async_search, index_admin, ml, snapshot, sql, transform
from esbench.driver.worker.runners.base import LegacyRunner, Retry, Runner, RunnerResult, normalize_result
from esbench.driver.worker.runners.bulk import Bulk
from esbench.driver.worker.runners.cluster import ClusterHealth, NodeStats, PutPipeline, PutSettings
from esbench.driver.worker.runners.composite import Composite
from esbench.driver.worker.runners.ilm import CreateIlmPolicy, DeleteIlmPolicy
from esbench.driver.worker.runners.indices import (
    CreateDataStream,
    CreateIndex,
    DeleteDataStream,
    DeleteIndex,
    ForceMerge,
    IndexStats,
    Refresh,
)
from esbench.driver.worker.runners.misc import ClosePointInTime, FieldCaps, OpenPointInTime, RawRequest, Sleep
from esbench.driver.worker.runners.run_until import RunUntil
from esbench.driver.worker.runners.search import CompositeAgg, PaginatedSearch, ScrollSearch, Search
from esbench.driver.worker.runners.templated import TemplatedRequest
from esbench.driver.worker.runners.templates import (
    CreateComponentTemplate,
    CreateComposableTemplate,
    CreateIndexTemplate,
    DeleteComponentTemplate,
    DeleteComposableTemplate,
    DeleteIndexTemplate,
)

__all__ = [
    "LegacyRunner",
    "Retry",
    "Runner",
    "RunnerResult",
    "builtin_runners",
    "normalize_result",
]


def builtin_runners() -> dict[str, Runner]:
    """Operation type -> runner instance, for a new registry.

    Administrative operations are wrapped in :class:`Retry` (Rally's ``register_default_runners``);
    operations that are not idempotent (bulk, force-merge, point in time, create/restore snapshot,
    downsample) or that are measured as they come (searches, raw requests, sql, esql, async
    search submit/delete) are not; ``get-async-search`` retries until it succeeds. All 59 operation
    types of Rally 2.13's ``OperationType`` have a runner here.
    """
    runners: dict[str, Runner] = {
        "bulk": Bulk(),
        "search": Search(),
        "paginated-search": PaginatedSearch(),
        "scroll-search": ScrollSearch(),
        "composite-agg": CompositeAgg(),
        "raw-request": RawRequest(),
        "sleep": Sleep(),
        "node-stats": NodeStats(),
        "force-merge": ForceMerge(),
        "field-caps": FieldCaps(),
        "open-point-in-time": OpenPointInTime(),
        "close-point-in-time": ClosePointInTime(),
        "submit-async-search": async_search.SubmitAsyncSearch(),
        "get-async-search": Retry(async_search.GetAsyncSearch(), retry_until_success=True),
        "delete-async-search": async_search.DeleteAsyncSearch(),
        "sql": sql.Sql(),
        "esql": sql.Esql(),
        "esql-profile": sql.EsqlProfile(),
        "create-snapshot": snapshot.CreateSnapshot(),
        "restore-snapshot": snapshot.RestoreSnapshot(),
        "downsample": index_admin.Downsample(),
        "templated-request": TemplatedRequest(),
    }
    for runner in (
        IndexStats(),
        ClusterHealth(),
        Refresh(),
        CreateIndex(),
        DeleteIndex(),
        CreateDataStream(),
        DeleteDataStream(),
        CreateIndexTemplate(),
        DeleteIndexTemplate(),
        CreateComposableTemplate(),
        DeleteComposableTemplate(),
        CreateComponentTemplate(),
        DeleteComponentTemplate(),
        PutPipeline(),
        PutSettings(),
        index_admin.ShrinkIndex(),
        index_admin.WaitForRecovery(),
        ml.CreateMlDatafeed(),
        ml.DeleteMlDatafeed(),
        ml.StartMlDatafeed(),
        ml.StopMlDatafeed(),
        ml.CreateMlJob(),
        ml.DeleteMlJob(),
        ml.OpenMlJob(),
        ml.CloseMlJob(),
        snapshot.CreateSnapshotRepository(),
        snapshot.DeleteSnapshotRepository(),
        snapshot.WaitForSnapshotCreate(),
        snapshot.WaitForCurrentSnapshotsCreate(),
        transform.CreateTransform(),
        transform.StartTransform(),
        transform.WaitForTransform(),
        transform.DeleteTransform(),
        transform.TransformStats(),
        CreateIlmPolicy(),
        DeleteIlmPolicy(),
        RunUntil(),
    ):
        runners[runner.name] = Retry(runner)
    # The composite's items run with the runners of this table (Rally: ``runner_for``).
    runners["composite"] = Composite(runners)
    return runners
