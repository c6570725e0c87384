"""Param sources: Rally's contract (:mod:`.base`) and the built-in ones by operation type."""

from __future__ import annotations

from esbench.driver.worker.params.admin import (
    ClosePointInTimeParamSource,
    CreateComponentTemplateParamSource,
    CreateComposableTemplateParamSource,
    CreateDataStreamParamSource,
    CreateIndexParamSource,
    CreateIndexTemplateParamSource,
    DeleteComponentTemplateParamSource,
    DeleteComposableTemplateParamSource,
    DeleteDataStreamParamSource,
    DeleteIndexParamSource,
    DeleteIndexTemplateParamSource,
    ForceMergeParamSource,
    OpenPointInTimeParamSource,
    SleepParamSource,
)
from esbench.driver.worker.params.base import (
    DelegatingParamSource,
    ParamSource,
    is_infinite,
    operation_params,
)
from esbench.driver.worker.params.bulk import BulkParamSource
from esbench.driver.worker.params.operations import CompositeParamSource, DownsampleParamSource
from esbench.driver.worker.params.search import RawRequestParamSource, SearchParamSource
from esbench.driver.worker.params.template_source import TemplatedRequestParamSource

__all__ = [
    "DelegatingParamSource",
    "ParamSource",
    "builtin_param_sources",
    "is_infinite",
    "operation_params",
]


def builtin_param_sources() -> dict[str, type[ParamSource]]:
    """Operation type -> param source class for the built-in operations that need more than
    Rally's default source (the operation's params as they are)."""
    return {
        "bulk": BulkParamSource,
        "search": SearchParamSource,
        "paginated-search": SearchParamSource,
        "scroll-search": SearchParamSource,
        "composite-agg": SearchParamSource,
        "raw-request": RawRequestParamSource,
        "create-index": CreateIndexParamSource,
        "delete-index": DeleteIndexParamSource,
        "create-data-stream": CreateDataStreamParamSource,
        "delete-data-stream": DeleteDataStreamParamSource,
        "create-index-template": CreateIndexTemplateParamSource,
        "delete-index-template": DeleteIndexTemplateParamSource,
        "create-composable-template": CreateComposableTemplateParamSource,
        "delete-composable-template": DeleteComposableTemplateParamSource,
        "create-component-template": CreateComponentTemplateParamSource,
        "delete-component-template": DeleteComponentTemplateParamSource,
        "force-merge": ForceMergeParamSource,
        "sleep": SleepParamSource,
        "open-point-in-time": OpenPointInTimeParamSource,
        "close-point-in-time": ClosePointInTimeParamSource,
        "downsample": DownsampleParamSource,
        "composite": CompositeParamSource,
        "templated-request": TemplatedRequestParamSource,
    }
