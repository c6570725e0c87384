"""``composite`` structure checks, ordering, context and failure handling (Rally 2.13
``esrally/driver/runner.py`` ``Composite``); against a real node in
``tests/integration/test_operations_composite.py``."""

from __future__ import annotations

import asyncio

import pytest
from wire import Wire, call

from esbench.driver.worker.context import RaceContext
from esbench.driver.worker.runners.composite import validate_requests
from esbench.exceptions import ConfigError


@pytest.mark.parametrize(
    ("requests", "message"),
    [
        ({"operation-type": "search"}, "must be a list"),
        ([{"name": "x"}], r"requests\[0\]: a requests item must contain \[stream\] or \[operation-type\]"),
        (
            [{"stream": [{"operation-type": "create-index"}]}],
            r"requests\[0\]\.stream\[0\]: unsupported operation-type",
        ),
    ],
)
def test_invalid_requests(requests, message) -> None:
    with pytest.raises(ConfigError, match=message):
        validate_requests(requests, "requests")


async def test_items_use_and_share_a_composite_context_seeded_from_the_race() -> None:
    wire = Wire({("POST", "/i/_pit"): (200, {"id": "pit-1"})})
    race = RaceContext({"earlier": "value"})
    result = await call(
        "composite",
        wire,
        {
            "requests": [
                {"name": "p", "operation-type": "open-point-in-time", "index": "i"},
                {"operation-type": "close-point-in-time", "with-point-in-time-from": "p"},
                {"operation-type": "raw-request", "path": "/_cluster/health"},
            ]
        },
        race,
    )
    assert result.success
    assert [r[:2] for r in wire.requests] == [
        ("POST", "/i/_pit"),
        ("DELETE", "/_pit"),
        ("GET", "/_cluster/health"),
    ]
    assert wire.requests[1][3] == {"id": "pit-1"}
    assert race.snapshot() == {"earlier": "value"}
    assert [t["operation-type"] for t in result.meta["dependent_timing"]] == [
        "open-point-in-time",
        "close-point-in-time",
        "raw-request",
    ]


async def test_a_failed_item_cancels_running_streams() -> None:
    wire = Wire({("GET", "/_cluster/health"): (503, {"error": {"type": "unavailable", "reason": "down"}})})
    loop = asyncio.get_running_loop()
    start = loop.time()
    result = await call(
        "composite",
        wire,
        {
            "requests": [
                {"stream": [{"operation-type": "sleep", "duration": 30}]},
                {"stream": [{"operation-type": "raw-request", "path": "/_cluster/health"}]},
            ]
        },
    )
    assert not result.success and result.http_status == 503 and "down" in result.error_description
    assert loop.time() - start < 5  # the 30 s sleep was cancelled
