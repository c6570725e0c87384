"""The bulk bodies of a looped slice, written once and sent again as views, without a copy.

A looped bulk reads its slice of the corpus over and over, and each pass builds the same bodies:
on ~140-byte documents that is a copy of every document behind its action line, ~19 µs of CPU per
body of 1,000 (docs/performance.md, "Bulk body assembly"), about as much as the rest of the request.
So the first pass also appends every body it builds to a :class:`BodySpool`, and once that pass
has built the slice's last body the spool is mapped read-only: from the second pass on a body is a
``memoryview`` of the spool's mapping, handed to the socket as it is. The bytes sent are the
same, in the same order, with the same document counts.

Why a file and not memory: the spool is an unlinked temporary file (``O_TMPFILE`` where the file
system has it; nothing is left behind, also when the process is killed) beside the corpus file, so
its pages are page cache, as the corpus mapping's are, which the kernel can write back and reclaim
under memory pressure; kept bodies in the heap (or a ``memfd``) would be the driver's own memory,
which it cannot. What it costs: the first pass writes each body once more (a kernel copy into the
page cache), and the kernel may write those pages to disk (after ~30 s with Linux's default
``dirty_expire_centisecs``): about one slice's bytes per client and race. Where no temporary file
can be made or written (a read-only directory, a full disk), or where the spool would leave less
than 10 % or 1 GiB of its file system free (:func:`has_room`: a node on the same disk must not
reach its watermarks), there is no spool and the bodies stay copies, as before.

Whoever receives a view must not need ``bytes``: the built-in bulk runner sends it as it is; the
bulk param source hands views only to it (``esbench.driver.worker.params.bulk``).
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

_log = logging.getLogger(__name__)


#: A spool is written only if this share of its file system stays free after it...
MIN_FREE_SHARE = 0.10
#: ... and at least this many bytes: Elasticsearch's high disk watermark is 90 % used, its flood
#: stage (indices turn read-only) 95 %, and a node may share the load driver's disk.
MIN_FREE_BYTES = 1 << 30


def has_room(directory: str, size: int) -> bool:
    """True if ``directory``'s file system keeps :data:`MIN_FREE_SHARE` of its size and
    :data:`MIN_FREE_BYTES` free after ``size`` more bytes are written to it.

    Raises:
        OSError: ``directory`` cannot be looked at (``statvfs``).
    """
    stats = os.statvfs(directory)
    free = stats.f_bavail * stats.f_frsize
    total = stats.f_blocks * stats.f_frsize
    return free - size >= max(MIN_FREE_SHARE * total, MIN_FREE_BYTES)


class BodySpool:
    """Bodies appended in order to a temporary file, then read back as views of its mapping.

    Make one with :meth:`create`; :meth:`append` each body of the first pass, :meth:`seal` after
    the last one, then iterate :meth:`bodies` on every later pass. :meth:`close` when done.

    Args:
        file: an empty, writable, unlinked temporary file (the spool takes it over).
    """

    def __init__(self, file: BinaryIO) -> None:
        self._file: BinaryIO | None = file
        self._map: mmap.mmap | None = None
        self._size = 0
        #: (offset, length, documents) of each body in the file, in order.
        self._groups: list[tuple[int, int, int]] = []

    @classmethod
    def create(cls, near: Path, *, size: int = 0) -> BodySpool | None:
        """A spool in the directory ``near`` (the corpus file's), else in the system's temporary
        directory, for about ``size`` bytes of bodies; None if neither takes a temporary file or
        has room for it (the caller builds copies instead).

        Room (:func:`has_room`): a node on the same host must not be pushed over its disk
        watermarks by the load driver's spool.
        """
        for directory in (near, None):
            where = str(directory) if directory is not None else tempfile.gettempdir()
            try:
                if not has_room(where, size):
                    _log.debug("no bulk body spool in %s: not enough free space for %d bytes", where, size)
                    continue
                return cls(tempfile.TemporaryFile(dir=directory))
            except OSError as exc:
                _log.debug("no bulk body spool in %s: %s", where, exc)
        return None

    @property
    def sealed(self) -> bool:
        """True once :meth:`seal` mapped the file: :meth:`bodies` can be read."""
        return self._map is not None

    def append(self, body: bytes, documents: int) -> bool:
        """Write ``body`` (of ``documents`` documents) after the previous one; False (and the
        spool closed) if the file cannot take it."""
        if self._file is None:
            return False
        try:
            self._file.write(body)
        except OSError as exc:
            _log.debug("bulk body spool dropped: %s", exc)
            self.close()
            return False
        self._groups.append((self._size, len(body), documents))
        self._size += len(body)
        return True

    def seal(self) -> bool:
        """Map what was written, read-only; False (and the spool closed) if that fails or nothing
        was written."""
        if self._file is None:
            return False
        try:
            self._file.flush()
            if self._size:
                self._map = mmap.mmap(self._file.fileno(), self._size, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            _log.debug("bulk body spool dropped: %s", exc)
            self._map = None
        # The mapping keeps its own reference to the file.
        self._file.close()
        self._file = None
        if self._map is None:
            self.close()
            return False
        return True

    def bodies(self) -> Iterator[tuple[memoryview, int]]:
        """Yield ``(body, documents)`` as appended, each body a read-only view of the mapping.

        Raises:
            ValueError: the spool is not sealed (or was closed).
        """
        if self._map is None:
            raise ValueError("the bulk body spool is not sealed")
        whole = memoryview(self._map)
        for offset, length, documents in self._groups:
            yield whole[offset : offset + length], documents

    def close(self) -> None:
        """Drop the file and the mapping (idempotent). A view still in use (a body the socket has
        not sent yet) keeps the mapping alive until it is released; then it is unmapped."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._map is not None:
            with contextlib.suppress(BufferError):
                self._map.close()
            self._map = None
        self._groups = []
