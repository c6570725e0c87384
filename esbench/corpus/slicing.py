"""Which lines of which files a bulk client reads: Rally's partitioning rules.

Sources (Rally 2.x ``esrally/track/params.py``):

* ``bounds()``: client ``i`` of ``N`` reads documents ``[round(D/N * i), round(D/N * (i+1)))`` of a
  file with ``D`` documents (Python's ``round``, i.e. half to even), times two lines per document
  when the file includes action-and-meta-data lines.
* ``create_readers()``: with several corpora, client ``i`` starts with corpus ``i % len(corpora)``
  and then takes one file of each corpus in turn (round robin), so clients spread over corpora;
  within a corpus, files keep their track order. Files whose slice is empty are skipped.
* ``number_of_bulks()``: ``ceil(docs / bulk_size)`` bulks per file slice; a bulk never spans two
  files, so the last bulk of a slice may be smaller.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from esbench.corpus.model import PreparedDocuments


def bounds(
    total_docs: int, client_index: int, num_clients: int, includes_action_and_meta_data: bool
) -> tuple[int, int, int]:
    """Rally's slice of one file for one client.

    Returns:
        ``(offset_lines, docs, lines)``: first line to read (0-based), number of documents, and
        number of lines to read.

    Raises:
        ValueError: ``client_index`` not in ``[0, num_clients)``.
    """
    if num_clients <= 0 or not 0 <= client_index < num_clients:
        raise ValueError(f"client_index {client_index} not in [0, {num_clients})")
    lines_per_doc = 2 if includes_action_and_meta_data else 1
    docs_per_client = total_docs / num_clients
    start_docs = round(docs_per_client * client_index)
    end_docs = round(docs_per_client * (client_index + 1))
    docs = end_docs - start_docs
    return start_docs * lines_per_doc, docs, docs * lines_per_doc


@dataclass(frozen=True, slots=True, kw_only=True)
class FileSlice:
    """The part of one prepared file that one client reads.

    Attributes:
        file: the prepared document file.
        offset_lines: first line (0-based) of the slice.
        docs: documents in the slice.
        lines: lines in the slice (``docs``, or ``2 * docs`` with action-and-meta-data lines).
    """

    file: PreparedDocuments
    offset_lines: int
    docs: int
    lines: int


def client_slices(files: Sequence[PreparedDocuments], client_index: int, num_clients: int) -> list[FileSlice]:
    """The non-empty slices client ``client_index`` reads, in Rally's reading order.

    ``files`` are grouped by their ``corpus`` (in order of first appearance); see the module
    docstring for the order.
    """
    corpora: dict[str, list[PreparedDocuments]] = {}
    for f in files:
        corpora.setdefault(f.corpus, []).append(f)
    groups = list(corpora.values())
    if not groups:
        return []
    first = client_index % len(groups)
    queues: list[deque[FileSlice]] = []
    for group in groups[first:] + groups[:first]:
        queue: deque[FileSlice] = deque()
        for f in group:
            offset, docs, lines = bounds(
                f.document_count, client_index, num_clients, f.includes_action_and_meta_data
            )
            if docs > 0:
                queue.append(FileSlice(file=f, offset_lines=offset, docs=docs, lines=lines))
        queues.append(queue)
    ordered: list[FileSlice] = []
    while any(queues):
        for queue in queues:
            if queue:
                ordered.append(queue.popleft())
    return ordered


def number_of_bulks(slices: Sequence[FileSlice], bulk_size: int) -> int:
    """Bulk requests needed for ``slices`` (each slice rounds up on its own)."""
    return sum(-(-s.docs // bulk_size) for s in slices)
