"""Rally's ``esrally.driver.runner`` (2.13): the runner base class and lookups plugins use.

``Runner`` keeps Rally's constructor ``(*args, config=None, **kwargs)``, its async context manager
methods and its ``_default_kw_params``/``_transport_request_params`` helpers. ``runner_for`` returns
the runner the race's registry holds for an operation type (esbench's built-ins take the same
``(es, params)``), ``unwrap`` follows ``delegate`` attributes to the innermost runner. ``Retry``
is Rally's retry wrapper, for plugin runners that return Rally's values.

Rally's built-in runner classes (``BulkIndex``, ``PutSettings``, ``Query``...) are provided as
:class:`Runner` subclasses that run esbench's built-in runner of the same operation type and
return Rally's result dict (``weight``, ``unit``, ``success``, ``error-type``... plus the
response meta-data), so plugins can subclass them and post-process the dict as under Rally.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from esbench.compat.runtime import active_registry
from esbench.track.optypes import OPERATION_TYPES

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient


def runner_for(operation_type: Any) -> Any:
    """The runner registered for ``operation_type`` in the running race.

    Raises:
        esbench.exceptions.ConfigError: no runner for that type.
    """
    hyphenated = getattr(operation_type, "to_hyphenated_string", None)
    return active_registry().runner(str(hyphenated() if callable(hyphenated) else operation_type))


class Runner:
    """Rally's base class of runners (``async def __call__(self, es, params)``)."""

    def __init__(self, *args: Any, config: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.logger = logging.getLogger(__name__)
        self.serverless_mode = False
        self.serverless_operator = False

    async def __aenter__(self) -> Runner:
        return self

    async def __call__(self, es: EsbenchClient, params: dict[str, Any]) -> Any:
        raise NotImplementedError("abstract operation")

    async def __aexit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> bool:
        return False

    def _default_kw_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Rally's mapping of client keyword arguments to operation params (Nones dropped)."""
        kw = {
            "body": "body",
            "headers": "headers",
            "index": "index",
            "opaque_id": "opaque-id",
            "params": "request-params",
            "request_timeout": "request-timeout",
        }
        return {k: params.get(v) for k, v in kw.items() if params.get(v) is not None}

    @staticmethod
    def _transport_request_params(
        params: dict[str, Any],
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
        """Rally's split: ``(params, request params, transport params, headers)``; takes
        ``request-timeout``, ``ignore``, ``headers`` and ``opaque-id`` out of ``params``."""
        transport_params: dict[str, Any] = {}
        request_params = params.get("request-params", {})
        if request_timeout := params.pop("request-timeout", None):
            transport_params["request_timeout"] = request_timeout
        if (ignore_status := request_params.pop("ignore", None)) or (
            ignore_status := params.pop("ignore", None)
        ):
            transport_params["ignore_status"] = ignore_status
        headers = params.pop("headers", None) or {}
        if opaque_id := params.pop("opaque-id", None):
            headers.update({"x-opaque-id": opaque_id})
        return params, request_params, transport_params, headers


class Delegator:
    """Rally's mixin of runners that wrap another one (``self.delegate``)."""

    def __init__(self, delegate: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.delegate = delegate


def unwrap(runner: Any) -> Any:
    """The innermost runner of a chain of delegators (Rally's ``unwrap``)."""
    delegate = getattr(runner, "delegate", None)
    return unwrap(delegate) if delegate else runner


class Retry(Runner, Delegator):
    """Rally's retry wrapper: ``retries``, ``retry-until-success``, ``retry-wait-period`` (s),
    ``retry-on-timeout``, ``retry-on-error`` (a dict result with ``success: False``)."""

    def __init__(self, delegate: Any, retry_until_success: bool = False) -> None:
        super().__init__(delegate=delegate)
        self.retry_until_success = retry_until_success

    async def __aenter__(self) -> Retry:
        enter = getattr(self.delegate, "__aenter__", None)
        if enter is not None:
            await enter()
        return self

    async def __aexit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> bool:
        leave = getattr(self.delegate, "__aexit__", None)
        return bool(await leave(exc_type, exc_val, exc_tb)) if leave is not None else False

    async def __call__(self, es: EsbenchClient, params: dict[str, Any]) -> Any:
        import elasticsearch

        until_success = params.get("retry-until-success", self.retry_until_success)
        if until_success:
            max_attempts: float = float("inf")
            retry_on_error = True
        else:
            max_attempts = params.get("retries", 0) + 1
            retry_on_error = params.get("retry-on-error", False)
        sleep_time = params.get("retry-wait-period", 0.5)
        retry_on_timeout = params.get("retry-on-timeout", True)
        attempt = 0
        while True:
            attempt += 1
            last = attempt >= max_attempts
            try:
                value = await self.delegate(es, params)
                if last or not retry_on_error or not isinstance(value, dict) or value.get("success", True):
                    return value
                await asyncio.sleep(sleep_time)
            except (TimeoutError, elasticsearch.ConnectionError, elasticsearch.ConnectionTimeout):
                if last or not retry_on_timeout:
                    raise
                await asyncio.sleep(sleep_time)
            except elasticsearch.BadRequestError:
                raise
            except elasticsearch.ApiError as e:
                if last or not retry_on_timeout or e.status_code != 408:
                    raise
                await asyncio.sleep(sleep_time)

    def __repr__(self) -> str:
        return f"retryable {self.delegate!r}"


#: Rally's runner class names (``esrally/driver/runner.py``) -> operation type, from the table of
#: operation types (each type's ``rally_runner``).
_BUILTIN_CLASSES = {op.rally_runner: op.name for op in OPERATION_TYPES if op.rally_runner is not None}


def rally_result(result: Any) -> dict[str, Any]:
    """An esbench ``RunnerResult`` as the dict Rally's runners return."""
    data: dict[str, Any] = dict(result.meta or {})
    data.update(weight=result.weight, unit=result.unit, success=result.success)
    if result.error_type is not None:
        data["error-type"] = result.error_type
    if result.error_description is not None:
        data["error-description"] = result.error_description
    if result.http_status is not None:
        data["http-status"] = result.http_status
    return data


class _BuiltinRunner(Runner):
    operation_type = ""
    _esbench_runner: Any = None

    async def __call__(self, es: EsbenchClient, params: dict[str, Any]) -> Any:
        if self._esbench_runner is None:
            from esbench.driver.worker.runners import builtin_runners

            self._esbench_runner = builtin_runners()[self.operation_type]
        return rally_result(await self._esbench_runner(es, params))

    def __repr__(self) -> str:
        return self.operation_type


def __getattr__(name: str) -> Any:
    operation_type = _BUILTIN_CLASSES.get(name)
    if operation_type is None:
        raise AttributeError(f"module 'esrally.driver.runner' has no attribute '{name}'")
    cls = type(name, (_BuiltinRunner,), {"operation_type": operation_type, "__module__": __name__})
    globals()[name] = cls
    return cls
