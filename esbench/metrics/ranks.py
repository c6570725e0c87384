"""Rally's percentile rank rule over counted values, shared by the task-wide HdrHistograms
(:func:`esbench.metrics.stats.percentile_values`) and the per-second buckets
(:func:`esbench.metrics.windowed.window_percentiles_ms`).

Rally (esrally/metrics.py, ``InMemoryMetricsStore.percentile_value``, after onlinestatbook.com
"Percentiles") sorts the *n* samples and takes rank ``r = p / 100 * (n - 1)``: the sample at ``r``
when ``r`` is a whole number, else the linear interpolation between the samples at ``floor(r)``
and ``ceil(r)`` (with 2 samples, the 50th percentile is their mean).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence


def rank_values(
    buckets: Iterable[tuple[int, int]],
    total: int,
    percentiles: Sequence[float],
    value_of: Callable[[int], float],
) -> list[float]:
    """Rally's interpolated percentiles of ``total`` samples counted in ordered buckets.

    Args:
        buckets: ``(bucket index, count)`` pairs in ascending value order; buckets with a count
            of 0 may be in it. Read only as far as the highest wanted rank.
        total: the number of samples (the sum of the counts), at least 1.
        percentiles: percentiles in [0, 100].
        value_of: the value every sample of a bucket stands for, by bucket index (called once
            per bucket that holds a wanted rank).

    Returns:
        One value per percentile, in order, as floats in ``value_of``'s unit.
    """
    ranks = [float(p) / 100.0 * (total - 1) for p in percentiles]
    wanted = sorted({k for r in ranks for k in (math.floor(r), math.ceil(r))})
    at: dict[int, float] = {}
    seen = 0  # samples in the buckets before the current one
    position = 0
    for index, count in buckets:
        if not count:
            continue
        seen += count
        while position < len(wanted) and wanted[position] < seen:
            at[wanted[position]] = value_of(index)
            position += 1
        if position == len(wanted):
            break
    out = []
    for r in ranks:
        low, high = math.floor(r), math.ceil(r)
        out.append(float(at[low]) if low == high else at[low] + (at[high] - at[low]) * (r - low))
    return out
