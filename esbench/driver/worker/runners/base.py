"""What a runner is, what it returns, and the wrappers around it.

A runner executes one operation: ``async def __call__(es, params) -> RunnerResult``. ``es`` is the
client's :class:`esbench.driver.transport.client.EsbenchClient` (an ``AsyncElasticsearch`` with the
``es.http`` fast path), ``params`` the dict the task's param source produced.

* Built-in runners subclass :class:`Runner` and return a :class:`RunnerResult`.
* Track plugins register Rally-style runners (functions or objects, optionally async context
  managers) returning None, ``(weight, unit)`` or a dict with ``weight``, ``unit``, ``success``,
  ``error-type``... :class:`LegacyRunner` adapts them once, so the executor only sees
  ``RunnerResult``.
* :class:`Retry` adds Rally's retry parameters to administrative operations.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import quote, urlencode

from esbench.driver.transport import jsonutil
from esbench.driver.transport.failures import DEFAULT, DefaultTimeout, is_instance
from esbench.driver.transport.http import RawResponse
from esbench.driver.worker.errors import error_line
from esbench.driver.worker.waits import done_waiting, note_waiting
from esbench.exceptions import ConfigError

if TYPE_CHECKING:
    from elastic_transport.client_utils import DefaultType

    from esbench.driver.transport.client import EsbenchClient


logger = logging.getLogger(__name__)

#: Key under which built-in param sources put a ready-made request into the params dict, so the
#: runner does not rebuild path, query string and body on every call.
PREPARED = "__esbench_prepared__"

#: The parameters of one operation, as Rally's plugin API shapes them: the track operation's JSON
#: object (merged by the param source) that ``ParamSource(track, params)`` receives and
#: ``runner(es, params)`` reads. Values are whatever the track author wrote (str, number, list,
#: nested object) or a plugin param source put there, so ``Any`` is forced: every runner reads
#: its own keys with its own expectations, and a plugin runner gets the same dict. This alias is
#: the one place that says so; it does not stand for any other untyped value.
RallyParams: TypeAlias = Mapping[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class RunnerResult:
    """The outcome of one runner call (immutable: runners may return a shared instance).

    Attributes:
        weight: contribution to throughput in ``unit`` (1 op, the documents of a bulk, pages).
        unit: ``"ops"``, ``"docs"``, ``"pages"``... (throughput is reported in ``unit/s``).
        success: False if the operation failed (counted in the error rate).
        error_type: short error class of a failure (HTTP status, ``bulk``...).
        error_description: one line describing the failure.
        http_status: the HTTP status of the (last) response, if known.
        error_counts: failed items by error type, for operations made of items (bulk).
        meta: other request meta-data (``took``, ``hits``, ``success-count``...).
    """

    weight: float = 1.0
    unit: str = "ops"
    success: bool = True
    error_type: str | None = None
    error_description: str | None = None
    http_status: int | None = None
    error_counts: Mapping[str, int] | None = None
    meta: Mapping[str, object] | None = None


def normalize_result(value: Any) -> RunnerResult:
    """Rally's legacy runner return values as a :class:`RunnerResult` (``execute_single`` rules).

    None -> 1 op; ``(weight, unit)``; a dict whose ``weight`` (1), ``unit`` ("ops"), ``success``
    (True), ``error-type``, ``error-description`` and ``http-status`` keys are taken out and the rest
    kept as meta-data.
    """
    if isinstance(value, RunnerResult):
        return value
    if isinstance(value, tuple) and len(value) == 2:
        weight, unit = value
        return RunnerResult(weight=weight, unit=unit)
    if isinstance(value, Mapping):
        data = dict(value)
        success = bool(data.pop("success", True))
        error_type = data.pop("error-type", None)
        http_status = data.pop("http-status", None)
        return RunnerResult(
            weight=data.pop("weight", 1),
            unit=data.pop("unit", "ops"),
            success=success,
            error_type=str(error_type) if error_type is not None else (None if success else "unknown"),
            error_description=data.pop("error-description", None),
            http_status=http_status,
            meta=data or None,
        )
    return RunnerResult()


class Runner:
    """Base class of built-in runners (see module doc)."""

    #: Operation type name, for messages.
    name = "runner"
    #: The runner sends ``params["body"]`` as it is and takes any buffer for it, so a param
    #: source may hand it a read-only ``memoryview`` instead of ``bytes`` (``use_body_views`` in
    #: :class:`~esbench.driver.worker.params.protocol.ClientParamSource`). Plugin runners never do.
    takes_body_views = False

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        raise NotImplementedError

    def repeatable(self, params: RallyParams) -> bool:
        """True if a call with ``params`` makes one request that the connection may send again and
        account itself (:mod:`esbench.driver.transport.repeat`): the request is prepared (the same
        objects every call), and any response with a status below 400 gives one successful op of
        weight 1 that needs nothing else from the runner. False here: only built-in runners that
        know this say so."""
        return False

    def __repr__(self) -> str:
        return self.name


class LegacyRunner(Runner):
    """Adapts a Rally-style plugin runner (function or object) to :class:`Runner`.

    Rally (``esrally/driver/runner.py`` ``register_runner``, ``MultiClientRunner``,
    ``_with_completion``): ``async with runner:`` around every call of a runner that is an async
    context manager; a runner whose innermost delegate has a ``multi_cluster`` attribute gets all
    clients by cluster name (``{"default": es, "remote": ...}``, Rally's multi-cluster
    ``--target-hosts``), others the default client; a runner whose
    innermost delegate has both ``completed`` and ``percent_completed`` decides itself when its
    task ends. Return values are read as Rally's ``execute_single`` reads them
    (:func:`normalize_result`). ``client_view`` wraps the client(s) before the call (an OSB
    workload's runner gets opensearch-py's transport: :mod:`esbench.compat.osbclient`).
    """

    def __init__(self, delegate: Any, *, name: str, client_view: Callable[[Any], Any] | None = None) -> None:
        self.delegate = delegate
        self.name = name
        self._client_view = client_view
        self._context_manager = hasattr(delegate, "__aenter__") and hasattr(delegate, "__aexit__")
        inner = _unwrap(delegate)
        self._multi_cluster = hasattr(inner, "multi_cluster")
        self._progressable = (
            inner if hasattr(inner, "completed") and hasattr(inner, "percent_completed") else None
        )

    @property
    def completed(self) -> bool | None:
        return self._progressable.completed if self._progressable is not None else None

    @property
    def percent_completed(self) -> float | None:
        return self._progressable.percent_completed if self._progressable is not None else None

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        client = es if not self._multi_cluster else _clients_by_cluster(es)
        if self._client_view is not None:
            client = self._client_view(client)
        if self._context_manager:
            async with self.delegate:
                value = await self.delegate(client, params)
        else:
            value = await self.delegate(client, params)
        return normalize_result(value)

    def __repr__(self) -> str:
        return f"user-defined runner for [{self.name}]"


def _clients_by_cluster(es: Any) -> dict[str, Any]:
    # A worker's client knows the race's other clusters (LazyClient.clusters); any other client
    # stands for a single-cluster race.
    clusters = getattr(type(es), "clusters", None)
    return clusters(es) if clusters is not None else {"default": es}


def _unwrap(runner: object) -> object:
    delegate = getattr(runner, "delegate", None)
    return _unwrap(delegate) if delegate else runner


def is_async_callable(runner: object) -> bool:
    """True if calling ``runner`` returns a coroutine (``async def`` function or ``__call__``)."""
    if inspect.iscoroutinefunction(runner):
        return True
    call = getattr(runner, "__call__", None)  # noqa: B004 - instances, not "callable()"
    return call is not None and inspect.iscoroutinefunction(call)


TIMEOUT_STATUS = 408

#: The meta-data key of a "no handler" result (:func:`~.features.missing_module`): the missing
#: module's name. :class:`Retry` returns such a result at once, as Rally's ``Retry`` re-raises the
#: client's ``ApiError`` (only a 408 is retried), so ``get-async-search`` (retry-until-success)
#: does not poll a module that will never be there.
MISSING_MODULE_META = "missing-module"


class Retry(Runner):
    """Rally's retry wrapper for administrative operations (track docs "Retries").

    Params: ``retries`` (0), ``retry-until-success`` (False; forces retry-on-error),
    ``retry-wait-period`` (0.5 s), ``retry-on-timeout`` (True: client timeouts, connection errors
    and HTTP 408 are retried), ``retry-on-error`` (False: failed results are retried). A request
    that no REST handler serves (the module is missing) is never retried.
    """

    def __init__(self, delegate: Runner, *, retry_until_success: bool = False) -> None:
        self.delegate = delegate
        self.retry_until_success = retry_until_success
        self.name = delegate.name

    @property
    def completed(self) -> bool | None:
        return getattr(self.delegate, "completed", None)

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        until_success = bool(params.get("retry-until-success", self.retry_until_success))
        if until_success:
            max_attempts: float = float("inf")
            retry_on_error = True
        else:
            max_attempts = int(params.get("retries", 0)) + 1
            retry_on_error = bool(params.get("retry-on-error", False))
        wait = float(params.get("retry-wait-period", 0.5))
        retry_on_timeout = bool(params.get("retry-on-timeout", True))
        try:
            return await self._attempts(es, params, max_attempts, retry_on_error, retry_on_timeout, wait)
        finally:
            done_waiting()

    async def _attempts(
        self,
        es: EsbenchClient,
        params: RallyParams,
        max_attempts: float,
        retry_on_error: bool,
        retry_on_timeout: bool,
        wait: float,
    ) -> RunnerResult:
        attempt = 0
        while True:
            attempt += 1
            last = attempt >= max_attempts
            try:
                result = await self.delegate(es, params)
            except Exception as exc:
                # Rally retries socket timeouts and connection errors alike when retry-on-timeout.
                # (elastic_transport's classes are checked without importing it: failures module.)
                connection_failure = isinstance(exc, TimeoutError) or is_instance(
                    exc, "ConnectionError", "ConnectionTimeout"
                )
                if not connection_failure or last or not retry_on_timeout:
                    raise
                note_waiting(f"{type(exc).__name__}: {exc}; retrying every {wait:g} s")
                await asyncio.sleep(wait)
                continue
            if result.success or last or (result.meta and MISSING_MODULE_META in result.meta):
                return result
            if result.http_status == TIMEOUT_STATUS and retry_on_timeout:
                note_waiting(f"{result.error_description}; retrying every {wait:g} s")
                await asyncio.sleep(wait)
                continue
            if not retry_on_error:
                return result
            logger.debug("[%s] failed (%s); retrying in %.2f s", self.name, result.error_description, wait)
            note_waiting(f"{result.error_description}; retrying every {wait:g} s")
            await asyncio.sleep(wait)

    def __repr__(self) -> str:
        return f"retryable {self.delegate!r}"


# ---------------------------------------------------------------------------------------------
# request building helpers shared by the built-in runners


def mandatory(params: RallyParams, key: str, operation: str) -> Any:
    """``params[key]``, or a ConfigError naming the operation and the missing parameter."""
    try:
        return params[key]
    except KeyError:
        raise ConfigError(
            f"The {operation} operation needs the parameter '{key}', but its parameters "
            f"({', '.join(sorted(str(k) for k in params)) or 'none'}) do not have it. Add '{key}' "
            f"to the operation in the track (or to what its param source returns)."
        ) from None


def query_value(value: object) -> str:
    """A request parameter as Elasticsearch expects it: booleans lower-case, lists comma-joined."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(query_value(v) for v in value)
    return str(value)


