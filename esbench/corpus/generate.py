"""Running a corpus generator into the cache: NDJSON file, compressed copy, ``-1k`` variant,
offset indices and a metadata file, once per (generator version, params, document count).

Files written for ``path = DIR/NAME.json`` and ``compression = ".zst"``::

    NAME.json              the corpus (uncompressed; what bulk clients read)
    NAME.json.offset       its offset index
    NAME.json.zst          compressed copy (to keep or share; ``.gz`` and ``.bz2`` work too)
    NAME.meta.json         generator, params, document count, byte sizes
    NAME-1k.json ...       the same set for the first 1,000 documents (Rally's test-mode variant)

Chunks are rendered in worker processes (up to one per core) and written in order by the calling
process, which also compresses and indexes them in the same pass; at most ``2 x workers`` chunks
are in flight, so memory stays bounded whatever the corpus size.
"""

from __future__ import annotations

import bz2
import contextlib
import datetime
import gzip
import json
import multiprocessing
import os
import pickle
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import zstandard

from esbench.corpus.generators import CorpusGenerator
from esbench.corpus.lines import nth_newline
from esbench.corpus.offsets import OffsetIndexBuilder, read_offset_index, write_offset_index
from esbench.exceptions import DataError

#: Documents in the test-mode variant (Rally's ``-1k`` files).
TEST_MODE_DOCS = 1000
_COMPRESSIONS = (".zst", ".gz", ".bz2")


@dataclass(frozen=True, slots=True, kw_only=True)
class GeneratedFile:
    """A generated corpus file in the cache and what its metadata records.

    Attributes:
        path: uncompressed NDJSON file.
        offsets_path: its offset index.
        document_count: documents (= lines).
        uncompressed_bytes: size of ``path``.
        compressed_path / compressed_bytes: the compressed copy, if one was written.
        meta_path: the metadata JSON.
    """

    path: Path
    offsets_path: Path
    document_count: int
    uncompressed_bytes: int
    compressed_path: Path | None
    compressed_bytes: int | None
    meta_path: Path


def meta_path_for(path: Path) -> Path:
    """``DIR/NAME.meta.json`` for ``DIR/NAME.json`` (or ``DIR/FILE.meta.json`` for other names)."""
    stem = path.name[: -len(".json")] if path.name.endswith(".json") else path.name
    return path.with_name(f"{stem}.meta.json")


def one_k_name(file_name: str) -> str:
    """Rally's test-mode name: ``NAME.json`` -> ``NAME-1k.json`` (``esrally`` ``TestModeTrackProcessor``)."""
    root, dot, ext = file_name.rpartition(".")
    return f"{root}-1k.{ext}" if dot and root else f"{file_name}-1k"


def read_generated(
    path: Path, *, generator: CorpusGenerator, params: Mapping[str, object], document_count: int
) -> GeneratedFile | None:
    """The generated file at ``path`` if its metadata, size and offset index match; else None."""
    meta_path = meta_path_for(path)
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        meta.get("generator") != generator.name
        or meta.get("generator_version") != generator.version
        or meta.get("params") != json.loads(json.dumps(dict(params)))
        or meta.get("document_count") != document_count
    ):
        return None
    offsets_path = path.with_name(path.name + ".offset")
    index = read_offset_index(offsets_path)
    if index is None or not index.matches(path) or index.data_size != meta.get("uncompressed_bytes"):
        return None
    compressed = meta.get("compressed_file")
    return GeneratedFile(
        path=path,
        offsets_path=offsets_path,
        document_count=document_count,
        uncompressed_bytes=int(meta["uncompressed_bytes"]),
        compressed_path=path.with_name(compressed) if compressed else None,
        compressed_bytes=meta.get("compressed_bytes"),
        meta_path=meta_path,
    )


def _render(job: tuple[CorpusGenerator, Mapping[str, object], int, int]) -> bytes:
    generator, params, chunk_index, count = job
    return generator.render_chunk(params, chunk_index, count)


