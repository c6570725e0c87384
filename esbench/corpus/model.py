"""What :func:`esbench.corpus.prepare.prepare_corpora` hands to the driver: local, indexed files."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from esbench.exceptions import NotFound
from esbench.track.model import Documents


@dataclass(frozen=True, slots=True, kw_only=True)
class PreparedDocuments:
    """One document file, available uncompressed with an offset index (picklable).

    Attributes:
        corpus: name of the corpus the file belongs to.
        documents: the track's description of the file.
        path: the uncompressed NDJSON file.
        offsets_path: its offset index (:mod:`esbench.corpus.offsets`).
        document_count: documents in the file (lines, or lines / 2 with action-and-meta-data).
        includes_action_and_meta_data: every document line is preceded by its bulk action line.
        target_index: the index bulk requests write into (None with ``target_data_stream``).
        target_data_stream: the data stream bulk requests write into.
    """

    corpus: str
    documents: Documents
    path: Path
    offsets_path: Path
    document_count: int
    includes_action_and_meta_data: bool = False
    target_index: str | None = None
    target_data_stream: str | None = None


@dataclass(frozen=True, slots=True)
class DataSetFile:
    """A vector data set file of a corpus (OSB's ``"source-format": "hdf5"`` or ``"big-ann"``),
    available uncompressed for ``data_set_corpus`` (:mod:`esbench.corpus.vectors` reads it).

    Attributes:
        corpus: name of the corpus.
        source_format: the documents' ``source-format``.
        path: the uncompressed file.
    """

    corpus: str
    source_format: str
    path: Path


@dataclass(frozen=True, slots=True)
class CorpusSet:
    """The prepared files of a track, by corpus name (track order): the bulk document files, and
    the vector data set files (``data_sets``)."""

    by_corpus: Mapping[str, tuple[PreparedDocuments, ...]] = field(default_factory=dict)
    data_sets: Mapping[str, tuple[DataSetFile, ...]] = field(default_factory=dict)

    def data_set_paths(self, corpus_name: str, source_format: str) -> tuple[Path, ...]:
        """The prepared data set files of ``corpus_name`` whose ``source-format`` is
        ``source_format`` (OSB's ``corpus.filter(source_format=...)``), in track order."""
        return tuple(f.path for f in self.data_sets.get(corpus_name, ()) if f.source_format == source_format)

    def files(self, corpus_name: str) -> tuple[PreparedDocuments, ...]:
        """The prepared files of one corpus, in track order.

        Raises:
            NotFound: no prepared corpus of that name (the message lists the prepared ones).
        """
        try:
            return self.by_corpus[corpus_name]
        except KeyError:
            names = ", ".join(self.by_corpus) or "none"
            raise NotFound(
                f"Corpus '{corpus_name}' was not prepared. Prepared corpora: {names}. "
                f"Check the 'corpora' parameter of the bulk operation against the track's corpora."
            ) from None

    def all(self) -> tuple[PreparedDocuments, ...]:
        """Every prepared file, corpus by corpus."""
        return tuple(f for files in self.by_corpus.values() for f in files)

    def names(self) -> tuple[str, ...]:
        """Names of the prepared corpora."""
        return tuple(self.by_corpus)

    def __iter__(self) -> Iterator[PreparedDocuments]:
        return iter(self.all())