def build_target(path: str, params: RallyParams | None = None) -> str:
    """``path`` plus the URL-encoded query ``params`` (None values skipped)."""
    if not params:
        return path
    query = urlencode([(k, query_value(v)) for k, v in params.items() if v is not None])
    if not query:
        return path
    return f"{path}{'&' if '?' in path else '?'}{query}"


def path_part(value: object) -> str:
    """An index/template/pipeline name (or list of names) as one URL path segment."""
    if isinstance(value, list | tuple):
        value = ",".join(str(v) for v in value)
    return quote(str(value), safe=",*:-_.+<>{}@")


def request_options(
    params: RallyParams,
) -> tuple[dict[str, object], dict[str, str] | None, float | DefaultTimeout]:
    """Rally's per-operation client options: (request params, extra headers, timeout).

    ``request-params`` become query parameters, ``headers`` and ``opaque-id`` (as ``x-opaque-id``)
    headers, ``request-timeout`` the client-side timeout in seconds.
    """
    request_params = dict(params.get("request-params") or {})
    headers = dict(params["headers"]) if params.get("headers") else None
    opaque_id = params.get("opaque-id")
    if opaque_id is not None:
        headers = {k: v for k, v in (headers or {}).items() if k.lower() != "x-opaque-id"}
        headers["x-opaque-id"] = str(opaque_id)
    timeout = params.get("request-timeout")
    # "request_timeout" inside request-params is Rally's spelling of the same thing.
    if "request_timeout" in request_params:
        timeout = request_params.pop("request_timeout")
    return request_params, headers, (float(timeout) if timeout is not None else DEFAULT)


