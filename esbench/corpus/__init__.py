"""Corpora: local, indexed document files and the bulk bodies built from them.

Public API (see ``docs/dev/interfaces.md``):

* :func:`prepare_corpora` -> :class:`CorpusSet` of :class:`PreparedDocuments`; :func:`corpora_read`
  names the corpora a challenge's tasks read
* :class:`BulkSource` (the per-client bulk body iterator), :class:`BulkRequest`,
  :class:`IdConflicts`, :func:`select_files`
* :func:`register_generator` for generated corpora (built-in: ``eventdata``)
"""

from __future__ import annotations

from esbench.corpus.bulk import BulkRequest, BulkSource, action_line, select_files
from esbench.corpus.conflicts import IdConflicts
from esbench.corpus.generators import get_generator, register_generator
from esbench.corpus.model import CorpusSet, PreparedDocuments
from esbench.corpus.prepare import prepare_corpora
from esbench.corpus.selection import corpora_read

__all__ = [
    "BulkRequest",
    "BulkSource",
    "CorpusSet",
    "IdConflicts",
    "PreparedDocuments",
    "action_line",
    "corpora_read",
    "get_generator",
    "prepare_corpora",
    "register_generator",
    "select_files",
]
