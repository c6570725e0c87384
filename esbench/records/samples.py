"""Per-request samples of one task: :class:`RequestSamples`.

Kept only when a metrics store is configured: the load driver buffers one sample per request (see
``esbench.metrics.samples``), hands a task's samples to race control at the task's join point,
and ``esbench.results`` writes them as Rally's ``latency`` / ``service_time`` / ``processing_time``
documents. A ground-floor record, so neither the driver nor the results import the other for it.

Columnar (``array.array``): 8 bytes per value, 33 bytes per request in all, instead of a Python
object per request.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

#: Bit of :attr:`RequestSamples.flags`: the request was sent during the task's warmup.
WARMUP = 1
#: Bit of :attr:`RequestSamples.flags`: the request failed.
FAILED = 2


@dataclass(frozen=True, kw_only=True)
class RequestSamples:
    """The requests of one task (all clients, all workers), in no particular order.

    Attributes:
        task / operation / operation_type: names as in :class:`esbench.records.TaskResult`.
        task_start_epoch: wall clock (Unix epoch s) of the task's start, the zero of Rally's
            ``relative-time``; None if unknown (then the first request's start is used).
        start_epoch: per request, wall clock (Unix epoch s) when it was sent.
        latency_ms / service_time_ms / processing_time_ms: per request, milliseconds (the
            definitions of docs/metrics.md, as Rally's).
        flags: per request, :data:`WARMUP` and :data:`FAILED` bits.
        error_types: position of a failed request -> its error type (HTTP status, ``timeout``...).
    """

    task: str
    operation: str
    operation_type: str
    task_start_epoch: float | None = None
    start_epoch: array[float] = field(default_factory=lambda: array("d"))
    latency_ms: array[float] = field(default_factory=lambda: array("d"))
    service_time_ms: array[float] = field(default_factory=lambda: array("d"))
    processing_time_ms: array[float] = field(default_factory=lambda: array("d"))
    flags: array[int] = field(default_factory=lambda: array("B"))
    error_types: dict[int, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.start_epoch)

    @staticmethod
    def merge(parts: list[RequestSamples]) -> RequestSamples:
        """One task's samples from several workers' (same task; the earliest task start wins).

        Raises:
            ValueError: ``parts`` is empty.
        """
        if not parts:
            raise ValueError("no samples to merge")
        first = parts[0]
        starts = [p.task_start_epoch for p in parts if p.task_start_epoch is not None]
        merged = RequestSamples(
            task=first.task,
            operation=first.operation,
            operation_type=first.operation_type,
            task_start_epoch=min(starts) if starts else None,
        )
        for p in parts:
            offset = len(merged)
            merged.error_types.update((offset + i, t) for i, t in p.error_types.items())
            merged.start_epoch.extend(p.start_epoch)
            merged.latency_ms.extend(p.latency_ms)
            merged.service_time_ms.extend(p.service_time_ms)
            merged.processing_time_ms.extend(p.processing_time_ms)
            merged.flags.extend(p.flags)
        return merged
