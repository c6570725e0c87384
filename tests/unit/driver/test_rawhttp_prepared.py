"""The raw transport's prepared path: a request sent again (the same target, headers and body
objects) on an idle connection goes through ``connectioncore.send_prepared``, and the connection
does the transport's bookkeeping when the response is whole. Every outcome must be the one the
general path gives: the same bytes, timing, pooling, retries and errors.

These run on the core in use (C when built); ``test_connection_equivalence.py`` runs them on the
Python core as well.
"""

from __future__ import annotations

import asyncio

import elastic_transport
import pytest
from elastic_transport.client_utils import DEFAULT
from scripted_http import ok

from esbench.driver.transport import connectioncore
from esbench.driver.transport.rawhttp import RawHttpTransport
from esbench.driver.transport.timing import RequestTiming, current_timing

TARGET = "/i/_search"
BODY = b'{"query":{"match_all":{}}}'
HEADERS = {"content-type": "application/json"}


def _chunked(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + b"%x\r\n%s\r\n0\r\n\r\n" % (
        len(body),
        body,
    )


async def _send(transport: RawHttpTransport) -> bytes:
    response = await transport.request("POST", TARGET, body=BODY, headers=HEADERS)
    return response.body


async def test_a_repeated_request_is_sent_prepared_on_the_pooled_connection(serve):
    answer = ok(b'{"hits":1}')
    server = await serve(lambda req: answer)
    transport = RawHttpTransport([server.url], {})
    assert connectioncore.send_prepared(transport, "POST", TARGET, BODY, HEADERS, DEFAULT) is None
    await _send(transport)  # the general path: builds the wire form and opens the connection
    first_wire = server.requests[0]

    connection = connectioncore.send_prepared(transport, "POST", TARGET, BODY, HEADERS, DEFAULT)
    assert connection is not None and transport._idle[0] == []  # taken from the pool
    response = await connection._future
    assert response.status == 200 and response.body == b'{"hits":1}'
    assert transport._idle[0] == [connection] and connection.used  # back in the pool

    timing = RequestTiming()
    current_timing.set(timing)
    for _ in range(20):
        timing.reset()
        assert await _send(transport) == b'{"hits":1}'
        assert timing.sent == len(first_wire) and timing.received == len(answer)
        assert 0.0 < timing.start < timing.end
    assert server.connections == 1
    assert all(r == first_wire for r in server.requests)  # the same bytes as the general path
    # A different body object is not the previous request: the general path again.
    other = bytes(bytearray(BODY))
    assert connectioncore.send_prepared(transport, "POST", TARGET, other, HEADERS, DEFAULT) is None
    await transport.close()


async def test_a_pooled_connection_closed_by_the_server_is_retried_once_on_a_new_one(serve):
    answers = iter([ok(b"1"), None, ok(b"2")])  # None: close without answering
    server = await serve(lambda req: next(answers))
    transport = RawHttpTransport([server.url], {})
    assert await _send(transport) == b"1"
    assert await _send(transport) == b"2"
    assert server.connections == 2 and len(server.requests) == 3
    assert len(transport._idle[0]) == 1 and not transport._idle[0][0].closed
    await transport.close()


async def test_a_prepared_request_times_out_at_its_deadline_and_drops_the_connection(serve):
    answers = iter([ok(b"{}"), ok(b"{}"), [b""]])  # the third one hangs
    server = await serve(lambda req: next(answers))
    transport = RawHttpTransport([server.url], {}, timeout=0.3)
    await _send(transport)
    await _send(transport)
    timing = RequestTiming()
    current_timing.set(timing)
    with pytest.raises(elastic_transport.ConnectionTimeout) as timed_out:
        await _send(transport)
    assert timed_out.value.message == "The request timed out after 0.3 s (client-side timeout)"
    assert 0.3 <= timing.end - timing.start < 0.3 + 0.2
    assert timing.sent == len(server.requests[-1])
    assert transport._idle[0] == []  # the connection in an unknown state is not reused
    await transport.close()


async def test_a_connection_lost_mid_response_fails_the_prepared_request(serve):
    answers = iter([ok(b"{}"), (b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc", "close")])
    server = await serve(lambda req: next(answers))
    transport = RawHttpTransport([server.url], {})
    await _send(transport)
    timing = RequestTiming()
    current_timing.set(timing)
    with pytest.raises(elastic_transport.ConnectionError) as lost:
        await _send(transport)
    assert lost.value.message.startswith("Connection lost")
    assert timing.received == len(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc")
    assert server.connections == 1 and transport._idle[0] == []  # not retried: it had answered
    await transport.close()


async def test_a_cancelled_prepared_request_does_not_return_its_connection(serve):
    answers = iter([ok(b"{}"), [b""]])  # the second request hangs
    server = await serve(lambda req: next(answers))
    transport = RawHttpTransport([server.url], {})
    await _send(transport)
    pending = asyncio.ensure_future(_send(transport))
    while len(server.requests) < 2:
        await asyncio.sleep(0.001)
    pending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await pending
    assert transport._idle[0] == []
    await transport.close()


async def test_responses_the_python_parser_completes_do_the_same_bookkeeping(serve):
    # Chunked and gzip responses, a head split from its body, a head not seen before: all go
    # through _Connection._on_data, which must return the connection to the pool and report the
    # timing just as the C path does.
    import gzip as gzip_module

    gz = gzip_module.compress(b'{"z":1}')
    answers = iter(
        [
            ok(b"{}"),
            _chunked(b'{"c":1}'),
            b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: %d\r\n\r\n%s" % (len(gz), gz),
            [b"HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\n", b'{"s":1}'],
            b"HTTP/1.1 201 Created\r\nx-new-head: 1\r\ncontent-length: 2\r\n\r\n{}",
        ]
    )
    server = await serve(lambda req: next(answers))
    transport = RawHttpTransport([server.url], {})
    timing = RequestTiming()
    current_timing.set(timing)
    bodies = []
    for _ in range(5):
        timing.reset()
        bodies.append(await _send(transport))
        assert timing.observed and timing.received > 0
        assert len(transport._idle[0]) == 1  # back in the pool
    assert bodies == [b"{}", b'{"c":1}', b'{"z":1}', b'{"s":1}', b"{}"]
    assert server.connections == 1
    await transport.close()


async def test_a_response_that_closes_the_connection_is_not_pooled(serve):
    answer = b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\n{}"
    server = await serve(lambda req: (answer, "close"))
    transport = RawHttpTransport([server.url], {})
    for _ in range(3):
        assert await _send(transport) == b"{}"
        assert transport._idle[0] == []
    assert server.connections == 3
    await transport.close()


async def test_repeated_requests_to_several_nodes_stay_round_robin(serve):
    a = await serve(lambda req: ok(b"a"))
    b = await serve(lambda req: ok(b"b"))
    transport = RawHttpTransport([a.url, b.url], {})
    bodies = [await _send(transport) for _ in range(8)]
    assert bodies == [b"a", b"b"] * 4
    assert a.connections == b.connections == 1
    # From the third request on, each node's previous request is the same: the prepared path.
    assert connectioncore.send_prepared(transport, "POST", TARGET, BODY, HEADERS, DEFAULT) is not None
    await transport.close()


async def test_small_bodies_go_out_joined_to_their_head_and_large_ones_uncopied(serve):
    from esbench.driver.transport.rawhttp import JOIN_BODY_BYTES

    server = await serve(lambda req: ok(b"{}"))
    transport = RawHttpTransport([server.url], {})
    await _send(transport)
    (parts,) = [transport._last_request[0][5]]
    assert len(parts) == 1 and parts[0].endswith(b"\r\n\r\n" + BODY)  # one write() of the whole request
    large = b"x" * (JOIN_BODY_BYTES + 1)
    await transport.request("POST", "/_bulk", body=large)
    parts = transport._last_request[0][5]
    assert len(parts) == 2 and parts[1] is large  # the body is not copied
    assert server.requests[-1] == parts[0] + large
    await transport.close()


async def test_a_request_cancelled_after_its_response_leaves_the_pooled_connection_alone(serve):
    # The response is whole and the connection back in the pool, then the task is cancelled before
    # it resumes: the connection must stay usable (another request may already hold it).
    server = await serve(lambda req: ok(b"{}"))
    transport = RawHttpTransport([server.url], {})
    await _send(transport)
    loop = asyncio.get_running_loop()
    holder: dict[str, asyncio.Task] = {}

    class CancelOnCompletion:
        """A timing holder whose observe() (called when the response is whole, before the
        awaiting task can resume) has that task cancelled first thing in the next loop step."""

        def observe(self, start, end, sent=0, received=0):
            loop.call_soon(holder["a"].cancel)

    async def request_a():
        current_timing.set(CancelOnCompletion())
        return await _send(transport)

    holder["a"] = asyncio.ensure_future(request_a())
    with pytest.raises(asyncio.CancelledError):
        await holder["a"]
    assert len(transport._idle[0]) == 1 and not transport._idle[0][0].closed
    assert await _send(transport) == b"{}"
    assert server.connections == 1
    await transport.close()


async def test_a_prepared_request_whose_write_fails_closes_the_connection_and_reports_it(serve):
    server = await serve(lambda req: ok(b"{}"))
    transport = RawHttpTransport([server.url], {})
    await _send(transport)
    connection = transport._idle[0][0]
    real = connection.transport

    class Broken:
        def write(self, data):
            raise ConnectionResetError("write failed")

        writelines = write

        def close(self):
            real.close()

    connection.transport = Broken()
    timing = RequestTiming()
    current_timing.set(timing)
    with pytest.raises(ConnectionResetError):
        await _send(transport)
    assert connection.closed and transport._idle[0] == []
    assert timing.observed and timing.sent == len(server.requests[0])
    assert await _send(transport) == b"{}"  # a new connection
    assert server.connections == 2
    await transport.close()
