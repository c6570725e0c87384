"""``templated-request``: sends what the ``templated-request`` param source built
(:class:`esbench.driver.worker.params.template_source.TemplatedCall`).

A bulk (``bulk_size`` set) is accounted like the ``bulk`` runner: weight = documents, unit docs,
``"errors": false`` found in the first bytes without parsing, else the failed items counted by
status (429 rejections, 409 conflicts...). Other requests weigh 1 op; a status of 400 or more that
is not in ``ignore`` is an error. A response assertion is checked on every response and alone
judges it (INFINI Loadgen's rule, ``loader.go``): one that fails makes the request an error of
type ``assertion`` whose description holds the expected and the actual value (or ends the race
with ``assert-ends-race``); one that holds accepts any status.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from esbench.driver.transport import jsonutil
from esbench.driver.worker.params.template_assert import ResponseView
from esbench.driver.worker.runners.base import (
    PREPARED,
    RallyParams,
    Runner,
    RunnerResult,
    bulk_result,
    failed,
)
from esbench.driver.worker.runners.bulk import _HEAD, _NO_ERRORS, _bulk_stats
from esbench.exceptions import RaceAborted

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient
    from esbench.driver.transport.http import RawResponse
    from esbench.driver.worker.params.template_source import TemplatedCall

_OK = RunnerResult()
logger = logging.getLogger(__name__)


class TemplatedRequest(Runner):
    """The runner of ``templated-request`` (see module doc)."""

    name = "templated-request"

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        call = params[PREPARED]
        start = time.perf_counter()
        response = await es.http.request(
            call.method, call.target, body=call.body, headers=call.headers, timeout=call.timeout
        )
        result = _judge(call, response, start)
        if call.pause:
            # Loadgen's `sleep` after the response: in the client's loop, not in the service time
            # (the HTTP layer stamped the response already).
            await asyncio.sleep(call.pause)
        return result


def _judge(call: TemplatedCall, response: RawResponse, start: float) -> RunnerResult:
    """The result of one response (see module doc).

    Raises:
        RaceAborted: Loadgen's warm-up round got a status it does not accept, or an assertion
            failed with ``assertion_ends_race``.
    """
    status = response.status
    if call.log_all or status in call.log_statuses:
        _log_exchange(call, response)
    bulk_size = call.bulk_size
    unit = "docs" if bulk_size is not None else "ops"
    weight = bulk_size if bulk_size is not None else 1
    accepts = call.warmup_accepts
    if accepts is not None and status >= 400 and status not in accepts:
        raise RaceAborted(
            f"{call.label}: the warm-up round got HTTP {status}. Loadgen asks on the terminal "
            f"whether to go on; esbench stops. Add {status} to "
            f"runner.valid_status_codes_during_warmup, or set runner.no_warm: true."
        )
    assertion = call.assertion
    if assertion is not None:
        # Loadgen judges a response by its assertion alone: one that holds accepts any status.
        view = ResponseView(
            status=status,
            body=response.body,
            headers=response.headers,
            elapsed_ms=(time.perf_counter() - start) * 1000.0,
        )
        reason = assertion.check(view)
        if reason is not None:
            if call.assertion_ends_race:
                raise RaceAborted(
                    f"{call.label}: assertion failed: {reason}. runner.assert_invalid is on and "
                    f"continue_on_assert_invalid off, so the run stops at the first failed assertion "
                    f"like Loadgen's."
                )
            return RunnerResult(
                weight=weight,
                unit=unit,
                success=False,
                error_type="assertion",
                error_description=f"assertion failed: {reason}",
                http_status=status,
            )
        if bulk_size is not None and status < 400:
            return _bulk_result(response.body, status, bulk_size)
        return _OK
    if status >= 400 and status not in call.ignore:
        return failed(response, weight=0, unit=unit)
    if bulk_size is not None:
        return _bulk_result(response.body, status, bulk_size)
    return _OK


def _log_exchange(call: TemplatedCall, response: RawResponse) -> None:
    body = call.body[:512].decode("utf-8", "replace") if call.body else ""
    logger.info("[%s] %s - %s", call.method, call.target, body)
    logger.info("status: %s, response: %s", response.status, response.body[:512].decode("utf-8", "replace"))


def _bulk_result(raw: bytes, status: int, bulk_size: int) -> RunnerResult:
    if _NO_ERRORS in raw[:_HEAD]:
        return RunnerResult(weight=bulk_size, unit="docs")
    parsed = jsonutil.loads(raw)
    counts, descriptions, meta = _bulk_stats(parsed, bulk_size, "docs")
    return bulk_result(
        weight=bulk_size, unit="docs", counts=counts, descriptions=descriptions, http_status=status, meta=meta
    )
