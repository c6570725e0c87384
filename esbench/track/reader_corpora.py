"""Corpora and their documents in a track document.

A part of :class:`esbench.track.reader.TrackReader`, which mixes it in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from esbench.track.model import (
    DataStream,
    DocumentCorpus,
    Documents,
    Index,
)

if TYPE_CHECKING:
    from esbench.exceptions import TrackValidationError


class CorporaReader:
    """The corpora part of :class:`TrackReader` (a mixin; see its docstring)."""

    root: Path  # provided by TrackReader
    source_formats: tuple[str, ...]  # provided by TrackReader

    if TYPE_CHECKING:  # provided by TrackReader

        def _error(self, path: Sequence[Any], message: str, fix: str) -> TrackValidationError: ...

    # -- corpora --------------------------------------------------------------------------------

    def _corpora(
        self,
        specs: Sequence[Mapping[str, Any]],
        track_spec: Mapping[str, Any],
        indices: tuple[Index, ...],
        data_streams: tuple[DataStream, ...],
    ) -> tuple[DocumentCorpus, ...]:
        index_types = [spec.get("types") or [] for spec in track_spec.get("indices", [])]
        corpora: list[DocumentCorpus] = []
        seen: set[str] = set()
        for ci, corpus_spec in enumerate(specs):
            name = corpus_spec["name"]
            if name in seen:
                raise self._error(
                    ["corpora", ci, "name"],
                    f"duplicate corpus name '{name}'",
                    "Give every corpus a unique name.",
                )
            seen.add(name)
            base_url = corpus_spec.get("base-url")
            source_format = corpus_spec.get("source-format", "bulk")
            action_and_meta = corpus_spec.get("includes-action-and-meta-data", False)
            target_idx: str | None = None
            target_ds: str | None = None
            target_type: str | None = None
            if len(indices) == 1:
                target_idx = corpus_spec.get("target-index", indices[0].name)
            elif indices:
                target_idx = corpus_spec.get("target-index")
            if len(data_streams) == 1:
                target_ds = corpus_spec.get("target-data-stream", data_streams[0].name)
            elif data_streams:
                target_ds = corpus_spec.get("target-data-stream")
            if len(indices) == 1 and len(index_types[0]) == 1:
                target_type = corpus_spec.get("target-type", index_types[0][0])
            elif indices:
                target_type = corpus_spec.get("target-type")

            documents: list[Documents] = []
            for di, doc in enumerate(corpus_spec["documents"]):
                path: list[str | int] = ["corpora", ci, "documents", di]
                fmt = doc.get("source-format", source_format)
                if fmt not in self.source_formats:
                    raise self._error(
                        [*path, "source-format"],
                        f"unknown source-format '{fmt}' in corpus '{name}'",
                        "The supported source-formats are "
                        f"{', '.join(repr(f) for f in self.source_formats)}.",
                    )
                documents.append(
                    self._documents(
                        doc,
                        path,
                        corpus=name,
                        base_url=doc.get("base-url", base_url),
                        action_and_meta=doc.get("includes-action-and-meta-data", action_and_meta),
                        target_idx=target_idx,
                        target_ds=target_ds,
                        target_type=target_type,
                        indices=indices,
                        data_streams=data_streams,
                        source_format=fmt,
                    )
                )
            corpora.append(
                DocumentCorpus(
                    name=name,
                    documents=tuple(documents),
                    root=self.root,
                    meta=dict(corpus_spec.get("meta") or {}),
                )
            )
        return tuple(corpora)

    def _documents(
        self,
        doc: Mapping[str, Any],
        path: list[str | int],
        *,
        corpus: str,
        base_url: str | None,
        action_and_meta: bool,
        target_idx: str | None,
        target_ds: str | None,
        target_type: str | None,
        indices: tuple[Index, ...],
        data_streams: tuple[DataStream, ...],
        source_format: str = "bulk",
    ) -> Documents:
        source_file = doc["source-file"]
        idx: str | None = None
        ds: str | None = None
        typ: str | None = None
        if not action_and_meta:
            typ = doc.get("target-type", target_type)
            if data_streams and target_ds is None and "target-data-stream" not in doc:
                raise self._error(
                    path,
                    f"'{source_file}' of corpus '{corpus}' has no target-data-stream and the track has "
                    "several data streams",
                    'Add "target-data-stream" to the document entry or to the corpus.',
                )
            ds = doc.get("target-data-stream", target_ds)
            if ds and indices:
                raise self._error(
                    [*path, "target-data-stream"],
                    "target-data-stream cannot be used in a track that defines indices",
                    "Use target-index, or define data-streams instead of indices.",
                )
            if ds and typ:
                raise self._error(
                    [*path, "target-type"],
                    "target-type cannot be used together with data streams",
                    "Remove target-type.",
                )
            if indices and target_idx is None and "target-index" not in doc:
                raise self._error(
                    path,
                    f"'{source_file}' of corpus '{corpus}' has no target-index and the track has several "
                    "indices",
                    'Add "target-index" to the document entry or to the corpus.',
                )
            idx = doc.get("target-index", target_idx)
            if idx and data_streams:
                raise self._error(
                    [*path, "target-index"],
                    "target-index cannot be used in a track that defines data streams",
                    "Use target-data-stream instead.",
                )
            if idx is None and ds is None:
                which = "target-index" if indices else "target-data-stream"
                raise self._error(
                    path,
                    f"a {which} is required for '{source_file}' of corpus '{corpus}'",
                    f'Add "{which}" to the document entry or the corpus, or set '
                    f'"includes-action-and-meta-data": true if the file has bulk action lines.',
                )
        return Documents(
            source_file=source_file,
            document_count=doc["document-count"],
            base_url=base_url,
            source_format=source_format,
            compressed_bytes=doc.get("compressed-bytes"),
            uncompressed_bytes=doc.get("uncompressed-bytes"),
            includes_action_and_meta_data=bool(action_and_meta),
            target_index=idx,
            target_data_stream=ds,
            target_type=typ,
            meta=dict(doc.get("meta") or {}),
        )
