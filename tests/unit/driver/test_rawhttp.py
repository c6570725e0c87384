"""The lean HTTP client against a scripted loopback server."""

from __future__ import annotations

import asyncio
import gzip

import elastic_transport
import pytest
from scripted_http import ok

from esbench.driver.transport.rawhttp import RawHttpTransport
from esbench.driver.transport.timing import RequestTiming, current_timing


async def test_keep_alive_request_format_and_timing(serve):
    server = await serve(lambda req: ok(b'{"a":1}'))
    transport = RawHttpTransport(
        [server.url], {"authorization": "Basic eA==", "content-type": "application/json"}
    )
    timing = RequestTiming()
    current_timing.set(timing)
    for _ in range(3):
        response = await transport.request("POST", "/i/_search?size=1", body=b'{"query":{}}')
        assert (response.status, response.body) == (200, b'{"a":1}')
        assert response.headers["content-type"] == "application/json"
    assert server.connections == 1  # one keep-alive connection
    head, _, body = server.requests[0].partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == b"POST /i/_search?size=1 HTTP/1.1"
    assert b"authorization: Basic eA==" in lines and b"content-length: 12" in lines
    assert body == b'{"query":{}}'
    assert timing.observed and timing.end > timing.start
    await transport.close()


async def test_chunked_split_across_packets_and_gzip(serve):
    payload = gzip.compress(b'{"hits":"' + b"x" * 5000 + b'"}')
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(payload[i : i + 700]), payload[i : i + 700])
        for i in range(0, len(payload), 700)
    )
    answer = (
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-encoding: gzip\r\n\r\n"
        + chunks
        + b"0\r\n\r\n"
    )
    # split inside the head, inside a chunk-size line and inside chunk data
    pieces = [answer[:20], answer[20:100], answer[100:103], answer[103:1500], answer[1500:]]
    server = await serve(lambda req: pieces)
    transport = RawHttpTransport([server.url], {}, http_compress=True)
    response = await transport.request("GET", "/x")
    assert response.body == b'{"hits":"' + b"x" * 5000 + b'"}'
    assert b"accept-encoding: gzip" in server.requests[0]
    await transport.request("GET", "/y", body=b"abc")
    head, _, body = server.requests[1].partition(b"\r\n\r\n")
    assert b"content-encoding: gzip" in head and gzip.decompress(body) == b"abc"
    await transport.close()


async def test_head_and_no_content_responses(serve):
    def handler(req: bytes) -> bytes:
        if req.startswith(b"HEAD"):
            return b"HTTP/1.1 404 Not Found\r\ncontent-length: 60\r\n\r\n"
        return b"HTTP/1.1 204 No Content\r\n\r\n"

    server = await serve(handler)
    transport = RawHttpTransport([server.url], {})
    assert (await transport.request("HEAD", "/missing")).status == 404
    response = await transport.request("DELETE", "/x")
    assert response.status == 204 and response.body == b""
    assert server.connections == 1
    await transport.close()


