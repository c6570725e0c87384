"""The results store's table layout: the columns of the ``races`` and ``tasks`` tables and the
encoding of a race's dict (``RaceResult.to_dict``) into rows and back (fields without a column go
into the ``extra`` JSON column)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

from esbench.records import RESULTS_FORMAT_VERSION

RACE_COLUMNS = (
    "race_id",
    "timestamp",
    "track",
    "challenge",
    "track_params",
    "car",
    "car_params",
    "pipeline",
    "distribution_version",
    "cluster_version",
    "cluster_nodes",
    "esbench_version",
    "test_mode",
    "status",
    "error",
    "duration_s",
    "format_version",
    "extra",
)
RACE_JSON = frozenset({"track_params", "car_params", "extra"})
RACE_BOOL = frozenset({"test_mode"})

TASK_COLUMNS = (
    "task",
    "operation",
    "operation_type",
    "throughput_unit",
    "throughput_min",
    "throughput_mean",
    "throughput_median",
    "throughput_max",
    "throughput_windows",
    "latency_ms",
    "service_time_ms",
    "processing_time_ms",
    "mean_service_time_ms",
    "sample_count",
    "error_count",
    "errors_by_type",
    "total_weight",
    "duration_s",
    "include_in_reporting",
    "warmup_sample_count",
    "extra",
)
TASK_JSON = frozenset(
    {"throughput_windows", "latency_ms", "service_time_ms", "processing_time_ms", "errors_by_type", "extra"}
)
TASK_BOOL = frozenset({"include_in_reporting"})
INSERT_RACE = f"INSERT INTO races ({', '.join(RACE_COLUMNS)}) VALUES ({', '.join('?' * len(RACE_COLUMNS))})"


def race_row(data: Mapping[str, object]) -> tuple[object, ...]:
    """The ``races`` row of a race's dict. The user tags go to ``race_tags`` as text
    (:func:`esbench.records.tag_text`, what filters compare); when a value is not a string (Rally's
    typed tags: 4, true, a JSON object's values) the typed tags are kept in ``extra`` too, which
    :meth:`esbench.results.store.ResultsStore` reads back in preference to the text."""
    data = dict(data)
    tags = data.pop("user_tags", None)
    data.pop("tasks", None)
    data.pop("cluster_metrics", None)
    data.setdefault("format_version", RESULTS_FORMAT_VERSION)
    extra = {k: data.pop(k) for k in list(data) if k not in RACE_COLUMNS}
    if isinstance(tags, Mapping) and any(not isinstance(v, str) for v in tags.values()):
        extra["user_tags"] = dict(tags)
    data["extra"] = extra
    return encode_row(RACE_COLUMNS, data, RACE_JSON, RACE_BOOL)


def task_row(task: Mapping[str, object]) -> tuple[object, ...]:
    task = dict(task)
    extra = {k: task.pop(k) for k in list(task) if k not in TASK_COLUMNS}
    task["extra"] = extra
    return encode_row(TASK_COLUMNS, task, TASK_JSON, TASK_BOOL)


def encode_row(
    columns: Sequence[str], data: Mapping[str, object], json_cols: frozenset[str], bool_cols: frozenset[str]
) -> tuple[object, ...]:
    out: list[object] = []
    for col in columns:
        value = data.get(col)
        if col in json_cols:
            value = json.dumps(value if value is not None else {}, sort_keys=False, allow_nan=True)
        elif col in bool_cols:
            value = int(bool(value))
        out.append(value)
    return tuple(out)


def decode_row(
    columns: Sequence[str], row: Sequence[object], json_cols: frozenset[str], bool_cols: frozenset[str]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for col, value in zip(columns, row, strict=True):
        if col in json_cols:
            # JSON columns are TEXT, written by encode_row.
            value = json.loads(cast("str", value)) if value is not None else {}
        elif col in bool_cols:
            value = bool(value)
        out[col] = value
    return out
