"""Newline arithmetic on raw bytes: the primitive under offset indices and bulk bodies.

Corpus files are NDJSON: one document (or action line) per ``\\n``-terminated line. Nothing here
decodes or parses a line; it only finds newlines (``bytes.find``, i.e. memchr) or splits blocks
at them (``bytes.split``).

:func:`nth_newline`, :func:`prefix_lines` and :func:`prefix_group` have a C twin,
``esbench.corpus._lines`` (``_lines.c``), used where it is built (see :mod:`esbench._compiled`);
the Python functions ``py_nth_newline``, ``py_prefix_lines`` and ``py_prefix_group`` are the
specification and ``tests/unit/corpus/test_lines_equivalence.py`` holds the two together. With
the twin a bulk body of 1,000 documents of ~140 bytes costs two passes over its bytes instead of
~1,000 Python calls (see docs/performance.md, "Bulk body assembly"). Each takes any buffer:
``bytes``, a ``bytearray`` or the ``mmap`` of :mod:`esbench.corpus.mapped`.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeAlias

from esbench._compiled import load

#: What the newline primitives read: immutable bytes, a read buffer, or a mapped file range.
Buffer: TypeAlias = bytes | bytearray | mmap.mmap

_NL = b"\n"
#: Bytes read from disk per ``read`` call by :func:`iter_line_lists`.
READ_BLOCK = 4 << 20


def py_nth_newline(buf: Buffer, start: int, n: int, end: int | None = None) -> tuple[int, int]:
    """Find the ``n``-th newline (1-based) of ``buf[start:end]``.

    ``start`` and ``end`` are byte offsets, ``end`` (default ``len(buf)``) is clamped to
    ``len(buf)``.

    Returns:
        ``(index, 0)`` with the index of that newline in ``buf`` when found, else
        ``(-1, missing)`` where ``missing`` is how many more newlines would be needed.

    Raises:
        ValueError: ``start`` or ``end`` is negative.
    """
    if start < 0 or (end is not None and end < 0):
        raise ValueError(f"nth_newline: start ({start}) and end ({end}) must not be negative")
    if n <= 0:
        return start - 1, 0
    stop = len(buf) if end is None else min(end, len(buf))
    find = buf.find
    p = start - 1
    # ``find`` is memchr; it beats ``count`` (a plain byte loop) for lines of a few hundred bytes.
    for i in range(n):
        p = find(_NL, p + 1, stop)
        if p < 0:
            return -1, n - i
    return p, 0


def py_prefix_lines(buf: Buffer, start: int, end: int, prefix: bytes) -> bytes:
    """The lines of ``buf[start:end]``, each with ``prefix`` in front: a bulk body in one copy.

    A last line without a newline gets one, so the result always ends in ``\\n`` (or is empty
    when the range is). This is how a bulk body with a constant action line is built:
    ``prefix`` is the action line (ending in ``\\n``) and the range holds ``bulk-size`` document
    lines; the bytes equal joining ``prefix + line + b"\\n"`` over the lines, the layout Rally's
    bulk body has (``esrally/track/params.py``, ``GenerateActionMetaData`` and ``bulk_generator``).

    Args:
        buf: the bytes holding the lines.
        start: offset of a line start in ``buf``.
        end: offset just past the last line (clamped to ``len(buf)``).
        prefix: bytes put in front of every line.

    Raises:
        ValueError: ``start`` or ``end`` is negative.
    """
    if start < 0 or end < 0:
        raise ValueError(f"prefix_lines: start ({start}) and end ({end}) must not be negative")
    end = min(end, len(buf))
    if start >= end:
        return b""
    last = end - 1 if buf[end - 1] == 0x0A else end
    return bytes(prefix + buf[start:last].replace(_NL, _NL + prefix) + _NL)


def py_prefix_group(
    buf: Buffer, start: int, n: int, prefix: bytes, end: int | None = None
) -> tuple[bytes | None, int, int]:
    """The next ``n`` lines of ``buf[start:end]`` with ``prefix`` in front of each, if all are there.

    The two steps of a bulk body in one call: :func:`py_nth_newline` finds the ``n``-th newline,
    then :func:`py_prefix_lines` copies the lines up to it (the C twin does both in two passes
    over the bytes, without a call per line).

    Returns:
        ``(body, next_start, 0)`` when ``n`` whole lines are there (``body`` is ``b""`` for
        ``n <= 0``), else ``(None, -1, missing)`` with the newlines still missing.

    Raises:
        ValueError: ``start`` or ``end`` is negative.
    """
    idx, missing = py_nth_newline(buf, start, n, end)
    if n <= 0:
        return b"", start, 0
    if idx < 0:
        return None, -1, missing
    return py_prefix_lines(buf, start, idx + 1, prefix), idx + 1, 0


_C = load("esbench.corpus._lines")
#: True if the C twin (``_lines.c``) is in use.
COMPILED = _C is not None
#: :func:`py_nth_newline`, in C where built.
nth_newline: Callable[..., tuple[int, int]] = _C.nth_newline if _C is not None else py_nth_newline
#: :func:`py_prefix_lines`, in C where built.
prefix_lines: Callable[[Buffer, int, int, bytes], bytes] = (
    _C.prefix_lines if _C is not None else py_prefix_lines
)
#: :func:`py_prefix_group`, in C where built.
prefix_group: Callable[..., tuple[bytes | None, int, int]] = (
    _C.prefix_group if _C is not None else py_prefix_group
)


def iter_line_lists(
    path: Path, start: int, end: int, lines_per_group: int, *, block_size: int = READ_BLOCK
) -> Iterator[list[bytes]]:
    """Read the byte range ``[start, end)`` of ``path`` as lists of lines without their ``\\n``.

    Each list holds ``lines_per_group`` lines except the last, which may hold fewer. Blocks are
    split with ``bytes.split`` (C speed, small objects); memory stays around one group plus one
    block. ``start``/``end`` must be line boundaries (or the file size).
    """
    if lines_per_group <= 0:
        raise ValueError(f"lines_per_group must be positive, got {lines_per_group}")
    pending: list[bytes] = []
    tail = b""
    with open(path, "rb") as f:
        f.seek(start)
        left = end - start
        while left > 0:
            block = f.read(min(block_size, left))
            if not block:
                break
            left -= len(block)
            lines = block.split(_NL)
            if tail:
                lines[0] = tail + lines[0]
            tail = lines.pop()  # the unterminated rest (b"" when the block ends with a newline)
            if pending:
                pending.extend(lines)
            else:
                pending = lines
            if len(pending) >= lines_per_group:
                full = len(pending) - len(pending) % lines_per_group
                for i in range(0, full, lines_per_group):
                    yield pending[i : i + lines_per_group]
                pending = pending[full:]
    if tail:
        pending.append(tail)
    if pending:
        yield pending
