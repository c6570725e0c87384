"""LazyClient: a worker's ``es`` - the fast path at once, elasticsearch-py's client on first use."""

from __future__ import annotations

import pytest
from driver_helpers import EsStub

from esbench.driver.transport.client import ClientOptions, ConnectionSettings
from esbench.driver.transport.esclient import EsbenchClient
from esbench.driver.transport.lazyclient import LazyClient
from esbench.driver.transport.rawhttp import RawHttpTransport


async def test_the_fast_path_serves_requests_without_building_the_client_api(es_stub: EsStub):
    es = LazyClient(ConnectionSettings.create([es_stub.host], ClientOptions()))
    assert isinstance(es.http, RawHttpTransport)
    response = await es.http.request("POST", "/idx/_search", body=b"{}")
    assert response.status == 200
    assert not es.api_created
    await es.close()
    assert es_stub.log == [("POST", "/idx/_search")]


async def test_the_client_api_is_built_on_first_use_and_shares_the_fast_path(es_stub: EsStub):
    es = LazyClient(ConnectionSettings.create([es_stub.host], ClientOptions(timeout=7.0)))
    http = es.http
    # An API method of elasticsearch-py, sent through its own transport to the same host.
    response = await es.indices.refresh(index="idx")
    assert response.meta.status == 200
    assert es.api_created
    assert isinstance(es.api, EsbenchClient)
    assert es.api.http is http
    # Every later attribute is the same client's.
    assert es.transport is es.api.transport
    await es.close()
    assert es_stub.log == [("POST", "/idx/_refresh")]


async def test_an_unknown_attribute_raises_attribute_error_of_the_client(es_stub: EsStub):
    es = LazyClient(ConnectionSettings.create([es_stub.host], ClientOptions()))
    with pytest.raises(AttributeError, match="no_such_api"):
        es.no_such_api  # noqa: B018
    await es.close()
