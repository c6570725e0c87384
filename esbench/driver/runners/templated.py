"""``templated-request``: sends what the ``templated-request`` param source built
(:class:`esbench.driver.params.template_source.TemplatedCall`).

A bulk (``bulk_size`` set) is accounted like the ``bulk`` runner: weight = documents, unit docs,
``"errors": false`` found in the first bytes without parsing, else the failed items counted by
status (429 rejections, 409 conflicts...). Other requests weigh 1 op; a status of 400 or more that
is not in ``ignore`` is an error. A response assertion that fails makes the request an error of
type ``assertion``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from esbench.driver import jsonutil
from esbench.driver.params.template_assert import ResponseView
from esbench.driver.runners.base import PREPARED, Runner, RunnerResult, failed
from esbench.driver.runners.bulk import _HEAD, _NO_ERRORS, _bulk_stats

if TYPE_CHECKING:
    from esbench.driver.client import EsbenchClient

_OK = RunnerResult()


class TemplatedRequest(Runner):
    """The runner of ``templated-request`` (see module doc)."""

    name = "templated-request"

    async def __call__(self, es: EsbenchClient, params: Mapping[str, Any]) -> RunnerResult:
        call = params[PREPARED]
        start = time.perf_counter()
        response = await es.http.request(
            call.method, call.target, body=call.body, headers=call.headers, timeout=call.timeout
        )
        bulk_size = call.bulk_size
        unit = "docs" if bulk_size is not None else "ops"
        weight = bulk_size if bulk_size is not None else 1
        if response.status >= 400 and response.status not in call.ignore:
            result = failed(response, weight=0, unit=unit)
        elif bulk_size is not None:
            result = _bulk_result(response.body, response.status, bulk_size)
        else:
            result = _OK
        assertion = call.assertion
        if assertion is not None and result.success:
            view = ResponseView(
                status=response.status,
                body=response.body,
                headers=response.headers,
                elapsed_ms=(time.perf_counter() - start) * 1000.0,
            )
            reason = assertion.check(view)
            if reason is not None:
                return RunnerResult(
                    weight=weight,
                    unit=unit,
                    success=False,
                    error_type="assertion",
                    error_description=f"assertion failed: {reason}",
                    http_status=response.status,
                )
        return result


def _bulk_result(raw: bytes, status: int, bulk_size: int) -> RunnerResult:
    if _NO_ERRORS in raw[:_HEAD]:
        return RunnerResult(weight=bulk_size, unit="docs")
    parsed = jsonutil.loads(raw)
    counts, descriptions, meta = _bulk_stats(parsed, bulk_size, "docs")
    if not counts:
        return RunnerResult(weight=bulk_size, unit="docs", meta=meta)
    return RunnerResult(
        weight=bulk_size,
        unit="docs",
        success=False,
        error_type="bulk",
        error_description="; ".join(descriptions),
        http_status=status,
        error_counts=dict(counts),
        meta=meta,
    )
