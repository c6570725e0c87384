"""A scripted loopback HTTP server for the raw transport's tests (see ``Scripted``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

#: A handler answers bytes, a list of byte pieces (sent separately), ``(answer, "close")`` to
#: close the connection after answering, or None to close without answering.
Handler = Callable[[bytes], object]


class Scripted:
    """Each request (head + body) is answered by ``handler(request_bytes)`` (see ``Handler``)."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[bytes] = []
        self.connections = 0
        self.server: asyncio.AbstractServer | None = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                request = head + (await reader.readexactly(length) if length else b"")
                self.requests.append(request)
                answer = self.handler(request)
                if answer is None:
                    break
                close = isinstance(answer, tuple)
                pieces = answer[0] if close else answer
                for piece in pieces if isinstance(pieces, list) else [pieces]:
                    writer.write(piece)
                    await writer.drain()
                    if isinstance(pieces, list):
                        await asyncio.sleep(0.005)  # separate TCP segments
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"


def ok(body: bytes) -> bytes:
    head = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
    return head.encode() + body
