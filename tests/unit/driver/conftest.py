"""Fixtures of the driver unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from driver_helpers import EsStub


@pytest.fixture
def es_stub() -> Iterator[EsStub]:
    """A started loopback Elasticsearch stub (stopped after the test)."""
    stub = EsStub().start()
    try:
        yield stub
    finally:
        stub.stop()
