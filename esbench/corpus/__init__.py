"""Corpora: local, indexed document files and the bulk bodies built from them.

Public API (see ``docs/dev/interfaces.md``):

* :func:`prepare_corpora` -> :class:`CorpusSet` of :class:`PreparedDocuments`; :func:`corpora_read`
  names the corpora a challenge's tasks read
* :class:`BulkSource` (the per-client bulk body iterator), :class:`BulkRequest`,
  :class:`IdConflicts`, :func:`select_files`
* :func:`register_generator` for generated corpora (built-in: ``eventdata``)

The names are exported lazily (:mod:`esbench.lazy`): a load-driver worker imports
:mod:`esbench.corpus.bulk` for its bulk bodies, and importing the package must not bring in
:mod:`.prepare` with the downloader (urllib.request, http.client, email: ~3 MiB of RSS in every
worker process, issue 25).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from esbench.lazy import lazy_exports

_EXPORTS = {
    "BulkRequest": "esbench.corpus.bulk",
    "BulkSource": "esbench.corpus.bulk",
    "action_line": "esbench.corpus.bulk",
    "select_files": "esbench.corpus.bulk",
    "IdConflicts": "esbench.corpus.conflicts",
    "get_generator": "esbench.corpus.generators",
    "register_generator": "esbench.corpus.generators",
    "CorpusSet": "esbench.corpus.model",
    "PreparedDocuments": "esbench.corpus.model",
    "prepare_corpora": "esbench.corpus.prepare",
    "corpora_read": "esbench.corpus.selection",
}

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

if TYPE_CHECKING:
    from esbench.corpus.bulk import BulkRequest, BulkSource, action_line, select_files
    from esbench.corpus.conflicts import IdConflicts
    from esbench.corpus.generators import get_generator, register_generator
    from esbench.corpus.model import CorpusSet, PreparedDocuments
    from esbench.corpus.prepare import prepare_corpora
    from esbench.corpus.selection import corpora_read

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
