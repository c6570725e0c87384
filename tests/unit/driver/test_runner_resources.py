"""The one create/delete shape behind the index, data stream and template runners."""

from __future__ import annotations

import asyncio

from esbench.driver.transport.http import RawResponse
from esbench.driver.worker.runners.resources import count_each, has_wildcard


def test_count_each_adds_ints_and_trues_and_stops_at_the_first_failure() -> None:
    seen: list[object] = []
    outcomes = {"a": True, "b": 3, "c": False, "d": RawResponse(404, b"{}"), "e": True}

    async def step(entry: object) -> int | bool | RawResponse:
        seen.append(entry)
        return outcomes[str(entry)]

    result = asyncio.run(count_each("abcde", step))
    # a (1) + b (3) + c (0) were done before d failed; e was never tried.
    assert seen == ["a", "b", "c", "d"]
    assert not result.success
    assert result.weight == 4
    assert result.error_type == "404"
    assert result.http_status == 404


def test_count_each_without_failure_reports_the_total() -> None:
    async def step(entry: object) -> int:
        return 2

    result = asyncio.run(count_each([1, 2, 3], step))
    assert result.success and result.weight == 6


def test_has_wildcard() -> None:
    assert has_wildcard("logs-*") and has_wildcard(["a", "b*"]) and has_wildcard("_all")
    assert not has_wildcard("logs") and not has_wildcard(["a", "b"])
