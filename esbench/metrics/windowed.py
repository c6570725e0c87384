"""Per-second latency and service-time percentiles: cheap log-linear bucket counts per 1-second window.

The task-wide percentiles come from HdrHistograms (3 significant digits, ~1 µs per
``record_value`` in pure Python). A percentile *per second* would need one such histogram per
window, which is too slow for the hot path and too large to keep per second of a long task.
Instead each window counts samples in **log-linear buckets** of integer microseconds:

- values below 64 µs have a bucket each (exact);
- above, every power of two is cut into 32 buckets (:data:`SUB_BUCKETS`), so a bucket's width is
  at most 1/32 of its lowest value: reporting the bucket's midpoint is within ±1.6 % of every
  value in it (HdrHistogram's idea with 5 binary instead of 3 decimal significant digits).

The bucket index is two integer operations on the already computed microsecond value
(``bit_length`` and a shift), and the latency and service-time buckets of a window share one
``dict`` (service-time keys are offset by :data:`SERVICE_TIME_OFFSET`), so recording costs two
dict increments. Memory per window is bounded by the distinct buckets hit (at most 2 × 1,100 for
values up to 24 h, typically a few dozen); windows older than the current one are packed into ``array('Q')``
(8 bytes per bucket) by :class:`WindowBuckets`, so a long task keeps ~1 KB per second.

Percentiles of a window follow Rally's rank rule (esrally ``metrics.py``
``percentile_value``, :mod:`esbench.metrics.ranks`) on the bucket midpoints.
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Iterable, Mapping, Sequence

from esbench.metrics.ranks import rank_values

#: Buckets per power of two above the exact range (2^5: bucket width ≤ 1/32 of its value).
SUB_BITS = 5
SUB_BUCKETS = 1 << SUB_BITS
#: Values (µs) below this have a bucket of their own.
EXACT_LIMIT = 2 * SUB_BUCKETS
#: ``bit_length`` of the largest exact value; larger values are shifted by ``bit_length - EXACT_BITS``.
EXACT_BITS = SUB_BITS + 1
#: Service-time bucket keys are ``index + SERVICE_TIME_OFFSET`` (latency keys are the plain index,
#: which stays below 2,000 for any value up to 2^63 µs).
SERVICE_TIME_OFFSET = 1 << 12
#: Percentile labels of the per-window series (``TaskResult.latency_windows_ms``).
WINDOW_PERCENTILES: tuple[str, ...] = ("50", "90", "99", "100")

# A packed bucket is key << _COUNT_BITS | count (counts per window stay far below 2^40).
_COUNT_BITS = 40
_COUNT_MASK = (1 << _COUNT_BITS) - 1


def bucket_index(value_us: int) -> int:
    """The log-linear bucket of a non-negative integer microsecond value (negative → bucket 0).

    The same computation is inlined in :meth:`esbench.metrics.recorder.TaskRecorder.record`.
    """
    if value_us < 0:
        return 0
    bits = value_us.bit_length()
    if bits <= EXACT_BITS:
        return value_us
    shift = bits - EXACT_BITS
    return (shift << SUB_BITS) + (value_us >> shift)


def bucket_value(index: int) -> float:
    """The representative value (µs) of a bucket: the midpoint of the integers it holds."""
    if index < EXACT_LIMIT:
        return float(max(index, 0))
    shift = (index >> SUB_BITS) - 1
    low = (index - (shift << SUB_BITS)) << shift
    return low + ((1 << shift) - 1) / 2.0


def pack(counts: Mapping[int, int]) -> bytes:
    """A window's bucket counts (key -> count) as compact bytes: ``array('Q')`` of
    ``key << 40 | count`` sorted by key, zlib-compressed (the high bytes are mostly zero)."""
    packed = sorted((key << _COUNT_BITS) | count for key, count in counts.items() if count)
    return zlib.compress(array("Q", packed).tobytes(), 1)


def unpack(blob: bytes) -> dict[int, int]:
    """Inverse of :func:`pack`."""
    packed = array("Q")
    packed.frombytes(zlib.decompress(blob))
    return {p >> _COUNT_BITS: p & _COUNT_MASK for p in packed}


class WindowBuckets:
    """The bucket counts of one task phase, per 1-second window, with bounded memory.

    ``live`` maps a window index to its ``dict`` of bucket counts (written on the hot path);
    :meth:`freeze_before` packs the windows before a given index into bytes. A response that
    arrives for a window that is already packed gets a new live dict for that window, and
    :meth:`encoded` adds both.
    """

    __slots__ = ("frozen", "live")

    def __init__(self) -> None:
        self.live: dict[int, dict[int, int]] = {}
        self.frozen: dict[int, list[bytes]] = {}

    def freeze_before(self, window: int) -> None:
        """Pack every live window with an index below ``window``."""
        for k in [k for k in self.live if k < window]:
            self.frozen.setdefault(k, []).append(pack(self.live.pop(k)))

    def encoded(self) -> dict[int, bytes]:
        """window index -> packed bucket counts (for :class:`~esbench.metrics.recorder.RecorderState`)."""
        keys = set(self.live) | set(self.frozen)
        out: dict[int, bytes] = {}
        for k in sorted(keys):
            parts = list(self.frozen.get(k, ()))
            if k in self.live:
                parts.append(pack(self.live[k]))
            out[k] = parts[0] if len(parts) == 1 else merge_packed(parts)
        return out


def merge_packed(parts: Iterable[bytes]) -> bytes:
    """The packed sum of several packed bucket counts of one window."""
    total: dict[int, int] = {}
    for blob in parts:
        for key, count in unpack(blob).items():
            total[key] = total.get(key, 0) + count
    return pack(total)


def merge_window_buckets(parts: Sequence[tuple[Mapping[int, bytes], int]]) -> dict[int, bytes]:
    """Merge the window buckets of several recorders; each part's windows are shifted by its offset.

    Negative shifted indexes belong to window 0 (as for the throughput windows).
    """
    grouped: dict[int, list[bytes]] = {}
    for buckets, offset in parts:
        for k, blob in buckets.items():
            grouped.setdefault(max(k + offset, 0), []).append(blob)
    return {k: (v[0] if len(v) == 1 else merge_packed(v)) for k, v in sorted(grouped.items())}


def window_percentiles_ms(
    blob: bytes | None, labels: Sequence[str] = WINDOW_PERCENTILES
) -> tuple[dict[str, float], dict[str, float]]:
    """(latency, service time) percentiles in ms of one window's packed buckets; ``{}`` when empty."""
    if not blob:
        return {}, {}
    latency: list[tuple[int, int]] = []
    service: list[tuple[int, int]] = []
    for key, count in sorted(unpack(blob).items()):
        if key >= SERVICE_TIME_OFFSET:
            service.append((key - SERVICE_TIME_OFFSET, count))
        else:
            latency.append((key, count))
    percentiles = [float(label) for label in labels]

    def ms(items: list[tuple[int, int]]) -> dict[str, float]:
        if not items:
            return {}
        values = rank_values(items, sum(c for _, c in items), percentiles, bucket_value)
        return {label: v / 1000.0 for label, v in zip(labels, values, strict=True)}

    return ms(latency), ms(service)


def window_series_ms(
    buckets: Mapping[int, bytes], windows: range, labels: Sequence[str] = WINDOW_PERCENTILES
) -> tuple[dict[str, tuple[float | None, ...]], dict[str, tuple[float | None, ...]]]:
    """Per-window percentile series for the window indexes in ``windows``.

    Returns ``(latency, service_time)``: label -> one value in ms per window (None for a window in
    which no measurement response ended); ``({}, {})`` for an empty range.
    """
    if not len(windows):
        return {}, {}
    latency: dict[str, list[float | None]] = {label: [] for label in labels}
    service: dict[str, list[float | None]] = {label: [] for label in labels}
    for k in windows:
        lat, svc = window_percentiles_ms(buckets.get(k), labels)
        for label in labels:
            latency[label].append(lat.get(label))
            service[label].append(svc.get(label))
    return (
        {label: tuple(v) for label, v in latency.items()},
        {label: tuple(v) for label, v in service.items()},
    )
