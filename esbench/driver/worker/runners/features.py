"""Answers of a cluster that lacks the module an operation needs, and the shared result helpers of
the runners that call module APIs (snapshots, ML, transforms, ILM, async search, SQL, ES|QL...).

Elasticsearch answers a request for a REST handler that no installed module registered with

* HTTP 400 ``{"error": "no handler found for uri [/_ml/...] and method [PUT]"}``, or
* HTTP 405 ``{"error": "Incorrect HTTP method for uri [/_sql] and method [POST], allowed: [...]"}``
  when the path also matches a core handler (``/_sql`` reads as ``GET /{index}``)

(``RestController#handleNoHandlerFound`` / ``handleBadRequest`` in Elasticsearch's server module;
verified against the 8.19.0 integ-test-zip, whose modules are only ``transport-netty4``,
``x-pack-core``, ``x-pack-security`` and ``apm``). Rally 2.13 records such an answer as a failed
request like any other (``execute_single`` turns the client's ``ApiError`` into a sample with
``success: false``) and, with ``--on-error=continue``, goes on with the task and the race. esbench
does the same; the failure's reason names the missing module (:func:`missing_module`), so that the
report's "failed requests by reason" says what to install.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from esbench.driver.transport.http import RawResponse
from esbench.driver.worker.runners.base import (
    MISSING_MODULE_META,
    RallyParams,
    RunnerResult,
    failed,
    json_or_none,
    request_options,
    send,
)
from esbench.exceptions import DriverError

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient

_NO_HANDLER = "no handler found for uri"
_WRONG_METHOD = "incorrect http method for uri"

#: Module names of the default distribution, by feature (``modules/`` of Elasticsearch 8.x/9.x).
ML = "x-pack-ml"
TRANSFORM = "x-pack-transform"
ASYNC_SEARCH = "x-pack-async-search"
SQL = "x-pack-sql"
ESQL = "x-pack-esql"
ILM = "x-pack-ilm"
DOWNSAMPLE = "x-pack-downsample"


def no_handler_message(response: RawResponse) -> str | None:
    """The error text if ``response`` says no REST handler matches the request, else None."""
    if response.status not in (400, 405):
        return None
    data = json_or_none(response)
    error = data.get("error") if isinstance(data, Mapping) else None
    if isinstance(error, str) and error.lower().startswith((_NO_HANDLER, _WRONG_METHOD)):
        return error
    return None


def missing_module(response: RawResponse, *, module: str) -> RunnerResult | None:
    """The failed result of a request that no REST handler of the cluster serves, else None.

    Args:
        response: an answer to one of the operation's requests.
        module: the module that provides the API (:data:`SQL`, :data:`ESQL`...).

    Returns:
        None when ``response`` is not Elasticsearch's "no handler" answer; otherwise a failed
        :class:`~esbench.driver.worker.runners.base.RunnerResult` (0 ops, error type the HTTP status,
        ``meta[MISSING_MODULE_META]`` the module) whose description is ``HTTP 405: the cluster lacks
        the Elasticsearch module 'x-pack-esql' (Elasticsearch answered: ...)``.
    """
    reason = no_handler_message(response)
    if reason is None:
        return None
    return RunnerResult(
        weight=0,
        success=False,
        error_type=str(response.status),
        error_description=(
            f"HTTP {response.status}: the cluster lacks the Elasticsearch module '{module}' "
            f"(Elasticsearch answered: {reason})"
        ),
        http_status=response.status,
        meta={MISSING_MODULE_META: module},
    )


def result_of(
    response: RawResponse,
    *,
    module: str | None = None,
    ignore: Collection[int] = (),
    result: RunnerResult | None = None,
) -> RunnerResult:
    """The runner result of a one-request operation.

    ``module`` given: a "no handler" answer is a failed request naming the module
    (:func:`missing_module`). A status in ``ignore``
    (Rally's ``ignore=[404]`` of delete operations) counts as success. Otherwise an error status is a
    failed request (:func:`~esbench.driver.worker.runners.base.failed`) and a success is ``result``
    (default: 1 op).
    """
    if response.status >= 400:
        missing = missing_module(response, module=module) if module is not None else None
        if missing is not None:
            return missing
        if response.status not in ignore:
            return failed(response)
    return result if result is not None else RunnerResult(http_status=response.status)


class OperationFailed(DriverError):
    """An operation whose requests succeeded but whose outcome says it failed (a snapshot in state
    FAILED, a failed transform...). Rally raises ``RallyAssertionError`` there, which its driver does
    not catch: the race ends; so does esbench's."""


async def module_request(
    es: EsbenchClient,
    params: RallyParams,
    method: str,
    path: str,
    *,
    query: Mapping[str, object] | None = None,
    body: object = None,
) -> RawResponse:
    """One request of a module's API (ML, transforms) as Rally's ``ml``/``transform`` client calls
    send it: the operation's ``request-params``, ``headers`` and ``request-timeout``
    (:func:`~.base.request_options`), plus the entries of ``query`` that are not None.

    Returns:
        The response, whatever its status (:func:`result_of` reads it).
    """
    request_params, headers, timeout = request_options(params)
    request_params.update({k: v for k, v in (query or {}).items() if v is not None})
    return await send(es, method, path, query=request_params, body=body, headers=headers, timeout=timeout)


def operation_failed(operation: str, params: RallyParams, description: str) -> OperationFailed:
    """An :class:`OperationFailed` naming the operation (``params['name']``) and what went wrong."""
    name = params.get("name") or operation
    return OperationFailed(f"Operation '{name}' ({operation}) failed: {description}")
