"""Which corpora a challenge reads: the one rule that race control and ``esbench download`` share."""

from __future__ import annotations

from collections.abc import Iterable

from esbench.track.model import Task, Track

#: Operation types whose runs read document corpora.
CORPUS_OPERATIONS = frozenset({"bulk"})
#: OSB's vector operations and the params that name the corpus of their data sets
#: (``osbenchmark/workload/params.py``, ``VectorDataSetPartitionParamSource``).
DATA_SET_OPERATIONS: dict[str, tuple[str, ...]] = {
    "bulk-vector-data-set": ("data_set_corpus",),
    "vector-search": ("data_set_corpus", "neighbors_data_set_corpus"),
}


def corpora_read(track: Track, tasks: Iterable[Task]) -> list[str]:
    """Names of the corpora that ``tasks`` read: empty when none of them reads a corpus.

    A task reads corpora when its operation type is in :data:`CORPUS_OPERATIONS`; a ``bulk`` task
    reads the corpora named in its ``corpora`` param (a name or a list), else all of the track's
    that have bulk files (Rally's ``corpora`` bulk parameter, see
    :func:`esbench.corpus.bulk.select_files`). OSB's vector operations read the corpora their
    ``data_set_corpus`` / ``neighbors_data_set_corpus`` name (:data:`DATA_SET_OPERATIONS`).

    Returns:
        The track's corpora that are read, in track order, then names that tasks ask for but the
        track does not define (in the order the tasks name them), so that
        :func:`esbench.corpus.prepare_corpora` can report them.
    """
    wanted: dict[str, None] = {}
    for task in tasks:
        op_type = task.operation.operation_type
        if op_type in DATA_SET_OPERATIONS:
            for key in DATA_SET_OPERATIONS[op_type]:
                if task.operation.params.get(key):
                    wanted[str(task.operation.params[key])] = None
            continue
        if op_type not in CORPUS_OPERATIONS:
            continue
        names = task.operation.params.get("corpora")
        if names is None:
            # All of the track's corpora but those of vector data sets only (no bulk input).
            bulk = (
                c
                for c in track.corpora
                if not c.documents or any(d.source_format == "bulk" for d in c.documents)
            )
            wanted.update(dict.fromkeys(c.name for c in bulk))
        else:
            wanted.update(dict.fromkeys([names] if isinstance(names, str) else names))
    known = [c.name for c in track.corpora if c.name in wanted]
    return known + [n for n in wanted if n not in known]
