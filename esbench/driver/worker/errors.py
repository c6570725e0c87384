"""Why a request failed: Elasticsearch error bodies to one line, and a failed result to a description.

Two halves:

* :func:`error_line` / :func:`error_type_and_reason` read Elasticsearch's error body
  (``{"error": {"type", "reason", "root_cause": [...]}, "status": 400}``, ES
  ``ElasticsearchException#generateFailureXContent``). When the top-level reason only summarises
  (``search_phase_execution_exception: all shards failed``), the first root cause is appended, since
  that is what a user can act on (``query_shard_exception: failed to create query: ...``).
* :func:`describe_failure` turns a failed :class:`~esbench.driver.worker.runners.base.RunnerResult` into
  the fields of an :class:`~esbench.records.ErrorDescription` (error type, HTTP status,
  Elasticsearch error type, reason), reading back the lines written by :func:`error_line`, by
  :func:`esbench.driver.worker.outcome.classify` (``type: reason``) and by the bulk runner
  (``HTTP status 409, version_conflict_engine_exception: ...``); a plugin runner's free-text
  ``error-description`` becomes the reason as it is. :func:`note_failure` counts it in the task's
  recorder and logs each distinct description once per worker (the race log, ``esbench.log``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from esbench.driver.transport import jsonutil
from esbench.metrics.errors import clip_reason
from esbench.records import ErrorDescription, describe_line

logger = logging.getLogger(__name__)

#: Longest non-JSON error body shown, in characters.
MAX_BODY_CHARS = 200

# An Elasticsearch error type is a snake_case name with at least one underscore
# (parsing_exception, index_not_found_exception, es_rejected_execution_exception).
_ES_TYPE = re.compile(r"([a-z][a-z0-9]*(?:_[a-z0-9]+)+): (.*)", re.DOTALL)
_HTTP_PREFIX = re.compile(r"HTTP (\d{3})(?:: (.*))?", re.DOTALL)
_BULK_ITEM = re.compile(r"HTTP status (\d{3})(?:, ([a-z][a-z0-9_]*))?(?:: (.*))?", re.DOTALL)
_BULK_SEPARATOR = "; HTTP status "

# Failures repeat: a task failing at thousands of requests per second sends the same few
# descriptions again and again; parsing each once per worker keeps failed requests cheap.
_CACHE_LIMIT = 256
_described: dict[tuple[Any, Any, Any], tuple[str, int | None, str | None, str]] = {}


def error_type_and_reason(error: Mapping[str, Any]) -> tuple[str | None, str]:
    """``(type, reason)`` of an Elasticsearch ``error`` object; the first root cause is appended to
    the reason when it differs from the top-level error (``all shards failed; root cause
    query_shard_exception: failed to create query: ...``)."""
    kind = error.get("type")
    reason = str(error.get("reason") or "")
    roots = error.get("root_cause")
    if isinstance(roots, list) and roots and isinstance(roots[0], Mapping):
        root_type, root_reason = roots[0].get("type"), roots[0].get("reason")
        if root_reason and (root_type, root_reason) != (kind, reason):
            cause = f"{root_type}: {root_reason}" if root_type else str(root_reason)
            reason = f"{reason}; root cause {cause}" if reason else cause
    return (str(kind) if kind else None), reason


def body_error(body: Any) -> str | None:
    """``type: reason`` of a parsed error body (a dict with ``error``), or None if it has none."""
    if not isinstance(body, Mapping):
        return None
    error = body.get("error")
    if isinstance(error, Mapping):
        kind, reason = error_type_and_reason(error)
        return f"{kind}: {reason}" if kind and reason else (kind or reason or None)
    return str(error) if error else None


def error_line(status: int, body: bytes | None) -> str:
    """A one-line description of an HTTP error response: ``HTTP 400: type: reason``, else the
    start of the body (``HTTP 503: <first 200 characters>``)."""
    try:
        data = jsonutil.loads(body) if body else None
    except ValueError:
        data = None
    text = body_error(data)
    if text is None:
        text = body[:MAX_BODY_CHARS].decode("utf-8", "replace") if body else ""
    return f"HTTP {status}: {text}".rstrip(": ")


def describe_failure(result: Any) -> tuple[str, int | None, str | None, str]:
    """``(error_type, http_status, es_type, reason)`` of a failed runner result.

    Args:
        result: a :class:`~esbench.driver.worker.runners.base.RunnerResult` with ``success=False``.
    """
    error_type = result.error_type or "unknown"
    status = result.http_status
    text = " ".join(str(result.error_description or "").split())
    es_type: str | None = None
    bulk = _BULK_ITEM.fullmatch(text.split(_BULK_SEPARATOR, 1)[0]) if error_type == "bulk" else None
    if bulk is not None:
        # The first failed item stands for the request (the runner lists up to three).
        return error_type, int(bulk[1]), bulk[2], clip_reason(bulk[3] or "")
    http = _HTTP_PREFIX.fullmatch(text)
    if http is not None:
        status = status if status is not None else int(http[1])
        text = http[2] or ""
    typed = _ES_TYPE.fullmatch(text)
    if typed is not None:
        es_type, text = typed[1], typed[2]
    return error_type, status, es_type, clip_reason(text)


def note_failure(run: Any, result: Any, *, warmup: bool) -> None:
    """Count a failed request's description in the task's recorder; log it the first time.

    Args:
        run: the :class:`~esbench.driver.worker.taskrun.TaskRun` of the request's task.
        result: the failed :class:`~esbench.driver.worker.runners.base.RunnerResult`.
        warmup: whether the request was a warmup sample.
    """
    raw = (result.error_type, result.http_status, result.error_description)
    described = _described.get(raw)
    if described is None:
        described = describe_failure(result)
        if len(_described) >= _CACHE_LIMIT:
            _described.clear()
        _described[raw] = described
    error_type, status, es_type, reason = described
    if run.recorder.describe_error(
        warmup=warmup, error_type=error_type, http_status=status, es_type=es_type, reason=reason
    ):
        line = describe_line(
            ErrorDescription(error_type=error_type, http_status=status, es_type=es_type, reason=reason)
        )
        logger.warning(
            "Task '%s'%s: a request failed: %s (logged once per worker and description)",
            run.task.name,
            " (warmup)" if warmup else "",
            line,
        )
