"""``--test-mode``: shrink a track so a race finishes in seconds (smoke tests, CI).

Rules from Rally's ``TestModeTrackProcessor`` (``esrally/track/loader.py``, esrally 2.13):

* every document file with more than 1000 documents is replaced by its ``-1k`` variant:
  ``x.json.bz2`` → ``x-1k.json.bz2``, ``x.json`` → ``x-1k.json``; its document count becomes
  1000 and its sizes are cleared (not checked). Files with at most 1000 documents stay as they are;
* per task: ``warmup-iterations`` and ``iterations`` are capped at the number of clients (so
  each client runs at least one), ``warmup-time-period`` becomes 0, ``time-period`` is capped at
  10 s;
* throttling: Rally keeps the task throttled at ``sys.maxsize`` ops in the original unit; esbench
  removes ``target-throughput``/``target-interval`` instead (same effect: run as fast as possible).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TypedDict

from esbench.track.model import DocumentCorpus, Documents, Parallel, ScheduleItem, Task, Track

TEST_MODE_DOCUMENTS = 1000
TEST_MODE_MAX_TIME_PERIOD = 10.0

# Rally's archive extensions (``esrally/utils/io.py``: SUPPORTED_ARCHIVE_FORMATS).
ARCHIVE_EXTENSIONS = (".zip", ".bz2", ".gz", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".zst")


def splitext(file_name: str) -> tuple[str, str]:
    """Like :func:`os.path.splitext` but keeps ``.tar.gz``/``.tar.bz2`` together (Rally's ``io.splitext``)."""
    for double in (".tar.gz", ".tar.bz2"):
        if file_name.endswith(double):
            return file_name[: -len(double)], file_name[-len(double) :]
    return os.path.splitext(file_name)


def is_archive(file_name: str) -> bool:
    """True if ``file_name`` is a compressed archive Rally would decompress."""
    return splitext(file_name)[1] in ARCHIVE_EXTENSIONS


def one_k_source_file(source_file: str) -> str:
    """The ``-1k`` name of a document file: ``x.json.bz2`` → ``x-1k.json.bz2``, ``x.json`` → ``x-1k.json``."""
    if is_archive(source_file):
        inner, archive_ext = splitext(source_file)
        stem, ext = splitext(inner)
        return f"{stem}-1k{ext}{archive_ext}"
    stem, ext = splitext(source_file)
    return f"{stem}-1k{ext}"


def _documents(docs: Documents) -> Documents:
    if docs.document_count <= TEST_MODE_DOCUMENTS:
        return docs
    return replace(
        docs,
        source_file=one_k_source_file(docs.source_file),
        document_count=TEST_MODE_DOCUMENTS,
        compressed_bytes=None,
        uncompressed_bytes=None,
    )


class _TaskChanges(TypedDict, total=False):
    """The fields of a :class:`Task` that test mode may change."""

    warmup_iterations: int
    iterations: int
    warmup_time_period: float
    time_period: float
    target_throughput: None
    target_interval: None
    params: dict[str, object]


def _task(task: Task) -> Task:
    changes: _TaskChanges = {}
    if task.warmup_iterations is not None and task.warmup_iterations > task.clients:
        changes["warmup_iterations"] = task.clients
    if task.iterations is not None and task.iterations > task.clients:
        changes["iterations"] = task.clients
    if task.warmup_time_period is not None and task.warmup_time_period > 0:
        changes["warmup_time_period"] = 0.0
    if task.time_period is not None and task.time_period > TEST_MODE_MAX_TIME_PERIOD:
        changes["time_period"] = TEST_MODE_MAX_TIME_PERIOD
    if task.throttled:
        changes["target_throughput"] = None
        changes["target_interval"] = None
        changes["params"] = {
            k: v for k, v in task.params.items() if k not in ("target-throughput", "target-interval")
        }
    return replace(task, **changes) if changes else task


def _item(item: ScheduleItem) -> ScheduleItem:
    if isinstance(item, Parallel):
        return replace(item, tasks=tuple(_task(t) for t in item.tasks))
    return _task(item)


def apply_test_mode(track: Track) -> Track:
    """A copy of ``track`` with Rally's test-mode rules applied (see module docstring)."""
    corpora = tuple(
        DocumentCorpus(
            name=c.name, documents=tuple(_documents(d) for d in c.documents), root=c.root, meta=c.meta
        )
        for c in track.corpora
    )
    challenges = tuple(replace(c, schedule=tuple(_item(i) for i in c.schedule)) for c in track.challenges)
    return replace(track, corpora=corpora, challenges=challenges)
