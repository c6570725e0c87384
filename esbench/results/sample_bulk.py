"""The per-request sample documents of the metrics store, encoded straight into bulk bodies.

A task of 700,000 requests has 2.1 million ``latency``/``service_time``/``processing_time``
documents (esrally/driver/driver.py ``SamplePostprocessor``: three per request). Built as dicts
and serialized one by one, they cost about 50 µs of the driver's CPU per request
(``benchmarks/bench_store_samples.py``), several times the request itself. But of each document only
the times and the value vary: the rest (race, track, challenge, car, user tags, task, metric name,
unit, sample type, success) is the same for every request of a task that shares its outcome. So the
constant part is encoded once per (metric, sample type, outcome) with :func:`json.dumps` and each
document is that prefix plus three numbers.

The dict form, :func:`esbench.results.store_metric_documents.sample_documents`, stays the
specification: a unit test decodes these bodies and compares them with it document by document.
Floats are written with ``repr`` as :mod:`json` writes them; the durations and times of a request
are finite (a clock's readings), so no ``NaN`` can arise.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from esbench.records.samples import FAILED, WARMUP, RequestSamples

#: Rally's metric names of the three request durations, with the column of each.
_COLUMNS = (
    ("latency", "latency_ms"),
    ("service_time", "service_time_ms"),
    ("processing_time", "processing_time_ms"),
)

#: Bytes of one bulk body before a new one starts (Elasticsearch's default limit is 100 MiB).
MAX_BODY_BYTES = 8 * 1024 * 1024


def sample_bulk_bodies(
    common: Mapping[str, Any],
    meta: Mapping[str, Any],
    samples: RequestSamples,
    index: str,
    *,
    relative_field: str = "relative-time",
    max_body_bytes: int = MAX_BODY_BYTES,
) -> Iterator[tuple[bytes, int]]:
    """The bulk bodies (NDJSON, ``index`` actions into ``index``) of ``samples``' documents, each
    with its document count; a body stops growing past ``max_body_bytes``.

    Args:
        common: the fields every metrics document of the race starts with (race id, timestamps,
            track, challenge, car, environment, track params: the layout's names).
        meta: the race's meta fields (user tags), merged under each document's ``meta``.
        samples: one task's requests.
        index: the metrics index (``rally-metrics-YYYY-MM``, ``benchmark-metrics-YYYY-MM``).
        relative_field: the name of the ms-since-the-task's-start field in the layout
            (:class:`esbench.results.store_layout.StoreLayout`'s ``fields.relative_time``).
    """
    zero = samples.task_start_epoch
    if zero is None:
        zero = min(samples.start_epoch, default=0.0)
    action = json.dumps({"index": {"_index": index}}, separators=(",", ":")) + "\n"
    names = {"task": samples.task, "operation": samples.operation, "operation-type": samples.operation_type}
    columns = [(name, getattr(samples, column)) for name, column in _COLUMNS]
    prefixes: dict[tuple[int, str | None], tuple[str, str, str]] = {}
    relative = json.dumps(relative_field)

    def prefix(flags: int, error_type: str | None) -> tuple[str, str, str]:
        doc_meta: dict[str, Any] = dict(meta) | {"success": not flags & FAILED}
        if flags & FAILED:
            doc_meta["error-type"] = error_type
        sample_type = "warmup" if flags & WARMUP else "normal"
        encoded = []
        for name, _ in columns:
            fixed = {
                **common,
                "name": name,
                "unit": "ms",
                "sample-type": sample_type,
                "meta": doc_meta,
                **names,
            }
            # Without its closing brace: the varying fields follow.
            encoded.append(action + json.dumps(fixed, ensure_ascii=False)[:-1])
        return encoded[0], encoded[1], encoded[2]

    (_, latency), (_, service), (_, processing) = columns
    parts: list[str] = []
    size = 0
    count = 0
    for i, start in enumerate(samples.start_epoch):
        flags = samples.flags[i] & (FAILED | WARMUP)
        error_type = samples.error_types.get(i, "unknown") if flags & FAILED else None
        key = (flags, error_type)
        fixed = prefixes.get(key)
        if fixed is None:
            fixed = prefixes[key] = prefix(flags, error_type)
        times = f', "@timestamp": {round(start * 1000)}, {relative}: {(start - zero) * 1000.0!r}, "value": '
        chunk = (
            f"{fixed[0]}{times}{latency[i]!r}}}\n"
            f"{fixed[1]}{times}{service[i]!r}}}\n"
            f"{fixed[2]}{times}{processing[i]!r}}}\n"
        )
        parts.append(chunk)
        size += len(chunk)
        count += 3
        if size >= max_body_bytes:
            yield "".join(parts).encode(), count
            parts, size, count = [], 0, 0
    if parts:
        yield "".join(parts).encode(), count
