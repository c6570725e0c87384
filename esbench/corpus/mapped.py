"""A byte range of a corpus file, memory-mapped, read as groups of lines: bulk bodies at copy cost.

A bulk body is the next ``bulk-size`` lines of the client's slice, each with the action line in
front. :class:`MappedRange` maps the slice read-only once and hands the mapping to
:func:`esbench.corpus.lines.prefix_group`, which finds the group's last newline and copies the
lines into a new body: the documents go from the page cache into the body in one copy, with no
read buffer between.

Why a mapping that lives as long as the slice is in use (Rally's ``MmapSource`` maps the whole
file too): a looped corpus is read over and over, and once its pages are mapped a body costs
~18 µs of CPU for 1,000 documents of ~140 bytes, against ~40 µs for ``readinto`` into a buffer
(one more copy per pass) and ~45 µs for mapping and unmapping 4 MB windows (page faults again
on every pass) (``benchmarks/bench_bulk_source.py``; docs/performance.md, "Bulk body assembly").
The cost is in the process's resident set: the pages of the slice it has mapped count in its RSS.
They are clean page-cache pages, not the process's own memory (that stays at about one body), but
mapped pages are harder for the kernel to reclaim, which matters when the load driver shares a
host with a node. So pages are kept mapped only where they will be read again, in a looped slice
of at most :data:`KEEP_LIMIT` bytes; elsewhere the pages behind the reading position are
unmapped every :data:`RELEASE_STEP` bytes (``madvise(MADV_DONTNEED)``: the page cache keeps them,
only this process's mapping goes), which bounds what one range adds to the RSS.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from pathlib import Path

from esbench.corpus.lines import prefix_group, prefix_lines

#: A looped slice up to this size (bytes) stays mapped between passes (the speed of a looped bulk).
KEEP_LIMIT = 512 << 20
#: Otherwise the pages behind the reading position are unmapped in steps of this size (bytes).
RELEASE_STEP = 32 << 20


class MappedRange:
    """``path[start:end]`` mapped read-only; iterate it as line groups with :meth:`groups`.

    Args:
        path: a corpus file (NDJSON, one document or action line per line).
        start: byte offset of a line start.
        end: byte offset just past a line end, or the file size (clamped to the file's size now:
            a mapping beyond the end of a file raises SIGBUS when read, not an error).
        reread: the range will be read again (a looped corpus): keep its pages mapped if it is
            at most :data:`KEEP_LIMIT` bytes; else they are unmapped behind the reader.

    Use as a context manager, or call :meth:`close`; the mapping is released when the last
    body-building call returns (bodies are copies, never views of the mapping).

    Raises:
        OSError: the file cannot be opened or mapped.
    """

    def __init__(self, path: Path, start: int, end: int, *, reread: bool = False) -> None:
        self._map: mmap.mmap | None = None
        self._closed = False
        self.keeps_pages = reread and end - start <= KEEP_LIMIT
        with open(path, "rb") as f:
            end = min(end, os.fstat(f.fileno()).st_size)
            if end > start:
                # The offset of a mapping must be a multiple of the allocation granularity.
                base = start - start % mmap.ALLOCATIONGRANULARITY
                self._map = mmap.mmap(f.fileno(), end - base, access=mmap.ACCESS_READ, offset=base)
                start, end = start - base, end - base
        self._start, self._end = start, end

    def groups(self, lines_per_group: int, *, prefix: bytes = b"") -> Iterator[tuple[bytes, int]]:
        """Yield ``(chunk, lines)`` over the range: ``lines_per_group`` whole lines per chunk,
        each line with ``prefix`` in front, except the last chunk, which may hold fewer. A last
        line without a newline gets one. Each chunk is a new ``bytes`` object.

        Raises:
            ValueError: ``lines_per_group`` is not positive, or the range was closed.
        """
        if lines_per_group <= 0:
            raise ValueError(f"lines_per_group must be positive, got {lines_per_group}")
        if self._closed:
            raise ValueError("the mapped range was closed")
        window = self._map
        if window is None:
            return
        pos, end = self._start, self._end
        released = 0  # window[:released] is unmapped (a multiple of the page size)
        while True:
            chunk, following, missing = prefix_group(window, pos, lines_per_group, prefix, end)
            if chunk is None:
                break
            yield chunk, lines_per_group
            pos = following
            if pos - released >= RELEASE_STEP and not self.keeps_pages:
                upto = pos - pos % mmap.PAGESIZE
                window.madvise(mmap.MADV_DONTNEED, released, upto - released)
                released = upto
        if pos < end:
            yield (
                prefix_lines(window, pos, end, prefix),
                lines_per_group - missing + (window[end - 1] != 0x0A),
            )

    def close(self) -> None:
        """Unmap the range (idempotent)."""
        self._closed = True
        if self._map is not None:
            self._map.close()
            self._map = None

    def __enter__(self) -> MappedRange:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
