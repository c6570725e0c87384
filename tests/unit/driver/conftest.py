"""Fixtures of the driver unit tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
from driver_helpers import EsStub
from scripted_http import Handler, Scripted


@pytest.fixture
def es_stub() -> Iterator[EsStub]:
    """A started loopback Elasticsearch stub (stopped after the test)."""
    stub = EsStub().start()
    try:
        yield stub
    finally:
        stub.stop()


@pytest.fixture
async def serve() -> AsyncIterator[Callable[[Handler], Scripted]]:
    """Start scripted loopback HTTP servers: ``await serve(handler)`` (closed after the test)."""
    servers: list[Scripted] = []

    async def start(handler: Handler) -> Scripted:
        scripted = Scripted(handler)
        scripted.server = await asyncio.start_server(scripted._serve, "127.0.0.1", 0)
        servers.append(scripted)
        return scripted

    yield start
    for s in servers:
        s.server.close()
