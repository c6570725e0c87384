"""Newline arithmetic on raw bytes: the primitive under offset indices and bulk bodies.

Corpus files are NDJSON: one document (or action line) per ``\\n``-terminated line. Nothing here
decodes or parses a line; it only finds newlines (``bytes.find``, i.e. memchr) or splits blocks
at them (``bytes.split``), so the cost per line is a few hundred nanoseconds at most.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

_NL = b"\n"
#: Bytes read from disk per ``read`` call by :func:`iter_line_groups` and :func:`iter_line_lists`.
READ_BLOCK = 4 << 20


def nth_newline(buf: bytes, start: int, n: int, end: int | None = None) -> tuple[int, int]:
    """Find the ``n``-th newline (1-based) of ``buf[start:end]``.

    Returns:
        ``(index, 0)`` with the index of that newline in ``buf`` when found, else
        ``(-1, missing)`` where ``missing`` is how many more newlines would be needed.
    """
    if n <= 0:
        return start - 1, 0
    stop = len(buf) if end is None else end
    find = buf.find
    p = start - 1
    # ``find`` is memchr; it beats ``count`` (a plain byte loop) for lines of a few hundred bytes.
    for i in range(n):
        p = find(_NL, p + 1, stop)
        if p < 0:
            return -1, n - i
    return p, 0


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


def iter_line_groups(
    path: Path, start: int, end: int, lines_per_group: int, *, block_size: int = READ_BLOCK
) -> Iterator[tuple[bytes, int]]:
    """Read the byte range ``[start, end)`` of ``path`` as groups of whole lines.

    Yields ``(chunk, lines)``: ``chunk`` holds exactly ``lines_per_group`` newline-terminated
    lines, except the last group which may hold fewer. A final line without a trailing newline
    (at the end of the range) gets one appended. Memory stays around one group plus one read block.

    ``start`` must be the offset of a line start and ``end`` a line end (or the file size), as
    given by :class:`esbench.corpus.offsets.OffsetIndex`.
    """
    if lines_per_group <= 0:
        raise ValueError(f"lines_per_group must be positive, got {lines_per_group}")
    with open(path, "rb") as f:
        f.seek(start)
        left = end - start
        buf = b""
        pos = 0  # start of the unconsumed part of buf
        scanned = 0  # buf[pos:scanned] has been searched and holds `seen` newlines
        seen = 0
        eof = left <= 0
        while True:
            need = lines_per_group - seen
            idx, missing = nth_newline(buf, scanned, need)
            if idx >= 0:
                group_end = idx + 1
                yield buf[pos:group_end], lines_per_group
                pos = group_end
                scanned = group_end
                seen = 0
                continue
            seen = lines_per_group - missing
            scanned = len(buf)
            if eof:
                break
            data = f.read(min(block_size, left))
            if not data:
                eof = True
                continue
            left -= len(data)
            if left <= 0:
                eof = True
            # Drop consumed bytes before growing the buffer, so memory tracks one group.
            buf = buf[pos:] + data
            scanned -= pos
            pos = 0
        rest = buf[pos:]
        if rest:
            if not rest.endswith(_NL):
                rest += _NL
                seen += 1
            yield rest, seen
