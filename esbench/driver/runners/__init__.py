"""Built-in runners, one class per operation type, grouped by family (see each module)."""

from __future__ import annotations

from esbench.driver.runners.base import LegacyRunner, Retry, Runner, RunnerResult, normalize_result
from esbench.driver.runners.bulk import Bulk
from esbench.driver.runners.cluster import ClusterHealth, NodeStats, PutPipeline, PutSettings
from esbench.driver.runners.indices import (
    CreateDataStream,
    CreateIndex,
    DeleteDataStream,
    DeleteIndex,
    ForceMerge,
    IndexStats,
    Refresh,
)
from esbench.driver.runners.misc import ClosePointInTime, FieldCaps, OpenPointInTime, RawRequest, Sleep
from esbench.driver.runners.search import CompositeAgg, PaginatedSearch, ScrollSearch, Search
from esbench.driver.runners.templated import TemplatedRequest
from esbench.driver.runners.templates import (
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
    operations that are not idempotent (bulk, force-merge, point in time) or that are measured as
    they come (searches, raw requests) are not.
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
    ):
        runners[runner.name] = Retry(runner)
    return runners
