"""OSB's choice of the percentiles a summary shows: ``--latency-percentiles`` and
``--throughput-percentiles`` (OpenSearch Benchmark 2.x).

Without these options the summary shows Rally's percentiles (50, 90, 99, 99.9, 99.99, 100, as many
as the sample count allows; :func:`esbench.metrics.stats.percentiles_for_sample_size`). With them,
OSB's rules apply (OSB 2.4.0 ``osbenchmark/metrics.py`` ``GlobalStatsCalculator.single_latency`` /
``summary_stats``, ``filter_percentiles_by_sample_size``; ``osbenchmark/publisher.py``
``SummaryResultsPublisher._publish_percentiles``):

- ``--latency-percentiles=50,99.9``: the latency rows are these percentiles, in ascending order,
  each kept only when the sample count makes it distinct (:func:`osb_percentiles_for_sample_size`),
  recomputed from the task's latency HdrHistogram (Rally's and OSB's interpolated rank rule,
  :func:`esbench.metrics.stats.percentile_values`). Service and processing time keep their rows.
- ``compare --percentiles=50,99``: the latency, service time and processing time rows of the
  comparison are these percentiles (OSB's ``ComparisonResultsPublisher``), computed the same way.
- ``--throughput-percentiles=25,75``: ``<p>th percentile throughput`` rows after ``Max
  Throughput``, over the task's per-second throughput windows, filtered by the window count with
  the same rule. OSB labels these rows with the unit ``ms`` (its publisher passes no unit); esbench
  gives the throughput unit (``docs/s``, ``ops/s``).

Labels are written as OSB writes them: a whole number without decimals (``50``), others as Python
prints the float (``99.9``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from esbench.exceptions import UserError
from esbench.records import TaskResult

#: OSB's default ``--latency-percentiles`` (``GlobalStatsCalculator.DEFAULT_LATENCY_PERCENTILES``).
OSB_DEFAULT_LATENCY_PERCENTILES: tuple[float, ...] = (50.0, 90.0, 99.0, 99.9, 99.99, 100.0)

# OSB's filter compares p * 10^k / 100 with the nearest whole number within this tolerance
# (floating point: 99.9 * 1000 / 100 is 998.9999999999999).
_WHOLE_TOLERANCE = 0.000001


@dataclass(frozen=True, kw_only=True)
class ReportPercentiles:
    """The percentiles a summary shows beyond Rally's defaults.

    Attributes:
        latency: ``--latency-percentiles`` in [0, 100]; None: Rally's rows (the option not given).
        throughput: ``--throughput-percentiles`` in [0, 100]; empty: no throughput percentile rows.
    """

    latency: tuple[float, ...] | None = None
    throughput: tuple[float, ...] = ()


def parse_percentiles(text: str, *, option: str) -> tuple[float, ...]:
    """``"50,99.9"`` -> ``(50.0, 99.9)``; ``""`` -> ``()``.

    Raises:
        UserError: a value that is not a number or lies outside [0, 100]; names ``option``.
    """
    values = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        try:
            value = float(item)
        except ValueError:
            raise UserError(
                f"{option}: '{item}' is not a number; give comma-separated percentiles such as 50,90,99.9."
            ) from None
        if not 0.0 <= value <= 100.0 or math.isnan(value):
            raise UserError(f"{option}: {item} is not a percentile; each value must lie between 0 and 100.")
        values.append(value)
    return tuple(values)


def percentile_label(p: float) -> str:
    """OSB's label of a percentile: ``50.0`` -> ``"50"``, ``99.9`` -> ``"99.9"``
    (``osbenchmark/publisher.py`` ``comma_separated_string_to_number_list``)."""
    return str(int(p)) if float(p).is_integer() else str(float(p))


def osb_percentiles_for_sample_size(sample_size: int, wanted: Sequence[float]) -> tuple[float, ...]:
    """The percentiles of ``wanted`` (ascending) that ``sample_size`` samples make distinct: OSB's
    ``filter_percentiles_by_sample_size``.

    1 sample -> 100; 2-3 -> 50 and 100 if wanted; 4-9 -> 25, 50, 75, 100 if wanted; from 10 on,
    with ``n`` the sample count rounded down to a power of ten, each ``p`` for which ``p/100 * n`` is
    a whole number (and 25 and 75 always); when none is left, 100. ``()`` for 0 samples.
    """
    if sample_size < 1:
        return ()
    ordered = sorted(float(p) for p in wanted)
    if sample_size == 1:
        kept: list[float] = [100.0]
    elif sample_size < 4:
        kept = [p for p in (50.0, 100.0) if p in ordered]
    elif sample_size < 10:
        kept = [p for p in (25.0, 50.0, 75.0, 100.0) if p in ordered]
    else:
        effective = 10 ** int(math.log10(sample_size))
        kept = [
            p
            for p in ordered
            if abs(effective * p / 100 - round(effective * p / 100)) < _WHOLE_TOLERANCE or p in (25.0, 75.0)
        ]
    return tuple(kept) if kept else (100.0,)


def timing_percentiles_ms(task: TaskResult, metric: str, wanted: Sequence[float]) -> dict[str, float]:
    """Label -> ``metric`` (``"latency"``, ``"service_time"``, ``"processing_time"``) in ms of ``task``
    at the percentiles of ``wanted`` its sample count allows (:func:`osb_percentiles_for_sample_size`),
    from its HdrHistogram; a race stored without one: the stored values whose labels are wanted."""
    encoded = task.histograms.get(metric)
    if not encoded:
        stored: dict[str, float] = getattr(task, f"{metric}_ms")
        labels = {percentile_label(p) for p in wanted}
        return {k: v for k, v in stored.items() if k in labels}
    from esbench.metrics.recorder import decode_histogram
    from esbench.metrics.stats import percentile_values

    hist = decode_histogram(encoded)
    chosen = osb_percentiles_for_sample_size(hist.get_total_count(), wanted)
    values = percentile_values(hist, chosen)
    # The histogram holds microseconds.
    return {percentile_label(p): v / 1000.0 for p, v in zip(chosen, values, strict=True)}


def latency_percentiles_ms(task: TaskResult, wanted: Sequence[float]) -> dict[str, float]:
    """:func:`timing_percentiles_ms` of the latency."""
    return timing_percentiles_ms(task, "latency", wanted)


def throughput_percentiles(task: TaskResult, wanted: Sequence[float]) -> dict[str, float]:
    """Label -> throughput (``task.throughput_unit``) at the percentiles of ``wanted`` that the
    number of per-second windows allows (OSB's ``summary_stats`` over its throughput samples)."""
    windows = sorted(task.throughput_windows)
    if not windows or not wanted:
        return {}
    from esbench.metrics.ranks import rank_values

    chosen = osb_percentiles_for_sample_size(len(windows), wanted)
    values = rank_values(((i, 1) for i in range(len(windows))), len(windows), chosen, windows.__getitem__)
    return {percentile_label(p): v for p, v in zip(chosen, values, strict=True)}


def wanted_labels(wanted: Sequence[float]) -> tuple[str, ...]:
    """The labels of ``wanted`` in ascending order (the rows ``all-percentiles`` shows)."""
    return tuple(percentile_label(p) for p in sorted(wanted))
