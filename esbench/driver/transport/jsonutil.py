"""JSON encoding for request bodies and decoding of the responses the driver must read.

Uses ``orjson`` (compact output, several times faster than the standard library) when it is
installed and falls back to :mod:`json` with the same compact separators.
"""

from __future__ import annotations

import json
from typing import Any

try:  # pragma: no cover - depends on the environment
    import orjson

    _OPTIONS = orjson.OPT_NON_STR_KEYS

    def dumps(value: object) -> bytes:
        """``value`` as compact UTF-8 JSON bytes."""
        return orjson.dumps(value, option=_OPTIONS)

    def loads(data: bytes | str) -> Any:
        """Parse JSON bytes or text."""
        return orjson.loads(data)

except ImportError:  # pragma: no cover

    def dumps(value: object) -> bytes:
        """``value`` as compact UTF-8 JSON bytes."""
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    def loads(data: bytes | str) -> Any:
        """Parse JSON bytes or text."""
        return json.loads(data)


def body_bytes(body: object) -> bytes | None:
    """A request body as bytes: bytes pass through, str is UTF-8 encoded, anything else is JSON.

    A list of strings is joined with newlines (an NDJSON bulk body given as lines, Rally style).
    """
    if body is None:
        return None
    if isinstance(body, bytes):
        return body
    if isinstance(body, bytearray | memoryview):
        return bytes(body)
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, list) and body and all(isinstance(line, str) for line in body):
        text = "\n".join(body)
        return (text if text.endswith("\n") else text + "\n").encode("utf-8")
    return dumps(body)
