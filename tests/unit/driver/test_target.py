"""Target detection (Elasticsearch or OpenSearch) and the media types the client API sends."""

from __future__ import annotations

import json

import pytest
from elastic_transport import HttpHeaders

from esbench.driver.transport.client import (
    ClientOptions,
    ConnectionSettings,
    create_client,
    parse_client_options,
)
from esbench.driver.transport.http import StaticTransport, TimedAiohttpNode
from esbench.driver.transport.target import (
    PlainMediaTypeNode,
    TargetFlavor,
    TargetHttpError,
    detect_distribution,
    uses_compat_media_types,
)
from esbench.exceptions import ConfigError
from esbench.mediatypes import plain_media_type

OPENSEARCH_ROOT = {
    "version": {"distribution": "opensearch", "number": "2.18.0"},
    "tagline": "The OpenSearch Project",
}
ES_ROOT = {"version": {"number": "8.19.0", "build_flavor": "default"}, "tagline": "You Know, for Search"}


def responder(routes: dict[str, tuple[int, dict]]):
    def answer(method: str, target: str, body: bytes | None):
        status, doc = routes[target]
        return status, json.dumps(doc).encode()

    return answer


async def test_opensearch_is_recognised_from_get_root() -> None:
    http = StaticTransport(responder({"/": (200, OPENSEARCH_ROOT)}))
    found = await detect_distribution(http)
    assert found.flavor is TargetFlavor.OPENSEARCH and found.version == "2.18.0"
    assert found.product == "OpenSearch"
    assert [r[1] for r in http.requests] == ["/"]


async def test_elasticsearch_from_get_root() -> None:
    found = await detect_distribution(StaticTransport(responder({"/": (200, ES_ROOT)})))
    assert found.flavor is TargetFlavor.ELASTICSEARCH and found.version == "8.19.0"


async def test_integ_test_elasticsearch_without_get_root_falls_back_to_nodes_local() -> None:
    routes = {
        "/": (405, {"error": "Incorrect HTTP method for uri [/]", "status": 405}),
        "/_nodes/_local?filter_path=nodes.*.version": (200, {"nodes": {"abc": {"version": "8.19.0"}}}),
    }
    found = await detect_distribution(StaticTransport(responder(routes)))
    assert found.flavor is TargetFlavor.ELASTICSEARCH and found.version == "8.19.0"


async def test_rejected_credentials_raise_with_the_status() -> None:
    body = {
        "error": {"type": "security_exception", "reason": "unable to authenticate user [x]"},
        "status": 401,
    }
    with pytest.raises(TargetHttpError) as info:
        await detect_distribution(StaticTransport(responder({"/": (401, body)})))
    assert info.value.status_code == 401
    assert "security_exception" in info.value.reason


def test_compat_media_types_only_for_elasticsearch_8_and_newer() -> None:
    # Rally's rule (esrally/client/asynchronous.py): compatible-with only for Elasticsearch >= 8.
    assert uses_compat_media_types(None, None) is True
    assert uses_compat_media_types("elasticsearch", "8.19.0") is True
    assert uses_compat_media_types("elasticsearch", "9.1.0") is True
    assert uses_compat_media_types("elasticsearch", "7.17.0") is False
    assert uses_compat_media_types("opensearch", "2.18.0") is False


def test_plain_media_type() -> None:
    assert plain_media_type("application/vnd.elasticsearch+json; compatible-with=8") == "application/json"
    assert (
        plain_media_type("application/vnd.elasticsearch+x-ndjson; compatible-with=8")
        == "application/x-ndjson"
    )
    assert plain_media_type("text/plain") == "text/plain"


async def test_plain_media_type_node_rewrites_headers_before_sending(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[HttpHeaders] = []

    async def fake_send(self, method, target, body=None, headers=None, request_timeout=None):
        sent.append(headers)
        return "response"

    monkeypatch.setattr(TimedAiohttpNode, "perform_request", fake_send)
    client = create_client(
        ConnectionSettings.create(
            ["127.0.0.1:9"], ClientOptions(distribution_flavor="opensearch", distribution_version="2.18.0")
        )
    )
    node = client.transport.node_pool.all()[0]
    assert isinstance(node, PlainMediaTypeNode)
    original = HttpHeaders(
        {
            "accept": "application/vnd.elasticsearch+json; compatible-with=8",
            "content-type": "application/vnd.elasticsearch+x-ndjson; compatible-with=8",
        }
    )
    assert await node.perform_request("POST", "/_bulk", body=b"{}\n", headers=original) == "response"
    assert sent[0]["accept"] == "application/json"
    assert sent[0]["content-type"] == "application/x-ndjson"
    assert original["accept"].startswith(
        "application/vnd.elasticsearch"
    )  # the caller's headers are untouched
    await client.close()


async def test_client_skips_the_product_check_and_keeps_compat_for_unknown_targets() -> None:
    client = create_client(ConnectionSettings.create(["127.0.0.1:9"], ClientOptions()))
    assert client._verified_elasticsearch is True
    assert type(client.transport.node_pool.all()[0]) is TimedAiohttpNode
    assert client.options(request_timeout=5)._verified_elasticsearch is True
    await client.close()


def test_detected_fields_are_not_client_options() -> None:
    with pytest.raises(ConfigError, match="Unknown --client-options distribution_flavor"):
        parse_client_options("distribution_flavor:opensearch")
