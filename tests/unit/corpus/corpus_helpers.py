"""Builders for corpus tests: small NDJSON files, track model objects, prepared files."""

from __future__ import annotations

import json
from pathlib import Path

from esbench.corpus.cache import offsets_path_for
from esbench.corpus.model import PreparedDocuments
from esbench.corpus.offsets import build_offset_index, write_offset_index
from esbench.track.model import Challenge, DocumentCorpus, Documents, Track


def doc_line(corpus: str, i: int) -> bytes:
    """Document ``i`` of a test corpus: a JSON object whose ``id`` identifies it."""
    # Variable length so that line boundaries fall everywhere in read blocks.
    return (
        json.dumps({"corpus": corpus, "id": i, "pad": "x" * (i % 37)}, separators=(",", ":")).encode() + b"\n"
    )


def write_docs(
    path: Path, count: int, *, corpus: str = "c", action_lines: bool = False, newline_at_end: bool = True
) -> Path:
    """Write ``count`` documents (optionally each preceded by an action line) to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    parts = []
    for i in range(count):
        if action_lines:
            parts.append(json.dumps({"index": {"_index": "src", "_id": str(i)}}).encode() + b"\n")
        parts.append(doc_line(corpus, i))
    data = b"".join(parts)
    if not newline_at_end and data:
        data = data[:-1]
    path.write_bytes(data)
    return path


def prepared(
    path: Path,
    count: int,
    *,
    corpus: str = "c",
    target_index: str | None = "idx",
    target_data_stream: str | None = None,
    action_lines: bool = False,
    every: int = 7,
) -> PreparedDocuments:
    """A :class:`PreparedDocuments` for an existing file, with a fresh offset index (small ``every``)."""
    offsets = offsets_path_for(path)
    offsets.parent.mkdir(parents=True, exist_ok=True)
    write_offset_index(build_offset_index(path, every=every), offsets)
    documents = Documents(
        source_file=path.name,
        document_count=count,
        includes_action_and_meta_data=action_lines,
        target_index=target_index,
        target_data_stream=target_data_stream,
    )
    return PreparedDocuments(
        corpus=corpus,
        documents=documents,
        path=path,
        offsets_path=offsets,
        document_count=count,
        includes_action_and_meta_data=action_lines,
        target_index=target_index,
        target_data_stream=target_data_stream,
    )


def make_track(root: Path, *corpora: DocumentCorpus) -> Track:
    """A minimal track with the given corpora."""
    return Track(
        name="test-track",
        root=root,
        challenges=(Challenge(name="c", schedule=(), default=True),),
        corpora=corpora,
    )


def corpus(name: str, *documents: Documents, root: Path | None = None) -> DocumentCorpus:
    """A corpus model object."""
    return DocumentCorpus(name=name, documents=tuple(documents), root=root)


def body_docs(body: bytes) -> list[tuple[dict, dict]]:
    """Parse a bulk body into (action, document) pairs."""
    lines = body.split(b"\n")
    assert lines[-1] == b"", "a bulk body must end with a newline"
    lines = lines[:-1]
    assert len(lines) % 2 == 0
    return [(json.loads(lines[i]), json.loads(lines[i + 1])) for i in range(0, len(lines), 2)]
