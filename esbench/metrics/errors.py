"""The distinct failures of a task: a bounded table of error descriptions with counts.

``TaskResult.errors_by_type`` says *that* requests failed (``{"400": 812}``); this table says *why*:
per distinct (error type, HTTP status, Elasticsearch error type, reason) the number of failed
requests. It lives in each worker's :class:`~esbench.metrics.recorder.TaskRecorder`, travels in the
``RecorderState`` and is merged in the coordinator like the histograms.

Memory is bounded: a table keeps the first :data:`MAX_DESCRIPTIONS` distinct descriptions it sees
(later failures with one of them only add to its count; failures with yet another description are
counted in ``error_count`` but not described), and reasons are cut to :data:`MAX_REASON_CHARS`.
Reasons that embed document ids or values (bulk version conflicts) are distinct per document, so
the table fills with the first ones; the counts of the described ones plus the undescribed rest
always add up to ``error_count``.
"""

from __future__ import annotations

from collections.abc import Iterable

from esbench.records import ErrorDescription

#: Distinct descriptions kept per task and phase (per worker process, and after merging).
MAX_DESCRIPTIONS = 20
#: Longest reason kept, in characters (the rest is replaced by an ellipsis).
MAX_REASON_CHARS = 500

ErrorKey = tuple[str, int | None, str | None, str]


def clip_reason(reason: str) -> str:
    """``reason`` on one line, cut to :data:`MAX_REASON_CHARS` characters."""
    text = " ".join(reason.split())
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"


class ErrorTable:
    """Counts of failed requests by description, bounded to :data:`MAX_DESCRIPTIONS` entries.

    Not on the hot path of successful requests: the executor calls :meth:`add` for failed
    requests only.
    """

    __slots__ = ("counts", "undescribed")

    def __init__(self) -> None:
        self.counts: dict[ErrorKey, int] = {}
        self.undescribed = 0

    def add(self, error_type: str, http_status: int | None, es_type: str | None, reason: str) -> bool:
        """Count one failed request; True if its description was not in the table before.

        ``reason`` should already be one line (:func:`clip_reason`); only its length is checked here.

        Returns False for a known description and for a new one that no longer fits (counted in
        :attr:`undescribed`).
        """
        if len(reason) > MAX_REASON_CHARS:
            reason = clip_reason(reason)
        key = (error_type, http_status, es_type, reason)
        counts = self.counts
        if key in counts:
            counts[key] += 1
            return False
        if len(counts) >= MAX_DESCRIPTIONS:
            self.undescribed += 1
            return False
        counts[key] = 1
        return True

    def descriptions(self) -> tuple[ErrorDescription, ...]:
        """The table as :class:`ErrorDescription` values, most frequent first (ties: first seen)."""
        return _ranked(self.counts)


def _ranked(counts: dict[ErrorKey, int]) -> tuple[ErrorDescription, ...]:
    ordered = sorted(counts.items(), key=lambda kv: -kv[1])[:MAX_DESCRIPTIONS]
    return tuple(
        ErrorDescription(error_type=t, http_status=s, es_type=e, reason=r, count=c)
        for (t, s, e, r), c in ordered
    )


def merge_descriptions(parts: Iterable[Iterable[ErrorDescription]]) -> tuple[ErrorDescription, ...]:
    """Add the tables of several recorders of one task: counts of equal descriptions are summed;
    the :data:`MAX_DESCRIPTIONS` most frequent are kept."""
    counts: dict[ErrorKey, int] = {}
    for part in parts:
        for d in part:
            key = (d.error_type, d.http_status, d.es_type, d.reason)
            counts[key] = counts.get(key, 0) + d.count
    return _ranked(counts)
