"""Before a race: name the bulk tasks that are likely to end inside their warmup and measure nothing.

A bulk task without ``iterations`` indexes its corpus once: each of its clients sends about
``documents / (bulk-size x clients)`` bulk requests (Rally splits a corpus among the clients). If
that is only a few requests per client, the whole task lasts about as long as a few bulk requests,
often less than its ``warmup-time-period``; every request is then a warmup sample and the task has no
throughput, latency or error rate (Rally's "No throughput metrics available ... ended during
warmup"). Request times are not known before the race, so the rule is on counts:
:data:`FEW_BULKS_PER_CLIENT` requests per client or fewer, with a warmup period, is named.
"""

from __future__ import annotations

import math

from esbench.track.model import Challenge, Track

#: Bulk requests per client at or below which a bulk task with a warmup period is named.
FEW_BULKS_PER_CLIENT = 3


def short_bulk_warnings(track: Track, challenge: Challenge) -> list[str]:
    """One warning per bulk task of ``challenge`` with a warmup period and few bulks per client.

    Only corpus-driven bulk tasks count (no ``iterations``, no ``time-period``: those run for as long
    as they are told). The document count is that of the corpora the task selects (``corpora``
    param, else all of the track's).
    """
    warnings = []
    for task in challenge.tasks():
        op = task.operation
        if op.operation_type != "bulk" or not task.warmup_time_period:
            continue
        if task.iterations is not None or task.time_period is not None:
            continue
        bulk_size = op.params.get("bulk-size")
        if not isinstance(bulk_size, int) or isinstance(bulk_size, bool) or bulk_size < 1:
            continue
        wanted = op.params.get("corpora")
        names = {wanted} if isinstance(wanted, str) else set(wanted) if isinstance(wanted, list) else None
        docs = sum(
            d.document_count for c in track.corpora if names is None or c.name in names for d in c.documents
        )
        if not docs:
            continue
        clients = max(task.clients, 1)
        per_client = math.ceil(docs / (bulk_size * clients))
        if per_client > FEW_BULKS_PER_CLIENT:
            continue
        warnings.append(
            f"Task '{task.name}' sends only about {per_client} bulk request{'s' if per_client != 1 else ''} "
            f"per client ({docs:,} documents in bulks of {bulk_size:,} over {clients} clients) but warms "
            f"up for {task.warmup_time_period:g} s: it may end inside its warmup and measure nothing. "
            "Lower its warmup-time-period or bulk-size, or index more documents."
        )
    return warnings
