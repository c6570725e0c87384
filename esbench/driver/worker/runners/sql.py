"""Query-language operations: ``sql``, ``esql``, ``esql-profile``.

Requests and results follow Rally 2.13's ``esrally/driver/runner.py`` (``Sql``, ``Esql``,
``EsqlProfile``). The APIs are in the ``x-pack-sql`` and ``x-pack-esql`` modules; a cluster without
them answers with a failed request naming the module (:func:`~.features.missing_module`; ``POST
/_sql`` there reads as a request on an index named ``_sql`` and is answered 405).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from esbench.driver.worker.runners.base import (
    RallyParams,
    Runner,
    RunnerResult,
    json_or_none,
    mandatory,
    request_options,
    send,
)
from esbench.driver.worker.runners.features import ESQL, SQL, operation_failed, result_of
from esbench.exceptions import ConfigError

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient


class Sql(Runner):
    """``sql``: ``POST /_sql`` with ``body`` (which must have ``query``), then ``pages - 1`` more
    requests ``POST /_sql {"cursor": ...}`` (``pages`` default 1); weight = pages fetched (ops).

    Raises:
        esbench.exceptions.ConfigError: ``body.query`` is missing.
        OperationFailed: the result set ends (no ``cursor``) before ``pages`` pages were fetched.
    """

    name = "sql"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        body = mandatory(params, "body", self.name)
        if not isinstance(body, Mapping) or body.get("query") is None:
            raise ConfigError(
                f"Operation '{params.get('name') or self.name}' (sql) needs the parameter 'body.query' "
                f"(the SQL statement). Add it to the operation (or to what its param source returns)."
            )
        query, headers, timeout = request_options(params)
        pages = int(params.get("pages", 1))
        response = await send(es, "POST", "/_sql", query=query, body=body, headers=headers, timeout=timeout)
        weight = 1
        while True:
            result = result_of(response, module=SQL)
            if not result.success:
                return result
            pages -= 1
            if pages <= 0:
                return RunnerResult(weight=weight)
            cursor = (json_or_none(response) or {}).get("cursor")
            if not cursor:
                raise operation_failed(
                    self.name,
                    params,
                    f"the result set has been exhausted before all pages have been fetched, "
                    f"{pages} page(s) remaining.",
                )
            response = await send(
                es, "POST", "/_sql", query=query, body={"cursor": cursor}, headers=headers, timeout=timeout
            )
            weight += 1


def _esql_body(params: RallyParams, operation: str) -> dict[str, object]:
    body = dict(params.get("body") or {})
    body["query"] = mandatory(params, "query", operation)
    if params.get("filter"):
        body["filter"] = params["filter"]
    return body


#: Top-level scalar fields of an ES|QL response that ``detailed-results`` records.
_DETAILED = (
    "took",
    "is_partial",
    "documents_found",
    "values_loaded",
    "completion_time_in_millis",
    "start_time_in_millis",
    "expiration_time_in_millis",
)
# First occurrence of '"key": scalar' (an escaped quote inside a string value cannot match): Rally
# parses the response lazily (ijson) for the same reason, responses can be large.
_SCALAR = {
    key: re.compile(rb'(?<!\\)"' + key.encode() + rb'"\s*:\s*(true|false|-?\d+(?:\.\d+)?)')
    for key in _DETAILED
}


def _scalar(body: bytes, key: str) -> Any:
    match = _SCALAR[key].search(body)
    if match is None:
        return None
    raw = match.group(1)
    if raw in (b"true", b"false"):
        return raw == b"true"
    return float(raw) if b"." in raw else int(raw)


class Esql(Runner):
    """``esql``: ``POST /_query`` with ``body`` (optional) plus ``query`` and ``filter``,
    ``request-params`` and ``headers``; 1 op.

    A response with ``is_partial: true`` is a failed operation (error type ``esql``). With
    ``detailed-results`` the meta-data also holds ``took``, ``documents_found``,
    ``values_loaded``, ``completion_time_in_millis``, ``start_time_in_millis``,
    ``expiration_time_in_millis``.
    """

    name = "esql"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        body = _esql_body(params, self.name)
        query, headers, timeout = request_options(params)
        response = await send(es, "POST", "/_query", query=query, body=body, headers=headers, timeout=timeout)
        result = result_of(response, module=ESQL)
        if not result.success:
            return result
        keys = _DETAILED if params.get("detailed-results", False) else ("is_partial",)
        meta = {key: _scalar(response.body, key) for key in keys}
        partial = bool(meta.get("is_partial"))
        meta["is_partial"] = partial
        if partial:
            return RunnerResult(
                success=False,
                error_type="esql",
                error_description="ES|QL query returned partial results",
                meta=meta,
            )
        return RunnerResult(meta=meta)


class EsqlProfile(Runner):
    """``esql-profile``: ``esql`` with ``"profile": true``; 1 op whose meta-data holds the profile in
    milliseconds: ``<phase>.took_ms`` (query, planning, parsing, preanalysis, dependency_resolution,
    analysis), per driver ``<driver>.number``, ``.took_ms``/``.cpu_ms`` (max),
    ``.took_total_ms``/``.cpu_total_ms`` (sum), ``<driver>.<operator>.process_ms`` and
    ``.processed_slices``, per plan ``<plan>.<optimization>.took_ms``."""

    name = "esql-profile"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        body = _esql_body(params, self.name)
        body["profile"] = True
        query, headers, timeout = request_options(params)
        response = await send(es, "POST", "/_query", query=query, body=body, headers=headers, timeout=timeout)
        result = result_of(response, module=ESQL)
        if not result.success:
            return result
        profile = (json_or_none(response) or {}).get("profile")
        return RunnerResult(meta=profile_metrics(profile) if profile else None)


def _add(result: dict[str, float], key: str, value: float) -> None:
    result[key] = result.get(key, 0) + value


def profile_metrics(profile: Mapping[str, Any]) -> dict[str, float]:
    """The flat metrics Rally's ``EsqlProfile`` derives from an ES|QL ``profile`` (ns -> ms)."""
    result: dict[str, float] = {}
    for phase in ("query", "planning", "parsing", "preanalysis", "dependency_resolution", "analysis"):
        took = (profile.get(phase) or {}).get("took_nanos", 0)
        if took > 0:
            result[f"{phase}.took_ms"] = took / 1_000_000
    for driver in profile.get("drivers", []):
        name = driver.get("description", "unknown")
        took = driver.get("took_nanos", 0) / 1_000_000
        cpu = driver.get("cpu_nanos", 0) / 1_000_000
        _add(result, f"{name}.number", 1)
        result[f"{name}.took_ms"] = max(result.get(f"{name}.took_ms", 0), took)
        result[f"{name}.cpu_ms"] = max(result.get(f"{name}.cpu_ms", 0), cpu)
        _add(result, f"{name}.took_total_ms", took)
        _add(result, f"{name}.cpu_total_ms", cpu)
        for idx, operator in enumerate(driver.get("operators", [])):
            op_name = operator.get("operator", f"operator_{idx}").split("[")[0]
            status = operator.get("status", {})
            nanos = (
                status.get("process_nanos", 0) + status.get("receive_nanos", 0) + status.get("emit_nanos", 0)
            )
            if nanos > 0:
                _add(result, f"{name}.{op_name}.process_ms", nanos / 1_000_000)
            slices = status.get("processed_slices", 0)
            if slices > 0:
                _add(result, f"{name}.{op_name}.processed_slices", slices)
    for plan in profile.get("plans", []):
        plan_name = plan.get("description", "unknown")
        for optimization in ("logical_optimization_nanos", "physical_optimization_nanos", "reduction_nanos"):
            nanos = plan.get(optimization, 0)
            if nanos > 0:
                _add(result, f"{plan_name}.{optimization.removesuffix('_nanos')}.took_ms", nanos / 1_000_000)
    return result
