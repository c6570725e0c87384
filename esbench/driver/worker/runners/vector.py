"""OpenSearch Benchmark's k-NN operations: ``vector-search`` (a search that reports recall) and
``bulk-vector-data-set`` (bulk requests of vectors, with retries of the failed documents).

Source: OSB 2.4.0, ``osbenchmark/worker_coordinator/runner.py``: ``Query`` (its
``_vector_search_query_with_recall`` path, chosen by ``operation-type: vector-search``) and
``BulkVectorDataSet``. The params come from :mod:`esbench.driver.worker.params.vector`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from esbench.driver.transport.failures import is_instance
from esbench.driver.worker.runners.base import (
    RallyParams,
    Runner,
    RunnerResult,
    failed,
    json_or_none,
    mandatory,
    path_part,
    request_options,
    send,
)
from esbench.driver.worker.runners.bulk import NDJSON_HEADERS, ndjson_body

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient

logger = logging.getLogger(__name__)


# ------------------------------------------------------------------------------------ recall


def topk_recall(predictions: Sequence[object], neighbors: Sequence[str] | None, top_k: int) -> float:
    """OSB's ``calculate_topk_search_recall``: the share of the first ``top_k`` true neighbors
    (ids as strings, ``"-1"`` padding) found among the first ``top_k`` predictions.

    When the ``top_k``-th neighbor is ``-1`` the truth is cut before the padding (OSB cuts one
    id more, and so does this); no true neighbor left gives 1.0; no neighbors 0.0.
    """
    if neighbors is None:
        return 0.0
    count = min(top_k, len(neighbors))
    truth = list(neighbors[:count])
    if int(neighbors[count - 1]) == -1:
        truth = truth[: _last_before_padding(truth) - 1]
        if not truth:
            return 1.0
    correct = sum(1 for j in range(min(count, len(predictions))) if predictions[j] in truth)
    return correct / len(truth)


def _last_before_padding(neighbors: Sequence[str]) -> int:
    low, high = 0, len(neighbors)
    while low < high:
        mid = (low + high) // 2
        if neighbors[mid] == "-1":
            high = mid
        else:
            low = mid + 1
    return low - 1


def radial_recall(predictions: Sequence[object], neighbors: Sequence[str], top_1: bool = False) -> float:
    """OSB's ``calculate_radial_search_recall``: the share of the true neighbors (up to the first
    ``"-1"``) among the predictions; with ``top_1`` 1.0 if the first prediction is one of them.
    No true neighbor gives 1.0."""
    truth = list(neighbors[: neighbors.index("-1")]) if "-1" in neighbors else list(neighbors)
    if not truth:
        return 1.0
    if top_1:
        return 1.0 if predictions and predictions[0] in truth else 0.0
    return len(set(predictions) & set(truth)) / len(truth)


def _field_value(hit: Mapping[str, Any], field: str, id_field: str) -> Any:
    if field in hit:
        return hit[field]
    fields = hit.get("fields")
    if isinstance(fields, Mapping) and id_field in fields:
        return fields[id_field][0]
    source = hit.get("_source")
    if isinstance(source, Mapping):
        return _field_value(source, field, id_field)
    return None


def _wants_recall(params: RallyParams) -> bool:
    # OSB skips recall when the task has more clients than the load driver has cores.
    clients = params.get("num_clients", 0)
    cores = params.get("num_cores")
    if cores is not None and cores < clients:
        return False
    return bool(params.get("calculate-recall", True))


class VectorSearch(Runner):
    """``vector-search``: ``GET /<index>[/<type>]/_search`` with the param source's k-NN query,
    then recall against the query's true ``neighbors``.

    Params: ``index``, ``body`` (mandatory), ``results-per-page`` (-> body ``size``),
    ``profile-query``, ``cache`` (-> ``request_cache``), ``request-params``, ``headers``,
    ``opaque-id``, ``request-timeout``, ``response-compression-enabled`` (True),
    ``detailed-results`` (False), ``k`` / ``max_distance`` / ``min_score``, ``neighbors``,
    ``id-field-name`` (``_id``), ``calculate-recall`` (True), ``num_clients``/``num_cores``.

    Returns 1 op with ``recall@k`` and ``recall@1`` (top-k search), or ``recall@max_distance``
    and ``recall@max_distance_1`` / ``recall@min_score`` and ``recall@min_score_1`` (radial
    search), and ``recall_time_ms`` (ms spent on the recall); with ``detailed-results`` also
    ``hits``, ``hits_relation``, ``timed_out``, ``took``; with ``profile-query`` the summed
    ``profile-metrics`` (ms).
    """

    name = "vector-search"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        index = mandatory(params, "index", self.name)
        body = dict(mandatory(params, "body", self.name))
        query, headers, timeout = request_options(params)
        if params.get("results-per-page"):
            body["size"] = params["results-per-page"]
        profile = bool(params.get("profile-query", False))
        if profile:
            body["profile"] = True
        if not params.get("response-compression-enabled", True):
            headers = {**(headers or {}), "Accept-Encoding": "identity"}
        if params.get("cache") is not None:
            query["request_cache"] = str(params["cache"]).lower()
        meta: dict[str, Any] = {}
        recall = _wants_recall(params)
        if recall:
            meta.update(_initial_recall(params))
        doc_type = params.get("type")
        path = (
            f"/{path_part(index)}/{path_part(doc_type)}/_search"
            if doc_type
            else f"/{path_part(index)}/_search"
        )
        response = await send(es, "GET", path, query=query, body=body, headers=headers, timeout=timeout)
        if response.status >= 400:
            return failed(response)
        started = time.perf_counter()
        answer = json_or_none(response) or {}
        if params.get("detailed-results", False):
            total = (answer.get("hits") or {}).get("total", 0)
            meta.update(
                hits=total.get("value", 0) if isinstance(total, Mapping) else total,
                hits_relation=total.get("relation", "eq") if isinstance(total, Mapping) else "eq",
                timed_out=answer.get("timed_out", False),
                took=answer.get("took", 0),
            )
        if profile:
            meta["profile-metrics"] = _profile_metrics(answer, list(params.get("profile-metrics") or []))
        hits = (answer.get("hits") or {}).get("hits") or []
        radial = "max_distance" in params or "min_score" in params
        if not hits and not radial:
            return RunnerResult(meta=meta or None)
        if not recall:
            return RunnerResult(meta=meta or None)
        id_field = params.get("id-field-name") or "_id"
        candidates = [v for v in (_field_value(h, id_field, id_field) for h in hits) if v is not None]
        neighbors = params["neighbors"]
        if "k" in params:
            meta["recall@k"] = topk_recall(candidates, neighbors, params.get("k", 1))
            meta["recall@1"] = topk_recall(candidates, neighbors, 1)
        if radial:
            key = "recall@min_score" if "min_score" in params else "recall@max_distance"
            meta[key] = radial_recall(candidates, neighbors)
            meta[f"{key}_1"] = radial_recall(candidates, neighbors, top_1=True)
        meta["recall_time_ms"] = (time.perf_counter() - started) * 1000.0
        return RunnerResult(meta=meta)


def _initial_recall(params: RallyParams) -> dict[str, float]:
    if "k" in params:
        return {"recall@k": 0, "recall@1": 0}
    if "max_distance" in params:
        return {"recall@max_distance": 0, "recall@max_distance_1": 0}
    if "min_score" in params:
        return {"recall@min_score": 0, "recall@min_score_1": 0}
    return {}


def _profile_metrics(answer: Mapping[str, Any], metrics: list[str]) -> dict[str, float]:
    """OSB's ``get_profile_metrics``: each breakdown metric (and ``query_time``) summed over the
    profiled queries of every shard, in ms."""
    names = [*metrics, "query_time"]
    totals = dict.fromkeys(names, 0.0)

    def add(query: Mapping[str, Any]) -> None:
        breakdown = query["breakdown"]
        for name in totals:
            if name in breakdown:
                totals[name] += breakdown[name]
        for child in query.get("children", ()):
            add(child)

    try:
        for shard in answer["profile"]["shards"]:
            for search in shard["searches"]:
                for query in search["query"]:
                    totals["query_time"] += query["time_in_nanos"]
                    add(query)
    except (KeyError, TypeError):
        logger.exception("The search response has no profile to read %s from.", names)
        return dict.fromkeys(names, 0.0)
    return {name: value / 1e6 for name, value in totals.items()}


# -------------------------------------------------------------------------- bulk of vectors


class BulkVectorDataSet(Runner):
    """``bulk-vector-data-set``: ``POST /_bulk`` of ``body`` (a list of action and document
    objects, or NDJSON text); documents that fail are sent again, alone, up to ``retries`` times
    with exponential backoff (``retry-wait-period`` 0.5 s doubling, at most
    ``retry-max-wait-period`` 60 s); a client timeout is retried the same way.

    Returns the documents of the first body (``unit`` default ``docs``); success when every
    document was indexed in the end. Meta-data as OSB's: ``size``, ``index``, ``took``,
    ``success-count``, ``error-count``; with ``detailed-results`` (default True) also ``ops``,
    ``shards_histogram``, ``bulk-request-size-bytes``, ``total-document-size-bytes``,
    ``failed-documents`` and ``failed-indices`` of the last attempt.
    """

    name = "bulk-vector-data-set"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        with_meta = bool(params.get("action-metadata-present", True))
        unit = str(params.get("unit", "docs"))
        attempts = int(params.get("retries", 0)) + 1
        detailed = bool(params.get("detailed-results", True))
        wait = float(params.get("retry-wait-period", 0.5))
        max_wait = float(params.get("retry-max-wait-period", 60))
        body: Any = params["body"]
        total = _doc_count(body, with_meta)
        succeeded = 0
        for attempt in range(attempts):
            docs = _doc_count(body, with_meta)
            try:
                response = await send(es, "POST", "/_bulk", body=ndjson_body(body), headers=NDJSON_HEADERS)
            except Exception as exc:
                # OSB retries the client's ConnectionTimeout only.
                if not (isinstance(exc, TimeoutError) or is_instance(exc, "ConnectionTimeout")):
                    raise
                await asyncio.sleep(min(wait * 2**attempt, max_wait))
                continue
            if response.status >= 400:
                return failed(response, weight=total, unit=unit)
            answer = json_or_none(response) or {}
            stats = (
                _detailed_stats(body, with_meta, answer) if detailed else _simple_stats(docs, unit, answer)
            )
            succeeded += int(stats.get("success-count") or 0)
            failed_indices = stats.get("failed-indices") or []
            if not stats["success"] and detailed and failed_indices and attempt < attempts - 1:
                body = _retry_body(body, failed_indices, with_meta)
                await asyncio.sleep(min(wait * 2**attempt, max_wait))
                continue
            errors = total - succeeded
            meta: dict[str, Any] = {"size": total, "index": params.get("index"), **stats}
            meta.update({"success-count": succeeded, "error-count": errors})
            meta.pop("success", None)
            description = meta.pop("error-description", None)
            meta.pop("error-type", None)
            if errors > 0:
                return RunnerResult(
                    weight=total,
                    unit=unit,
                    success=False,
                    error_type="bulk",
                    error_description=description,
                    meta=meta,
                )
            return RunnerResult(weight=total, unit=unit, meta=meta)
        return RunnerResult(
            weight=0,
            unit=unit,
            success=False,
            error_type="timeout",
            error_description=f"Failed to submit bulk request in specified number of retries: {attempts}",
        )


def _lines(body: object) -> tuple[list[Any], bool]:
    if isinstance(body, str):
        return [line for line in body.split("\n") if line], True
    if isinstance(body, list):
        return body, False
    raise TypeError(f"a bulk body is a list or a string, not {type(body).__name__}")


def _doc_count(body: object, with_meta: bool) -> int:
    lines, _ = _lines(body)
    return len(lines) // 2 if with_meta else len(lines)


def _entry_size(entry: object, is_text: bool) -> int:
    if is_text or isinstance(entry, str):
        return len(str(entry).encode("utf-8"))
    if isinstance(entry, bytes | bytearray):
        return len(entry)
    # OSB measures an object as json.dumps writes it (ASCII escapes), not as the client sends it.
    return len(json.dumps(entry, separators=(",", ":")).encode("utf-8"))


def _error_description(details: set[tuple[int, str | None]]) -> str:
    return "".join(
        f"HTTP status: {status}, message: {reason}" if reason else f"HTTP status: {status}"
        for status, reason in details
    )


def _item_failed(data: Mapping[str, Any]) -> bool:
    return bool(data["status"] > 299 or ("_shards" in data and data["_shards"]["failed"] > 0))


def _note_error(details: set[tuple[int, str | None]], data: Mapping[str, Any]) -> None:
    error = data.get("error", {})
    reason = error.get("reason") if isinstance(error, Mapping) else str(error)
    details.add((data["status"], reason if error else None))


def _detailed_stats(body: object, with_meta: bool, answer: Mapping[str, Any]) -> dict[str, Any]:
    lines, is_text = _lines(body)
    docs: list[Any] = []
    request_bytes = doc_bytes = 0
    for number, entry in enumerate(lines):
        size = _entry_size(entry, is_text)
        if not with_meta or number % 2 == 1:
            doc_bytes += size
            docs.append(entry)
        request_bytes += size
    ops: dict[str, Counter[str]] = {}
    histogram: dict[str, dict[str, Any]] = {}
    failed_docs: list[Any] = []
    failed_indices: list[int] = []
    details: set[tuple[int, str | None]] = set()
    errors = successes = 0
    for position, item in enumerate(answer.get("items", [])):
        op, data = next(iter(item.items()))
        counts = ops.setdefault(op, Counter())
        counts["item-count"] += 1
        if "result" in data:
            counts[data["result"]] += 1
        if "_shards" in data:
            s = data["_shards"]
            key = f"{s['total']}-{s['successful']}-{s['failed']}"
            histogram.setdefault(key, {"item-count": 0, "shards": s})["item-count"] += 1
        if _item_failed(data):
            errors += 1
            if position < len(docs):
                failed_docs.append(docs[position])
                failed_indices.append(position)
            _note_error(details, data)
        else:
            successes += 1
    stats: dict[str, Any] = {
        "took": answer.get("took"),
        "success": errors == 0,
        "success-count": successes,
        "error-count": errors,
        "ops": {op: dict(c) for op, c in ops.items()},
        "shards_histogram": list(histogram.values()),
        "bulk-request-size-bytes": request_bytes,
        "total-document-size-bytes": doc_bytes,
        "failed-documents": failed_docs,
        "failed-indices": failed_indices,
    }
    if errors:
        stats["error-type"] = "bulk"
        stats["error-description"] = _error_description(details)
    if "ingest_took" in answer:
        stats["ingest_took"] = answer["ingest_took"]
    return stats


def _simple_stats(docs: int, unit: str, answer: Mapping[str, Any]) -> dict[str, Any]:
    successes: int | None = docs if unit == "docs" else None
    errors = 0
    details: set[tuple[int, str | None]] = set()
    if answer.get("errors", False):
        successes = 0
        for item in answer.get("items", []):
            data = next(iter(item.values()))
            if _item_failed(data):
                errors += 1
                _note_error(details, data)
            else:
                successes += 1
    stats: dict[str, Any] = {
        "took": answer.get("took"),
        "success": errors == 0,
        "success-count": successes,
        "error-count": errors,
    }
    if errors:
        stats["error-type"] = "bulk"
        stats["error-description"] = _error_description(details)
    return stats


def _retry_body(body: object, failed_indices: list[int], with_meta: bool) -> object:
    lines, is_text = _lines(body)
    picked: list[Any] = []
    for idx in failed_indices:
        if with_meta:
            picked.extend(
                lines[idx * 2 : idx * 2 + 2] if not is_text else [lines[idx * 2], _at(lines, idx * 2 + 1)]
            )
        else:
            picked.append(lines[idx])
    if is_text:
        return "\n".join(picked) + ("\n" if picked else "")
    return picked


def _at(lines: list[Any], index: int) -> Any:
    return lines[index] if index < len(lines) else ""
