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

Without the copy, where the consumer takes views (the built-in bulk runner): lines that carry
their own action lines are sent as views of the mapping, and a kept looped slice sends its bodies
from the second pass on as views of a :class:`~esbench.corpus.spool.BodySpool` that the first pass
filled; the range's own pages are then let go (:mod:`esbench.corpus.spool` says why and at what
cost).
"""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Iterator
from pathlib import Path

from esbench.corpus.lines import nth_newline, prefix_group, prefix_lines
from esbench.corpus.spool import BodySpool

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
        lines: the lines in the range, if known (sizes the spool of :meth:`groups`; else counted).

    Use as a context manager, or call :meth:`close`. Bodies are copies unless :meth:`groups` is
    asked for views; a view still in use when the range closes keeps its mapping until released.

    Raises:
        OSError: the file cannot be opened or mapped.
    """

    def __init__(
        self, path: Path, start: int, end: int, *, reread: bool = False, lines: int | None = None
    ) -> None:
        self._map: mmap.mmap | None = None
        self._closed = False
        self._path = path
        self._lines = lines
        self._spool: BodySpool | None = None
        self._spool_key: tuple[int, bytes] | None = None
        self._spool_tried = False
        self.keeps_pages = reread and end - start <= KEEP_LIMIT
        with open(path, "rb") as f:
            end = min(end, os.fstat(f.fileno()).st_size)
            if end > start:
                # The offset of a mapping must be a multiple of the allocation granularity.
                base = start - start % mmap.ALLOCATIONGRANULARITY
                self._map = mmap.mmap(f.fileno(), end - base, access=mmap.ACCESS_READ, offset=base)
                start, end = start - base, end - base
        self._start, self._end = start, end

    def groups(
        self, lines_per_group: int, *, prefix: bytes = b"", views: bool = False
    ) -> Iterator[tuple[bytes | memoryview, int]]:
        """Yield ``(chunk, lines)`` over the range: ``lines_per_group`` whole lines per chunk,
        each line with ``prefix`` in front, except the last chunk, which may hold fewer. A last
        line without a newline gets one.

        Each chunk is a new ``bytes`` object, unless ``views`` (the consumer takes any buffer and
        sends it as it is): then chunks without ``prefix`` are ``memoryview`` slices of the
        mapping, and in a range that :attr:`keeps_pages` the first complete pass also fills a
        :class:`~esbench.corpus.spool.BodySpool`, whose views are the chunks of every later
        call with the same ``lines_per_group`` and ``prefix``.

        Raises:
            ValueError: ``lines_per_group`` is not positive, or the range was closed.
        """
        if lines_per_group <= 0:
            raise ValueError(f"lines_per_group must be positive, got {lines_per_group}")
        if self._closed:
            raise ValueError("the mapped range was closed")
        if self._spool is not None and self.spooled(lines_per_group, prefix):
            yield from self._spool.bodies()
            return
        window = self._map
        if window is None:
            return
        if views and not prefix:
            yield from self._views(window, lines_per_group)
            return
        spool = None
        if views and self.keeps_pages and not self._spool_tried:
            self._spool_tried = True
            spool = BodySpool.create(self._path.parent, size=self._spool_size(window, prefix))
        try:
            yield from self._copies(window, lines_per_group, prefix, spool)
        finally:
            if spool is not None and not spool.sealed:
                spool.close()  # the pass ended early: later passes build copies

    def spooled(self, lines_per_group: int, prefix: bytes) -> bool:
        """True if :meth:`groups` with these arguments serves views of a sealed spool (the same
        view objects' bytes on every call: a caller may keep what it built around them)."""
        return self._spool is not None and self._spool_key == (lines_per_group, prefix)

    def _copies(
        self, window: mmap.mmap, lines_per_group: int, prefix: bytes, spool: BodySpool | None
    ) -> Iterator[tuple[bytes, int]]:
        pos, end = self._start, self._end
        released = 0  # window[:released] is unmapped (a multiple of the page size)
        while pos < end:
            chunk, following, missing = prefix_group(window, pos, lines_per_group, prefix, end)
            lines = lines_per_group
            if chunk is None:
                chunk = prefix_lines(window, pos, end, prefix)
                lines = lines_per_group - missing + (window[end - 1] != 0x0A)
                following = end
            if spool is not None and not spool.append(chunk, lines):
                spool = None
            if spool is not None and following >= end:
                self._seal(spool, (lines_per_group, prefix))
            yield chunk, lines
            pos = following
            released = self._release(window, released, pos)

    def _views(self, window: mmap.mmap, lines_per_group: int) -> Iterator[tuple[bytes | memoryview, int]]:
        """Chunks of whole lines as views of the mapping (lines that carry their own action
        lines need no copy); a last line without a newline is copied to get one."""
        pos, end = self._start, self._end
        whole = memoryview(window)
        released = 0
        while pos < end:
            last, missing = nth_newline(window, pos, lines_per_group, end)
            if last < 0:
                if window[end - 1] != 0x0A:
                    yield prefix_lines(window, pos, end, b""), lines_per_group - missing + 1
                else:
                    yield whole[pos:end], lines_per_group - missing
                return
            yield whole[pos : last + 1], lines_per_group
            pos = last + 1
            # A view of released pages may still wait in a socket buffer: they are read again
            # from the page cache when it is sent (the mapping stays; only the pages go).
            released = self._release(window, released, pos)

    def _release(self, window: mmap.mmap, released: int, pos: int) -> int:
        """Unmap the pages of ``window[released:pos]`` once the reader at ``pos`` is
        :data:`RELEASE_STEP` bytes past ``released`` (never in a range that :attr:`keeps_pages`);
        the new ``released`` (a multiple of the page size)."""
        if self.keeps_pages or pos - released < RELEASE_STEP:
            return released
        upto = pos - pos % mmap.PAGESIZE
        window.madvise(mmap.MADV_DONTNEED, released, upto - released)
        return upto

    def _spool_size(self, window: mmap.mmap, prefix: bytes) -> int:
        """Bytes of the range's bodies with ``prefix`` in front of each line (counting the lines
        if the range was not told how many it holds)."""
        lines = self._lines
        if lines is None:
            everything = 1 << 62
            lines = everything - nth_newline(window, self._start, everything, self._end)[1]
        return self._end - self._start + len(prefix) * (lines + 1)

    def _seal(self, spool: BodySpool, key: tuple[int, bytes]) -> None:
        """The first pass is complete: serve later passes from ``spool`` and let go of the
        range's own pages (the mapping stays, for a call with another group size)."""
        if not spool.seal() or self._map is None:
            return
        self._spool, self._spool_key = spool, key
        size = self._end - self._end % mmap.PAGESIZE
        if size:
            self._map.madvise(mmap.MADV_DONTNEED, 0, size)

    def close(self) -> None:
        """Unmap the range and drop its spool (idempotent). A view still in use keeps its
        mapping alive until it is released."""
        self._closed = True
        if self._spool is not None:
            self._spool.close()
            self._spool = None
        if self._map is not None:
            with contextlib.suppress(BufferError):
                self._map.close()
            self._map = None

    def __enter__(self) -> MappedRange:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