def error_details(response: RawResponse) -> str:
    """A one-line description of an error response (``HTTP 400: type: reason`` when the body is
    ES's, with the root cause of summary errors; see :func:`esbench.driver.worker.errors.error_line`)."""
    return error_line(response.status, response.body)


def failed(response: RawResponse, *, weight: float = 0, unit: str = "ops") -> RunnerResult:
    """The result of an operation whose response has an error status."""
    return RunnerResult(
        weight=weight,
        unit=unit,
        success=False,
        error_type=str(response.status),
        error_description=error_details(response),
        http_status=response.status,
    )


def bulk_result(
    *,
    weight: float,
    unit: str,
    counts: Mapping[str, int],
    descriptions: Sequence[str],
    http_status: int | None,
    meta: Mapping[str, object],
) -> RunnerResult:
    """The result of a bulk (sent whole or as routed sub-bulks) from its failed items.

    Args:
        weight: documents sent (in ``unit``), failed items included (Rally's rule).
        counts: failed items by error type (HTTP status...); none means success.
        descriptions: up to 3 distinct failure lines, joined with ``"; "``.
        http_status: status of the (last) bulk response.
        meta: ``took``, ``success-count``, ``error-count``... as the runner built it.
    """
    if not counts:
        return RunnerResult(weight=weight, unit=unit, meta=meta)
    return RunnerResult(
        weight=weight,
        unit=unit,
        success=False,
        error_type="bulk",
        error_description="; ".join(descriptions),
        http_status=http_status,
        error_counts=dict(counts),
        meta=meta,
    )


def json_or_none(response: RawResponse) -> Any:
    """The parsed body, or None if it is empty or not JSON."""
    if not response.body:
        return None
    try:
        return jsonutil.loads(response.body)
    except ValueError:
        return None


def value_at(document: object, path: str) -> object:
    """The value at a dot-separated ``path`` in nested dicts, or None."""
    current = document
    for key in path.split("."):
        if not isinstance(current, Mapping):
            return None
        current = current.get(key)
    return current


JSON_HEADERS = {"content-type": "application/json"}


async def send(
    es: EsbenchClient,
    method: str,
    path: str,
    *,
    query: Mapping[str, object] | None = None,
    body: object = None,
    headers: Mapping[str, str] | None = None,
    timeout: float | DefaultTimeout | DefaultType | None = None,
) -> RawResponse:
    """Send one request through the client's HTTP seam (``body`` serialized as JSON if needed)."""
    response: RawResponse = await es.http.request(
        method,
        build_target(path, query),
        body=jsonutil.body_bytes(body),
        headers=headers,
        timeout=DEFAULT if timeout is None else timeout,
    )
    return response
