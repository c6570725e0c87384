"""Rally-shaped, mutable corpus objects for plugins: ``Documents`` and ``DocumentCorpus``.

Attribute names, constructor signatures, defaults, properties (with their setters) and the
behaviour of every method are Rally 2.13's (``esrally/track/track.py``), so that a track processor
may read and write every attribute Rally allows, and may subclass them as Rally's do. Example: the
shared ``DataGenerator`` processor of rally-tracks' ``elastic/logs`` and ``elastic/security``
subclasses ``Documents`` and overrides ``uncompressed_size_in_bytes`` and ``number_of_documents``
with properties of its own; Rally's constructor stores the sizes in private fields
(``_uncompressed_size_in_bytes``...) behind properties, so such a subclass can be built. The
conversion to and from esbench's model is in :mod:`esbench.compat.trackconvert`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from esbench.compat.rally_exceptions import RallyAssertionError


class RallyRepr:
    """Rally's ``__repr__`` of its track classes: ``attr = [repr(value)]`` for every instance
    attribute, comma-separated."""

    def __repr__(self) -> str:
        return ", ".join(f"{name} = [{value!r}]" for name, value in vars(self).items())


class Documents(RallyRepr):
    """Rally's ``track.Documents``: one document file of a corpus.

    ``document_file`` is the uncompressed file name (an absolute path once the corpus is prepared),
    ``document_archive`` the compressed one (None if the track names an uncompressed file).
    ``number_of_documents``, ``compressed_size_in_bytes`` and ``uncompressed_size_in_bytes`` are
    properties with setters over ``_number_of_documents``... (sizes in bytes; None when unknown).
    """

    SOURCE_FORMAT_BULK = "bulk"

    def __init__(
        self,
        source_format: str,
        document_file: str | None = None,
        document_archive: str | None = None,
        base_url: str | None = None,
        includes_action_and_meta_data: bool = False,
        number_of_documents: int = 0,
        compressed_size_in_bytes: int | None = 0,
        uncompressed_size_in_bytes: int | None = 0,
        target_index: str | None = None,
        target_data_stream: str | None = None,
        target_type: str | None = None,
        meta_data: dict[str, Any] | None = None,
    ) -> None:
        self.source_format = source_format
        self.document_file = document_file
        self.document_archive = document_archive
        self.base_url = base_url
        self.includes_action_and_meta_data = includes_action_and_meta_data
        self._number_of_documents = number_of_documents
        self._compressed_size_in_bytes = compressed_size_in_bytes
        self._uncompressed_size_in_bytes = uncompressed_size_in_bytes
        self.target_index = target_index
        self.target_data_stream = target_data_stream
        self.target_type = target_type
        self.meta_data = meta_data or {}

    def has_compressed_corpus(self) -> bool:
        return self.document_archive is not None

    def has_uncompressed_corpus(self) -> bool:
        return self.document_file is not None

    @property
    def number_of_documents(self) -> int:
        return self._number_of_documents

    @number_of_documents.setter
    def number_of_documents(self, value: int) -> None:
        self._number_of_documents = value

    @property
    def compressed_size_in_bytes(self) -> int | None:
        return self._compressed_size_in_bytes

    @compressed_size_in_bytes.setter
    def compressed_size_in_bytes(self, value: int | None) -> None:
        self._compressed_size_in_bytes = value

    @property
    def uncompressed_size_in_bytes(self) -> int | None:
        return self._uncompressed_size_in_bytes

    @uncompressed_size_in_bytes.setter
    def uncompressed_size_in_bytes(self, value: int | None) -> None:
        self._uncompressed_size_in_bytes = value

    @property
    def number_of_lines(self) -> int:
        """Lines in the file: twice the documents when every document has its action line."""
        return self.number_of_documents * (2 if self.includes_action_and_meta_data else 1)

    @property
    def is_bulk(self) -> bool:
        return self.source_format == self.SOURCE_FORMAT_BULK

    def _esbench_identity(self) -> tuple[Any, ...]:
        return (
            self.source_format,
            self.document_file,
            self.document_archive,
            self.base_url,
            self.includes_action_and_meta_data,
            self.number_of_documents,
            self.compressed_size_in_bytes,
            self.uncompressed_size_in_bytes,
            self.target_index,
            self.target_data_stream,
            self.target_type,
        )

    def __hash__(self) -> int:
        return hash(self._esbench_identity()) ^ hash(frozenset(self.meta_data.items()))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, type(self))
            and self._esbench_identity() == other._esbench_identity()
            and self.meta_data == other.meta_data
        )

    def __str__(self) -> str:
        return f"{self.source_format} documents from {self.document_file}"


def _sum_or_none(
    documents: list[Documents], source_format: str, size: Callable[[Documents], int | None]
) -> int | None:
    # Rally's rule, kept as it is: a document of another format (or without the size) makes the
    # corpus size unknown.
    total = 0
    for doc in documents:
        value = size(doc)
        if doc.source_format != source_format or value is None:
            return None
        total += value
    return total


class DocumentCorpus(RallyRepr):
    """Rally's ``track.DocumentCorpus(name, documents=None, meta_data=None)``."""

    def __init__(
        self, name: str, documents: list[Documents] | None = None, meta_data: dict[str, Any] | None = None
    ) -> None:
        self.name = name
        self.documents = documents or []
        self.meta_data = meta_data or {}

    def number_of_documents(self, source_format: str) -> int:
        return sum(d.number_of_documents for d in self.documents if d.source_format == source_format)

    def compressed_size_in_bytes(self, source_format: str) -> int | None:
        """Bytes of the compressed files, None unless every document of ``source_format`` has it."""
        return _sum_or_none(self.documents, source_format, lambda d: d.compressed_size_in_bytes)

    def uncompressed_size_in_bytes(self, source_format: str) -> int | None:
        """Bytes of the uncompressed files, None unless every document of ``source_format`` has it."""
        return _sum_or_none(self.documents, source_format, lambda d: d.uncompressed_size_in_bytes)

    def filter(
        self,
        source_format: str | None = None,
        target_indices: Any = None,
        target_data_streams: Any = None,
    ) -> DocumentCorpus:
        """Rally's ``DocumentCorpus.filter``: the documents of that format and those targets."""
        kept = []
        for d in self.documents:
            if source_format and d.source_format != source_format:
                continue
            if target_indices and d.target_index not in target_indices:
                continue
            if target_data_streams and d.target_data_stream not in target_data_streams:
                continue
            kept.append(d)
        return DocumentCorpus(self.name, kept, meta_data=dict(self.meta_data))

    def union(self, other: DocumentCorpus) -> DocumentCorpus:
        """The documents of two views of the same corpus.

        Raises:
            RallyAssertionError: the names or the meta-data differ (Rally's errors).
        """
        if self.name != other.name:
            raise RallyAssertionError(f"Corpora names differ: [{self.name}] and [{other.name}].")
        if self.meta_data != other.meta_data:
            raise RallyAssertionError(
                f"Corpora meta-data differ: [{self.meta_data}] and [{other.meta_data}]."
            )
        if self is other:
            return self
        # Rally unites them as sets; esbench keeps the first-seen order, so runs repeat.
        docs = list(dict.fromkeys([*self.documents, *other.documents]))
        return DocumentCorpus(self.name, docs, meta_data=dict(self.meta_data))

    # Rally hashes the documents list, which raises TypeError: a corpus is not hashable there either.
    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and (self.name, self.documents, self.meta_data) == (
            other.name,
            other.documents,
            other.meta_data,
        )

    def __str__(self) -> str:
        return self.name