def _chunk_jobs(
    generator: CorpusGenerator, params: Mapping[str, object], document_count: int
) -> list[tuple[CorpusGenerator, Mapping[str, object], int, int]]:
    size = generator.chunk_size
    return [
        (generator, params, k, min(size, document_count - k * size))
        for k in range(-(-document_count // size))
    ]


def _pool_context() -> multiprocessing.context.BaseContext:
    # fork shares the parent's generator registry (plugin generators too) and warm catalogs; it is
    # only safe while this process runs no other threads.
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _chunks(
    generator: CorpusGenerator, params: Mapping[str, object], document_count: int, workers: int
) -> Iterator[bytes]:
    jobs = _chunk_jobs(generator, params, document_count)
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield _render(job)
        return
    try:
        pickle.dumps(generator)
    except Exception:  # a generator defined in a track plugin may not pickle: stay in-process
        for job in jobs:
            yield _render(job)
        return
    with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=_pool_context()) as pool:
        pending: list[Future[bytes]] = []
        next_job = 0
        while next_job < len(jobs) or pending:
            while next_job < len(jobs) and len(pending) < 2 * workers:
                pending.append(pool.submit(_render, jobs[next_job]))
                next_job += 1
            yield pending.pop(0).result()


class _Writer(Protocol):
    """What a generated corpus file is written through (zstd, gzip and bz2 writers differ)."""

    def write(self, data: bytes, /) -> int: ...


@contextlib.contextmanager
def _compressed_writer(path: Path, compression: str) -> Iterator[_Writer]:
    if compression == ".zst":
        with open(path, "wb") as raw, zstandard.ZstdCompressor(level=3).stream_writer(raw) as writer:
            yield writer
    elif compression == ".gz":
        with gzip.open(path, "wb", compresslevel=6) as writer:
            yield writer
    else:
        with bz2.open(path, "wb") as writer:
            yield writer


class _Output:
    """One generated file being written: data, offset index, optional compressed copy."""

    def __init__(self, path: Path, compression: str | None) -> None:
        self.path = path
        self.compressed_path = path.with_name(path.name + compression) if compression else None
        self._tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        self._ctmp = (
            self.compressed_path.with_name(f".{self.compressed_path.name}.{os.getpid()}.tmp")
            if self.compressed_path
            else None
        )
        self._stack = contextlib.ExitStack()
        self._data = self._stack.enter_context(open(self._tmp, "wb"))  # noqa: SIM115 - closed by the stack
        self._compressed = (
            self._stack.enter_context(_compressed_writer(self._ctmp, compression))
            if self._ctmp and compression
            else None
        )
        self.builder = OffsetIndexBuilder()
        self.documents = 0

    def write(self, data: bytes, documents: int) -> None:
        self._data.write(data)
        if self._compressed is not None:
            self._compressed.write(data)
        self.builder.feed(data)
        self.documents += documents

    def abort(self) -> None:
        self._stack.close()
        self._tmp.unlink(missing_ok=True)
        if self._ctmp:
            self._ctmp.unlink(missing_ok=True)

    def finish(self, generator: CorpusGenerator, params: Mapping[str, object]) -> GeneratedFile:
        self._stack.close()
        if self._ctmp and self.compressed_path:
            os.replace(self._ctmp, self.compressed_path)
        os.replace(self._tmp, self.path)
        index = self.builder.finish(self.path)
        offsets_path = self.path.with_name(self.path.name + ".offset")
        write_offset_index(index, offsets_path)
        compressed_bytes = self.compressed_path.stat().st_size if self.compressed_path else None
        meta = {
            "generator": generator.name,
            "generator_version": generator.version,
            "params": dict(params),
            "document_count": self.documents,
            "uncompressed_bytes": index.data_size,
            "compressed_file": self.compressed_path.name if self.compressed_path else None,
            "compressed_bytes": compressed_bytes,
            "generated_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }
        meta_path = meta_path_for(self.path)
        meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
        return GeneratedFile(
            path=self.path,
            offsets_path=offsets_path,
            document_count=self.documents,
            uncompressed_bytes=index.data_size,
            compressed_path=self.compressed_path,
            compressed_bytes=compressed_bytes,
            meta_path=meta_path,
        )


def generate_file(
    generator: CorpusGenerator,
    params: Mapping[str, object],
    *,
    path: Path,
    document_count: int,
    compression: str | None = ".zst",
    with_test_variant: bool = True,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> GeneratedFile:
    """Generate ``document_count`` documents into ``path`` (see the module docstring for the files).

    Args:
        generator: the generator; ``params`` must already be normalized by it.
        compression: ``".zst"``, ``".gz"``, ``".bz2"`` or None for no compressed copy.
        with_test_variant: also write the ``-1k`` variant (first 1,000 documents) beside ``path``.
        workers: processes rendering chunks; None = one per core.
        progress: ``progress(documents_done, document_count)`` after every chunk.

    Raises:
        DataError: the generator produced a chunk with the wrong number of lines.
    """
    if compression is not None and compression not in _COMPRESSIONS:
        compression = None
    path.parent.mkdir(parents=True, exist_ok=True)
    workers = workers if workers is not None else (os.cpu_count() or 1)
    main = _Output(path, compression)
    variant = (
        _Output(path.with_name(one_k_name(path.name)), compression)
        if with_test_variant and document_count > 0
        else None
    )
    done = 0
    try:
        for chunk in _chunks(generator, params, document_count, workers):
            expected = min(generator.chunk_size, document_count - done)
            lines = chunk.count(b"\n")
            if lines != expected or (chunk and not chunk.endswith(b"\n")):
                raise DataError(
                    f"Corpus generator '{generator.name}' returned {lines} lines for a chunk of {expected} "
                    f"documents. This is a bug in the generator."
                )
            if variant is not None and variant.documents < TEST_MODE_DOCS:
                take = min(TEST_MODE_DOCS - variant.documents, lines)
                end, _ = nth_newline(chunk, 0, take)
                variant.write(chunk[: end + 1], take)
            main.write(chunk, lines)
            done += lines
            if progress is not None:
                progress(done, document_count)
    except BaseException:
        main.abort()
        if variant is not None:
            variant.abort()
        raise
    if variant is not None:
        variant.finish(generator, params)
    return main.finish(generator, params)
