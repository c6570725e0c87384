"""Answers of a cluster that lacks the module an operation needs, and the shared result helpers of
the runners that call module APIs (snapshots, ML, transforms, ILM, async search, SQL, ES|QL...).

Elasticsearch answers a request for a REST handler that no installed module registered with

* HTTP 400 ``{"error": "no handler found for uri [/_ml/...] and method [PUT]"}``, or
* HTTP 405 ``{"error": "Incorrect HTTP method for uri [/_sql] and method [POST], allowed: [...]"}``
  when the path also matches a core handler (``/_sql`` reads as ``GET /{index}``)

(``RestController#handleNoHandlerFound`` / ``handleBadRequest`` in Elasticsearch's server module;
verified against the 8.19.0 integ-test-zip, whose modules are only ``transport-netty4``,
``x-pack-core``, ``x-pack-security`` and ``apm``). Rally would record such an answer as a failed
request with the raw message; esbench ends the task with :class:`MissingModule`, which names the
module, because no retry or later request can succeed against that cluster.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from esbench.driver.http import RawResponse
from esbench.driver.runners.base import RunnerResult, failed, json_or_none
from esbench.exceptions import DriverError

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


class MissingModule(DriverError):
    """The cluster has no REST handler for an operation's API: the module providing it is absent."""


def no_handler_message(response: RawResponse) -> str | None:
    """The error text if ``response`` says no REST handler matches the request, else None."""
    if response.status not in (400, 405):
        return None
    data = json_or_none(response)
    error = data.get("error") if isinstance(data, Mapping) else None
    if isinstance(error, str) and error.lower().startswith((_NO_HANDLER, _WRONG_METHOD)):
        return error
    return None


def check_module(response: RawResponse, *, operation: str, module: str, params: Mapping[str, Any]) -> None:
    """Raise :class:`MissingModule` if ``response`` is Elasticsearch's "no handler" answer.

    Args:
        response: the answer to the operation's first request.
        operation: the operation type (``"sql"``), for the message.
        module: the module that provides the API (:data:`SQL`...).
        params: the operation's params (its ``name`` is named in the message).

    Raises:
        MissingModule: the module is not installed in the cluster.
    """
    reason = no_handler_message(response)
    if reason is None:
        return
    name = params.get("name") or operation
    raise MissingModule(
        f"Operation '{name}' ({operation}) needs the Elasticsearch module '{module}', which the "
        f'cluster does not have: Elasticsearch answered HTTP {response.status} "{reason}". The '
        f"integ-test distribution (the default of --distribution-repository=maven) ships only "
        f"transport-netty4, x-pack-core, x-pack-security and apm; race against a cluster with the "
        f"default distribution (--distribution-repository=elastic or --target-hosts) or remove the "
        f"operation from the challenge."
    )


def result_of(
    response: RawResponse,
    *,
    operation: str,
    params: Mapping[str, Any],
    module: str | None = None,
    ignore: Collection[int] = (),
    result: RunnerResult | None = None,
) -> RunnerResult:
    """The runner result of a one-request operation.

    ``module`` given: a "no handler" answer raises :class:`MissingModule`. A status in ``ignore``
    (Rally's ``ignore=[404]`` of delete operations) counts as success. Otherwise an error status is a
    failed request (:func:`~esbench.driver.runners.base.failed`) and a success is ``result``
    (default: 1 op).
    """
    if response.status >= 400:
        if module is not None:
            check_module(response, operation=operation, module=module, params=params)
        if response.status not in ignore:
            return failed(response)
    return result if result is not None else RunnerResult(http_status=response.status)


class OperationFailed(DriverError):
    """An operation whose requests succeeded but whose outcome says it failed (a snapshot in state
    FAILED, a failed transform...). Rally raises ``RallyAssertionError`` there, which its driver does
    not catch: the race ends; so does esbench's."""


def operation_failed(operation: str, params: Mapping[str, Any], description: str) -> OperationFailed:
    """An :class:`OperationFailed` naming the operation (``params['name']``) and what went wrong."""
    name = params.get("name") or operation
    return OperationFailed(f"Operation '{name}' ({operation}) failed: {description}")
