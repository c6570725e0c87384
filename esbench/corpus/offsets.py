"""Offset index of an uncompressed corpus file: line number -> byte offset every N lines.

The same idea as Rally's ``<file>.offset`` tables (``esrally/utils/io.py``,
``prepare_file_offset_table``): with the byte offset of every N-th line, a bulk client seeks
close to its first line and skips at most N-1 lines instead of reading the file from the start.
The index also records the file's line count, so document counts are checked without a rescan.

File format (text, one entry per line)::

    esbench-offsets 1
    lines=<line count> bytes=<file size> mtime_ns=<file mtime> every=<N>
    <line>;<byte offset>        for line = N, 2N, 3N, ... (line numbers are 0-based)

An index is valid only for the exact size and modification time it was built for.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from esbench.corpus.lines import nth_newline
from esbench.exceptions import DataError

#: Default distance in lines between two index entries (an 8 MB skip at most for eventdata).
DEFAULT_EVERY = 10_000
_MAGIC = "esbench-offsets 1"
_READ = 4 << 20


@dataclass(frozen=True, slots=True, kw_only=True)
class OffsetIndex:
    """A loaded offset index.

    Attributes:
        line_count: lines in the data file (a last line without ``\\n`` counts).
        data_size: size of the data file in bytes when indexed.
        data_mtime_ns: modification time of the data file when indexed.
        every: distance in lines between entries.
        offsets: ``offsets[k]`` is the byte offset of line ``k * every`` (``offsets[0] == 0``).
    """

    line_count: int
    data_size: int
    data_mtime_ns: int
    every: int
    offsets: tuple[int, ...]

    def locate(self, data_path: Path, line: int) -> int:
        """Byte offset where line ``line`` (0-based) starts; ``line_count`` gives the file size.

        Reads at most ``every - 1`` lines of ``data_path``.

        Raises:
            ValueError: ``line`` outside ``[0, line_count]``.
            DataError: the data file is shorter than the index says (changed under us).
        """
        if not 0 <= line <= self.line_count:
            raise ValueError(f"line {line} outside [0, {self.line_count}]")
        if line == self.line_count:
            return self.data_size
        k = line // self.every
        base = self.offsets[k]
        to_skip = line - k * self.every
        if to_skip == 0:
            return base
        with open(data_path, "rb") as f:
            f.seek(base)
            pos = base
            while True:
                block = f.read(_READ)
                if not block:
                    raise DataError(
                        f"Corpus file [{data_path}] changed after its offset index was built. "
                        f"Delete [{data_path}.offset] (or the cached file) and run again."
                    )
                idx, missing = nth_newline(block, 0, to_skip)
                if idx >= 0:
                    return pos + idx + 1
                to_skip = missing
                pos += len(block)

    def matches(self, data_path: Path) -> bool:
        """True if ``data_path`` still has the size and mtime this index was built for."""
        try:
            st = data_path.stat()
        except OSError:
            return False
        return st.st_size == self.data_size and st.st_mtime_ns == self.data_mtime_ns


class OffsetIndexBuilder:
    """Builds an index from the data file's bytes fed in order (e.g. while decompressing).

    Usage: ``b = OffsetIndexBuilder(); b.feed(chunk) ...; index = b.finish(data_path)``.
    """

    def __init__(self, every: int = DEFAULT_EVERY) -> None:
        if every <= 0:
            raise ValueError("every must be positive")
        self._every = every
        self._newlines = 0
        self._size = 0
        self._last = b""
        self._offsets = [0]

    def feed(self, chunk: bytes) -> None:
        """Account for the next bytes of the file."""
        if not chunk:
            return
        n = chunk.count(b"\n")
        # Line L starts right after the L-th newline; record every `every`-th such start.
        pos = 0
        seen = 0
        next_line = len(self._offsets) * self._every
        while self._newlines + n >= next_line:
            idx, _ = nth_newline(chunk, pos, next_line - self._newlines - seen)
            seen = next_line - self._newlines
            pos = idx + 1
            self._offsets.append(self._size + pos)
            next_line += self._every
        self._newlines += n
        self._size += len(chunk)
        self._last = chunk[-1:]

    @property
    def line_count(self) -> int:
        """Lines so far: newlines, plus one for a trailing line without a newline."""
        return self._newlines + (1 if self._last and self._last != b"\n" else 0)

    def finish(self, data_path: Path) -> OffsetIndex:
        """The index for ``data_path`` (whose stat gives the recorded mtime)."""
        offsets = self._offsets
        # An entry pointing at the end of the file names no line; drop it.
        if offsets and len(offsets) > 1 and offsets[-1] >= self._size:
            offsets = offsets[:-1]
        st = data_path.stat()
        if st.st_size != self._size:
            raise DataError(
                f"Indexed {self._size} bytes of [{data_path}] but the file has {st.st_size} bytes."
            )
        return OffsetIndex(
            line_count=self.line_count,
            data_size=self._size,
            data_mtime_ns=st.st_mtime_ns,
            every=self._every,
            offsets=tuple(offsets),
        )


def build_offset_index(
    data_path: Path, *, every: int = DEFAULT_EVERY, progress: Callable[[int, int], None] | None = None
) -> OffsetIndex:
    """Scan ``data_path`` once and return its index (not written; see :func:`write_offset_index`).

    ``progress(bytes_done, bytes_total)`` is called after every read block.
    """
    builder = OffsetIndexBuilder(every)
    total = data_path.stat().st_size
    done = 0
    with open(data_path, "rb") as f:
        for block in iter(lambda: f.read(_READ), b""):
            builder.feed(block)
            done += len(block)
            if progress is not None:
                progress(done, total)
    return builder.finish(data_path)


def write_offset_index(index: OffsetIndex, path: Path) -> None:
    """Write ``index`` to ``path`` atomically (temp file + rename)."""
    lines: Iterable[str] = (
        f"{k * index.every};{offset}\n" for k, offset in enumerate(index.offsets) if k > 0
    )
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="ascii") as f:
        f.write(f"{_MAGIC}\n")
        f.write(
            f"lines={index.line_count} bytes={index.data_size} "
            f"mtime_ns={index.data_mtime_ns} every={index.every}\n"
        )
        f.writelines(lines)
    os.replace(tmp, path)


def read_offset_index(path: Path) -> OffsetIndex | None:
    """Load an index file; None if it is missing or not in esbench's format (then rebuild it)."""
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None
    rows = text.splitlines()
    if len(rows) < 2 or rows[0] != _MAGIC:
        return None
    try:
        header = dict(item.split("=", 1) for item in rows[1].split())
        every = int(header["every"])
        offsets = [0]
        for row in rows[2:]:
            line, offset = row.split(";")
            if int(line) != len(offsets) * every:
                return None
            offsets.append(int(offset))
        return OffsetIndex(
            line_count=int(header["lines"]),
            data_size=int(header["bytes"]),
            data_mtime_ns=int(header["mtime_ns"]),
            every=every,
            offsets=tuple(offsets),
        )
    except (KeyError, ValueError):
        return None


def ensure_offset_index(
    data_path: Path,
    index_path: Path,
    *,
    every: int = DEFAULT_EVERY,
    progress: Callable[[int, int], None] | None = None,
) -> OffsetIndex:
    """Return the index at ``index_path`` if it is valid for ``data_path``, else build and write it."""
    index = read_offset_index(index_path)
    if index is not None and index.matches(data_path):
        return index
    index = build_offset_index(data_path, every=every, progress=progress)
    index_path.parent.mkdir(parents=True, exist_ok=True)
    write_offset_index(index, index_path)
    return index