async def test_connection_close_and_read_until_close(serve):
    server = await serve(lambda req: b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok")
    transport = RawHttpTransport([server.url], {})
    assert (await transport.request("GET", "/a")).body == b"ok"
    assert (await transport.request("GET", "/b")).body == b"ok"
    assert server.connections == 2  # "connection: close" is honoured
    server.handler = lambda req: ([b"HTTP/1.1 200 OK\r\n\r\nbody-", b"until-close"], "close")
    response = await transport.request("GET", "/c")
    assert response.body == b"body-until-close"
    await transport.close()


async def test_stale_keep_alive_connection_is_retried_once(serve):
    answers = iter([ok(b"1"), None, ok(b"2")])
    server = await serve(lambda req: next(answers))
    transport = RawHttpTransport([server.url], {})
    assert (await transport.request("GET", "/a")).body == b"1"
    # the server closes the kept-alive connection when the next request arrives
    assert (await transport.request("GET", "/b")).body == b"2"
    assert server.connections == 2
    await transport.close()


async def test_errors_are_elastic_transport_errors(serve):
    transport = RawHttpTransport(["http://127.0.0.1:1"], {})
    with pytest.raises(elastic_transport.ConnectionError) as refused:
        await transport.request("GET", "/")
    assert "Cannot connect to 127.0.0.1:1" in refused.value.message

    async def slow_server(reader, writer):
        await asyncio.sleep(5)

    server = await asyncio.start_server(slow_server, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    transport = RawHttpTransport([f"http://127.0.0.1:{port}"], {}, timeout=0.05)
    timing = RequestTiming()
    current_timing.set(timing)
    with pytest.raises(elastic_transport.ConnectionTimeout):
        await transport.request("GET", "/")
    assert timing.end - timing.start >= 0.05
    server.close()

    broken = await serve(lambda req: b"garbage\r\n\r\n")
    transport = RawHttpTransport([broken.url], {})
    with pytest.raises(elastic_transport.ConnectionError) as malformed:
        await transport.request("GET", "/")
    assert "Malformed HTTP response" in malformed.value.message


async def test_round_robin_over_nodes(serve):
    a = await serve(lambda req: ok(b"a"))
    b = await serve(lambda req: ok(b"b"))
    transport = RawHttpTransport([a.url, b.url], {})
    bodies = [(await transport.request("GET", "/")).body for _ in range(4)]
    assert bodies == [b"a", b"b", b"a", b"b"]
    assert b"host: 127.0.0.1:" in a.requests[0]
    await transport.close()


async def test_client_close_closes_fast_path_connections(serve):
    from esbench.driver.transport.client import ClientOptions, ConnectionSettings, create_client

    server = await serve(lambda req: ok(b"{}"))
    client = create_client(ConnectionSettings.create([server.url], ClientOptions()))
    await client.http.request("GET", "/")
    connection = client.http._idle[0][0]
    await client.close()
    assert connection.closed or connection.transport.is_closing()


async def test_a_new_connection_closed_before_the_response_is_not_retried(serve):
    server = await serve(lambda req: None)  # reads the request, closes without answering
    transport = RawHttpTransport([server.url], {})
    with pytest.raises(elastic_transport.ConnectionError) as lost:
        await transport.request("POST", "/_bulk", body=b'{"index":{}}\n{}\n')
    assert lost.value.message.startswith("Connection lost")
    # sent once: a retry could index the bulk twice
    assert len(server.requests) == 1 and server.connections == 1
    await transport.close()


async def test_connecting_is_bounded_by_the_timeout(monkeypatch):
    loop = asyncio.get_running_loop()

    async def never_connects(*args, **kwargs):
        await asyncio.Event().wait()

    monkeypatch.setattr(loop, "create_connection", never_connects)
    transport = RawHttpTransport(["http://127.0.0.1:9"], {}, timeout=0.01)
    with pytest.raises(elastic_transport.ConnectionTimeout) as timed_out:
        # the outer bound only keeps a broken transport from hanging the test
        await asyncio.wait_for(transport.request("GET", "/"), 10)
    assert timed_out.value.message == "Connecting to 127.0.0.1:9 timed out after 0.01 s (client-side timeout)"


def test_request_heads_are_cached_per_headers_object():
    transport = RawHttpTransport(["http://127.0.0.1:9"], {"accept": "application/json"})
    bulk_headers = {"content-type": "application/x-ndjson"}
    head = transport._request_head("POST", "/_bulk", 0, bulk_headers)
    assert transport._request_head("POST", "/_bulk", 0, bulk_headers) is head
    assert b"content-type: application/x-ndjson\r\n" in head and b"accept: application/json\r\n" in head
    other = transport._request_head("POST", "/_bulk", 0, {"content-type": "text/plain"})
    assert b"content-type: text/plain\r\n" in other


async def test_head_and_body_are_written_without_joining_them():
    from esbench.driver.transport.rawconnection import _Connection

    class Recording:
        def __init__(self):
            self.calls = []

        def write(self, data):
            self.calls.append(("write", data))

        def writelines(self, parts):
            self.calls.append(("writelines", tuple(parts)))

    connection = _Connection()
    connection.transport = Recording()
    body = b"x" * 100_000
    connection.send(
        (b"POST /_bulk HTTP/1.1\r\ncontent-length: 100000\r\n\r\n", body), head=False, start=0.0, limit=None
    )
    ((kind, parts),) = connection.transport.calls
    assert kind == "writelines" and parts[1] is body  # the body is not copied


async def test_large_bodies_are_compressed_off_the_loop_before_the_request_starts(serve, monkeypatch):
    import threading
    import time

    from esbench.driver.transport import rawhttp

    compressed_at: list[tuple[int, float]] = []
    original = rawhttp.gzip_body

    def noting(body: bytes) -> bytes:
        out = original(body)
        compressed_at.append((threading.get_ident(), time.perf_counter()))
        return out

    monkeypatch.setattr(rawhttp, "gzip_body", noting)
    server = await serve(lambda req: ok(b"{}"))
    transport = RawHttpTransport([server.url], {}, http_compress=True)
    timing = RequestTiming()
    current_timing.set(timing)
    body = b'{"index":{}}\n{"message":"GET /x HTTP/1.1 200"}\n' * 5000
    await transport.request("POST", "/_bulk", body=body)
    sent = server.requests[0].partition(b"\r\n\r\n")[2]
    assert gzip.decompress(sent) == body
    ((thread, done),) = compressed_at
    assert thread != threading.get_ident()  # not on the event loop's thread
    assert timing.start >= done  # compression is not service time
    # a small body sent again (a prepared search) is compressed once
    small = b'{"query":{"match_all":{}}}'
    for _ in range(3):
        await transport.request("POST", "/i/_search", body=small)
    assert len(compressed_at) == 2
    assert all(gzip.decompress(r.partition(b"\r\n\r\n")[2]) == small for r in server.requests[1:])
    await transport.close()


async def test_a_request_after_fast_ones_times_out_at_its_own_deadline(serve):
    # The timeout timer is armed once and re-armed lazily: the request that hangs after quick ones
    # on the same connection must still expire limit seconds after it started, not later.
    answered = 0

    def handler(request: bytes) -> object:
        nonlocal answered
        if b"/hang" in request:
            return [b""]  # never answers
        answered += 1
        return ok(b"{}")

    server = await serve(handler)
    transport = RawHttpTransport([server.url], {}, timeout=0.3)
    for _ in range(20):
        await transport.request("GET", "/quick")
    timing = RequestTiming()
    current_timing.set(timing)
    with pytest.raises(elastic_transport.ConnectionTimeout):
        await transport.request("GET", "/hang")
    waited = timing.end - timing.start
    assert answered == 20 and server.connections == 1
    assert 0.3 <= waited < 0.3 + 0.2


async def test_a_shorter_timeout_than_the_previous_request_is_honoured(serve):
    server = await serve(lambda req: [b""] if b"/hang" in req else ok(b"{}"))
    transport = RawHttpTransport([server.url], {}, timeout=30)
    await transport.request("GET", "/quick")  # arms the connection's timer 30 s ahead
    timing = RequestTiming()
    current_timing.set(timing)
    with pytest.raises(elastic_transport.ConnectionTimeout):
        await transport.request("GET", "/hang", timeout=0.2)
    assert 0.2 <= timing.end - timing.start < 0.2 + 0.2


async def test_bytes_sent_and_received_are_the_wire_bytes(serve):
    answer = ok(b'{"took":1}')
    server = await serve(lambda req: answer)
    transport = RawHttpTransport([server.url], {"authorization": "Basic eDp5"})
    timing = RequestTiming()
    current_timing.set(timing)
    await transport.request("POST", "/i/_search", body=b'{"query":{"match_all":{}}}')
    await transport.request("GET", "/")
    assert timing.sent == sum(len(r) for r in server.requests)
    assert timing.received == 2 * len(answer)
    timing.reset()
    assert (timing.sent, timing.received) == (0, 0)


async def test_headers_are_parsed_on_demand_and_framing_is_case_insensitive(serve):
    body = b'{"a":1}'
    head = (
        f"HTTP/1.1 200 OK\r\nX-Elastic-Product: Elasticsearch\r\nContent-Length: {len(body)}\r\n"
        "Connection: keep-alive\r\n\r\n"
    ).encode()
    server = await serve(lambda req: [head, body])  # head and body in separate segments
    transport = RawHttpTransport([server.url], {})
    for _ in range(2):
        response = await transport.request("GET", "/")
        assert response.body == body
        assert response.headers["x-elastic-product"] == "Elasticsearch"
        assert response.headers["connection"] == "keep-alive"
    assert server.connections == 1  # kept alive
