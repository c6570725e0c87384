"""Bulk request bodies from prepared corpus files: the hot path of bulk indexing.

A :class:`BulkSource` is built in the driver's coordinator (cheap, picklable) and iterated in a
worker process. It reads the client's own slice of every file (Rally's rules, see
:mod:`esbench.corpus.slicing`) through a read-only memory mapping of the slice
(:mod:`esbench.corpus.mapped`) and assembles bodies from the raw bytes of corpus lines; documents
are never decoded or parsed.

Body assembly:

* constant action line (no id conflicts): :func:`~esbench.corpus.lines.prefix_group` finds the
  ``bulk-size``-th newline in the mapped slice and copies the documents once, the action line in
  front of each: with the C twin (``_lines.c``) that is two ``memchr`` passes over the body's
  bytes, several times cheaper than splitting a block into line objects and joining them, which
  esbench did before (docs/performance.md, "Bulk body assembly");
* files with action-and-meta-data lines: the next ``2 * bulk_size`` lines, copied, are the body;
* id conflicts: lines are split and each gets its own action line (:mod:`esbench.corpus.conflicts`).

Action lines are Rally's, byte for byte: ``{"index": {"_index": "NAME"}}`` for indices and
``{"create": {"_index": "NAME"}}`` for data streams (which only accept ``create``).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import cast

from esbench.corpus.conflicts import ConflictingActions, IdConflicts
from esbench.corpus.heap import retain_freed_bodies
from esbench.corpus.lines import iter_line_lists
from esbench.corpus.mapped import MappedRange
from esbench.corpus.model import PreparedDocuments
from esbench.corpus.offsets import OffsetIndex, read_offset_index
from esbench.corpus.slicing import FileSlice, client_slices, number_of_bulks
from esbench.exceptions import DataError, TrackValidationError


@dataclass(frozen=True, slots=True, kw_only=True)
class BulkRequest:
    """One bulk request body and what it contains.

    Attributes:
        body: NDJSON body (action and document lines), ending in ``\\n``: ``bytes``, or a
            read-only ``memoryview`` where :meth:`BulkSource.requests` was asked for views.
        doc_count: documents in the body (Rally's ``bulk-size`` of this request).
        index: the index or data stream the action lines target (None when a file's own action
            lines are passed through); Rally passes it as the request's default index.
        file: the file the documents come from.
    """

    body: bytes | memoryview
    doc_count: int
    index: str | None
    file: PreparedDocuments


def select_files(
    files: Sequence[PreparedDocuments],
    *,
    corpora: Sequence[str] | str | None = None,
    indices: Sequence[str] | str | None = None,
    data_streams: Sequence[str] | str | None = None,
) -> tuple[PreparedDocuments, ...]:
    """Rally's bulk ``corpora``/``indices``/``data-streams`` params: keep only matching files.

    Source: Rally ``BulkIndexParamSource.used_corpora`` and ``DocumentCorpus.filter``: a file is
    kept if its corpus is listed (when ``corpora`` is given), its ``target-index`` is listed (when
    ``indices`` is given) and its ``target-data-stream`` is listed (when ``data_streams`` is given).
    A single string counts as a one-element list.

    Raises:
        TrackValidationError: nothing matches (the message lists what there is).
    """

    def as_set(value: Sequence[str] | str | None) -> set[str] | None:
        if value is None:
            return None
        return {value} if isinstance(value, str) else set(value)

    want_corpora, want_indices, want_streams = as_set(corpora), as_set(indices), as_set(data_streams)
    selected = tuple(
        f
        for f in files
        if (want_corpora is None or f.corpus in want_corpora)
        and (not want_indices or f.target_index in want_indices)
        and (not want_streams or f.target_data_stream in want_streams)
    )
    if files and not selected:
        have = sorted({f.corpus for f in files})
        raise TrackValidationError(
            f"The bulk operation's corpora {sorted(want_corpora or [])}, "
            f"indices {sorted(want_indices or [])} "
            f"and data streams {sorted(want_streams or [])} match no document file of the corpora {have}. "
            f"Fix the 'corpora', 'indices' or 'data-streams' parameter of the bulk operation."
        )
    return selected


class BulkSource:
    """The bulk bodies of one client: its 1/N slice of each file, ``bulk_size`` documents per body.

    Args:
        files: prepared files to index (usually ``CorpusSet.all()`` or :func:`select_files`).
        client_index: this client, in ``[0, num_clients)``.
        num_clients: clients of the bulk task.
        bulk_size: documents per body (the last body of each file slice may hold fewer).
        index: write into this index instead of each file's target (an esbench extension; a file
            targeting a data stream keeps ``create`` actions). Ignored for files that carry their
            own action lines.
        looped: start over with the first body after the last one (Rally's ``looped``).
        id_conflicts: Rally's simulated id conflicts, or None for append-only bodies without ids.
        pipeline: ingest pipeline name; not part of the body, exposed for the bulk runner.
        ingest_percentage: only the first ``ceil(bulks * p / 100)`` bodies of the client
            (Rally's ``ingest-percentage``, counted over all its file slices in reading order).

    Iterating yields ``(body: bytes, doc_count: int)``; :meth:`requests` yields
    :class:`BulkRequest` with the target index too. The process's own memory is about one body,
    whatever the file size; the pages of the mapped slices it has read count in its resident set
    as shared, clean page cache (:mod:`esbench.corpus.mapped` says why).

    Raises:
        TrackValidationError: bad sizes, percentages, or conflicts requested for files with their
            own action lines or for data streams (Rally rejects both).
        DataError: a file has no target index/data stream and no ``index`` is given.
    """

    def __init__(
        self,
        files: Sequence[PreparedDocuments],
        *,
        client_index: int,
        num_clients: int,
        bulk_size: int,
        index: str | None = None,
        looped: bool = False,
        id_conflicts: IdConflicts | None = None,
        pipeline: str | None = None,
        ingest_percentage: float = 100.0,
    ) -> None:
        if bulk_size <= 0:
            raise TrackValidationError(f"'bulk-size' must be positive but was {bulk_size}.")
        if not 0.0 <= ingest_percentage <= 100.0:
            raise TrackValidationError(
                f"'ingest-percentage' must be in the range [0.0, 100.0] but was {ingest_percentage:.1f}."
            )
        if num_clients <= 0 or not 0 <= client_index < num_clients:
            raise ValueError(f"client_index {client_index} not in [0, {num_clients})")
        for f in files:
            if id_conflicts is not None and f.includes_action_and_meta_data:
                raise TrackValidationError(
                    f"Cannot generate id conflicts [{id_conflicts.kind}] as [{f.documents.source_file}] in "
                    f"document corpus [{f.corpus}] already contains an action and meta-data line. "
                    f"Remove 'conflicts' from the bulk operation."
                )
            if id_conflicts is not None and f.target_data_stream and not f.target_index:
                raise TrackValidationError(
                    f"Conflicts cannot be generated with append-only data streams (corpus [{f.corpus}] "
                    f"targets data stream [{f.target_data_stream}]). "
                    f"Remove 'conflicts' from the bulk operation."
                )
            if not f.includes_action_and_meta_data and not (index or f.target_index or f.target_data_stream):
                raise DataError(
                    f"Document file [{f.documents.source_file}] of corpus [{f.corpus}] has no target index "
                    f"or data stream. Set 'target-index' in the corpus definition of the track."
                )
        self.client_index = client_index
        self.num_clients = num_clients
        self.bulk_size = bulk_size
        self.index = index
        self.looped = looped
        self.id_conflicts = id_conflicts
        self.pipeline = pipeline
        self.ingest_percentage = ingest_percentage
        self.slices: tuple[FileSlice, ...] = tuple(client_slices(files, client_index, num_clients))
        all_bulks = number_of_bulks(self.slices, bulk_size)
        #: Bodies per pass over the slices (after ``ingest_percentage``).
        self.bulks_per_pass = math.ceil(all_bulks * ingest_percentage / 100)
        #: Documents per pass over the slices (after ``ingest_percentage``).
        self.docs_per_pass = self._docs_in_first_bulks(self.bulks_per_pass)

    def _docs_in_first_bulks(self, bulks: int) -> int:
        docs = 0
        for s in self.slices:
            if bulks <= 0:
                break
            full, rest = divmod(s.docs, self.bulk_size)
            slice_bulks = full + (1 if rest else 0)
            if bulks >= slice_bulks:
                docs += s.docs
            else:
                docs += bulks * self.bulk_size
            bulks -= slice_bulks
        return docs

    def __iter__(self) -> Iterator[tuple[bytes, int]]:
        for request in self.requests():
            yield cast(bytes, request.body), request.doc_count  # copies: views were not asked for

    def requests(self, *, views: bool = False) -> Iterator[BulkRequest]:
        """Yield the client's bulk requests (forever when ``looped`` and there is anything to send).

        Each file slice is memory-mapped while it is read (:class:`~esbench.corpus.mapped.MappedRange`);
        when ``looped``, the mappings stay for the next pass, whose pages are then mapped already
        (up to :data:`~esbench.corpus.mapped.KEEP_LIMIT` bytes per slice). Closing the generator
        unmaps them.

        ``views``: the consumer sends bodies as they are and takes any buffer, so bodies may be
        read-only ``memoryview`` objects instead of copies: those of files with their own action
        lines always, those of a kept looped slice from its second pass on
        (:mod:`esbench.corpus.spool`). The bytes are the same either way.
        """
        retain_freed_bodies()
        passes = 0
        mapped: dict[int, MappedRange] = {}
        # Per slice, its requests once they are views of a sealed spool: immutable, so every
        # later pass hands out the same objects.
        spooled: dict[int, list[BulkRequest]] = {}
        try:
            while True:
                remaining = self.bulks_per_pass
                for slice_index, s in enumerate(self.slices):
                    if remaining <= 0:
                        break
                    cached = spooled.get(slice_index)
                    slice_requests = (
                        iter(cached)
                        if cached is not None
                        else self._slice_requests(s, slice_index, passes, mapped, views, spooled)
                    )
                    for request in slice_requests:
                        yield request
                        remaining -= 1
                        if remaining <= 0:
                            break
                    if not self.looped and slice_index in mapped:
                        mapped.pop(slice_index).close()
                passes += 1
                if not self.looped or self.bulks_per_pass == 0:
                    return
        finally:
            for m in mapped.values():
                m.close()

    def _target(self, f: PreparedDocuments) -> tuple[str | None, bool]:
        """(target name, use ``create``) for generated action lines."""
        if f.includes_action_and_meta_data:
            return self.index or f.target_index or f.target_data_stream, False
        if f.target_data_stream and not f.target_index:
            return self.index or f.target_data_stream, True
        return self.index or f.target_index, False

    def _slice_requests(
        self,
        s: FileSlice,
        slice_index: int,
        passes: int,
        mapped: dict[int, MappedRange],
        views: bool,
        spooled: dict[int, list[BulkRequest]],
    ) -> Iterator[BulkRequest]:
        """The requests of one pass over slice ``s``; once its bodies are views of a sealed
        spool, they are built as a list, kept in ``spooled`` for every later pass."""
        f = s.file
        target, use_create = self._target(f)
        if self.id_conflicts is not None:
            # Bodies with per-document ids: read as line lists, nothing to keep mapped.
            yield from self._conflict_requests(s, slice_index, passes, target)
            return
        m = mapped.get(slice_index)
        if m is None:
            m = mapped[slice_index] = MappedRange(f.path, *_byte_range(s), reread=self.looped, lines=s.lines)
        if f.includes_action_and_meta_data:
            for chunk, line_count in m.groups(2 * self.bulk_size, views=views):
                yield BulkRequest(body=chunk, doc_count=line_count // 2, index=target, file=f)
            return
        assert target is not None  # the constructor refuses a file without one
        action = action_line(target, create=use_create)
        bodies = m.groups(self.bulk_size, prefix=action, views=views)
        if views and m.spooled(self.bulk_size, action):
            spooled[slice_index] = [BulkRequest(body=b, doc_count=n, index=target, file=f) for b, n in bodies]
            yield from spooled[slice_index]
            return
        for body, count in bodies:
            yield BulkRequest(body=body, doc_count=count, index=target, file=f)

    def _conflict_requests(
        self, s: FileSlice, slice_index: int, passes: int, target: str | None
    ) -> Iterator[BulkRequest]:
        assert target is not None and self.id_conflicts is not None
        seed = self.id_conflicts.seed
        rng = random.Random(
            f"{seed if seed is not None else 'esbench'}:{self.client_index}:{slice_index}:{passes}"
        )
        actions = ConflictingActions(
            self.id_conflicts, index=target, offset=s.offset_lines, docs=s.docs, rng=rng
        )
        for lines in iter_line_lists(s.file.path, *_byte_range(s), self.bulk_size):
            yield BulkRequest(body=actions.body(lines), doc_count=len(lines), index=target, file=s.file)


def action_line(target: str, *, create: bool = False) -> bytes:
    """Rally's constant action line: ``{"index": {"_index": "NAME"}}\\n`` (or ``create``)."""
    op = "create" if create else "index"
    return f'{{"{op}": {{"_index": {json.dumps(target)}}}}}\n'.encode()


def _byte_range(s: FileSlice) -> tuple[int, int]:
    """(start, end) byte offsets of the slice's lines in its file, from the file's offset index.

    Raises:
        DataError: the offset index is missing or stale.
    """
    index = _load_index(s.file)
    return index.locate(s.file.path, s.offset_lines), index.locate(s.file.path, s.offset_lines + s.lines)


def _load_index(f: PreparedDocuments) -> OffsetIndex:
    index = read_offset_index(f.offsets_path)
    if index is None or not index.matches(f.path):
        raise DataError(
            f"The offset index [{f.offsets_path}] of corpus file [{f.path}] is missing or stale. "
            f"Prepare the corpora again (esbench does this at the start of every race)."
        )
    return index
