"""Comparison of races: a baseline against one or more contenders, metric by metric.

Each *side* is one or more races (a race id, or every race with a user tag). Rows follow Rally's
compare report (``Metric | Task | Baseline | Contender | Diff | Unit | Diff %``; Diff = contender −
baseline, Diff % = Diff / baseline × 100): cluster rows, then per task Min/Mean/Median/Max
Throughput, ``<p>th percentile`` latency / service time (/ processing time), error rate.

How a side with several races is aggregated (docs/results.md):

- throughput (min/mean/median/max) and cluster rows: the mean of the races' values;
- latency / service time / processing time percentiles: the races' HdrHistograms are merged and the
  percentile is recomputed from the merged histogram (all requests of all races weigh the same); if a
  race has no histogram, the mean of the races' percentiles is shown instead (``method`` says which);
- error rate: pooled, failed requests of all races / requests of all races.

With two or more races on both sides each row also gets the relative standard deviation (RSD) of the
per-race values and Welch's t-test of the per-race values (:mod:`esbench.results.stats`); a
difference is *significant* when ``p < alpha`` (default 0.05).

The regression gate is :mod:`esbench.reporting.gate`; the renderers are
:mod:`esbench.reporting.compare_render`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from esbench.records import STATUS_COMPLETED, RaceResult, TaskResult
from esbench.results import stats

if TYPE_CHECKING:
    from hdrh.histogram import HdrHistogram

DEFAULT_ALPHA = 0.05

_THROUGHPUT_FIELDS: tuple[tuple[str, str], ...] = (
    ("min", "Min Throughput"),
    ("mean", "Mean Throughput"),
    ("median", "Median Throughput"),
    ("max", "Max Throughput"),
)
_TIMINGS: tuple[tuple[str, str, str], ...] = (
    ("latency", "latency", "latency_ms"),
    ("service_time", "service time", "service_time_ms"),
    ("processing_time", "processing time", "processing_time_ms"),
)
TIMING_KEYS: tuple[str, ...] = tuple(key for key, _, _ in _TIMINGS)
"""The timing families of percentile row keys (``latency.p99``, ``service_time.p50``...), in row order."""


@dataclass(frozen=True, kw_only=True)
class Side:
    """One side of a comparison: a label (what the user typed, e.g. ``tag:setup:3nodes``) and its races."""

    label: str
    races: tuple[RaceResult, ...]

    def __post_init__(self) -> None:
        if not self.races:
            raise ValueError(f"side {self.label!r} has no races")


@dataclass(frozen=True, kw_only=True)
class Stat:
    """One metric on one side.

    Attributes:
        value: the aggregated value shown (see the module docstring for ``method``).
        values: the per-race values, used for RSD and the t-test.
        method: ``"value"`` (one race), ``"mean"``, ``"merged-histogram"`` or ``"pooled"``.
    """

    value: float
    values: tuple[float, ...]
    method: str

    @property
    def rsd(self) -> float | None:
        """Relative standard deviation of the per-race values in % (None for fewer than 2 races)."""
        return stats.rsd(self.values)


@dataclass(frozen=True, kw_only=True)
class Row:
    """One compared metric of one task (or one cluster row when ``task`` is a cluster qualifier).

    Attributes:
        key: machine name used by thresholds: ``throughput.median``, ``latency.p99``,
            ``service_time.p99.9``, ``processing_time.p50``, ``error_rate``, ``cluster.<name>``.
        metric: Rally's row name (``Median Throughput``, ``99th percentile latency``, ``error rate``).
        higher_is_better: True for throughput (an increase is an improvement), False otherwise.
        welch: Welch's t-test of the per-race values (None unless both sides have ≥ 2 values).
    """

    key: str
    metric: str
    task: str
    unit: str
    baseline: Stat | None
    contender: Stat | None
    higher_is_better: bool
    welch: stats.WelchResult | None = None

    @property
    def diff(self) -> float | None:
        """Contender − baseline, or None if a side has no value."""
        if self.baseline is None or self.contender is None:
            return None
        b, c = self.baseline.value, self.contender.value
        # Means of equal values can differ in the last bit (0.1 * 3 / 3); that is no difference.
        return 0.0 if math.isclose(b, c, rel_tol=1e-12) else c - b

    @property
    def diff_pct(self) -> float | None:
        """Diff / baseline × 100; None without both values or with a zero baseline (0 if both are 0)."""
        d = self.diff
        if d is None or self.baseline is None:
            return None
        if self.baseline.value == 0:
            return 0.0 if d == 0 else None
        return d / abs(self.baseline.value) * 100.0

    def significant(self, alpha: float) -> bool | None:
        """Whether the difference exceeds the noise at level ``alpha``; None if it cannot be tested."""
        return None if self.welch is None else self.welch.significant(alpha)

    def improvement(self, alpha: float) -> bool | None:
        """True if better, False if worse, None if equal or not significant."""
        d = self.diff
        if not d or self.significant(alpha) is False:
            return None
        return (d > 0) == self.higher_is_better


@dataclass(frozen=True, kw_only=True)
class ContenderComparison:
    """The baseline against one contender side."""

    contender: Side
    rows: tuple[Row, ...]
    tasks: tuple[str, ...]
    only_in_baseline: tuple[str, ...] = ()
    only_in_contender: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """A baseline and one :class:`ContenderComparison` per contender side."""

    baseline: Side
    contenders: tuple[ContenderComparison, ...]
    alpha: float = DEFAULT_ALPHA
    warnings: tuple[str, ...] = ()

    @property
    def has_statistics(self) -> bool:
        """True if some side has two or more races (RSD and significance columns are shown)."""
        return len(self.baseline.races) > 1 or any(len(c.contender.races) > 1 for c in self.contenders)


def percentile_sort_key(label: str) -> float:
    """Order percentile labels numerically (``"99.9"`` after ``"99"``)."""
    return float(label)


def percentile_metric_name(label: str, name: str) -> str:
    """Rally's row name, e.g. ``("99.9", "latency") -> "99.9th percentile latency"``."""
    return f"{label}th percentile {name}"


def cluster_key(name: str) -> str:
    """Threshold key of a cluster row: ``"Store size" -> "cluster.store_size"``."""
    return "cluster." + re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def _decode(encoded: str) -> HdrHistogram | None:
    from esbench.metrics.recorder import decode_histogram

    try:
        return decode_histogram(encoded)
    except ValueError:
        return None


def _merged_percentiles(
    tasks: Sequence[TaskResult], metric: str, labels: Sequence[str]
) -> dict[str, float] | None:
    """Percentiles (ms) of the merged histograms of ``metric``; None if any task lacks a histogram."""
    from esbench.metrics.recorder import new_histogram
    from esbench.metrics.stats import percentile_values

    merged = new_histogram()
    for t in tasks:
        enc = t.histograms.get(metric)
        h = _decode(enc) if enc else None
        if h is None:
            return None
        merged.add(h)
    if merged.get_total_count() == 0:
        return None
    # The same rule as the race report (Rally's interpolated ranks), so compare and report agree.
    values = percentile_values(merged, [float(label) for label in labels])
    return {label: value / 1000.0 for label, value in zip(labels, values, strict=True)}


def _mean_stat(values: Sequence[float | None]) -> Stat | None:
    present = tuple(float(v) for v in values if v is not None)
    if not present:
        return None
    return Stat(value=stats.mean(present), values=present, method="value" if len(present) == 1 else "mean")


def _side_task_stats(
    tasks: Sequence[TaskResult], *, show_processing_time: bool, percentiles: Sequence[float] | None = None
) -> dict[str, Stat]:
    """Aggregated stats of one task over the races of one side, keyed by row key (``percentiles``:
    OSB's ``compare --percentiles``, recomputed from each race's histograms; None: the stored ones)."""
    out: dict[str, Stat] = {}
    for name, _ in _THROUGHPUT_FIELDS:
        st = _mean_stat([getattr(t, f"throughput_{name}") for t in tasks])
        if st is not None:
            out[f"throughput.{name}"] = st
    for key, _, attr in _TIMINGS:
        if key == "processing_time" and not show_processing_time:
            continue
        if percentiles is not None:
            from esbench.reporting.percentiles import timing_percentiles_ms

            per_race = [v for t in tasks if (v := timing_percentiles_ms(t, key, percentiles))]
        else:
            per_race = [getattr(t, attr) for t in tasks if getattr(t, attr)]
        if not per_race:
            continue
        labels = sorted(set().union(*per_race), key=percentile_sort_key)
        merged = _merged_percentiles(tasks, key, labels) if len(tasks) > 1 else None
        for label in labels:
            values = tuple(float(p[label]) for p in per_race if label in p)
            if merged is not None and len(values) == len(tasks):
                out[f"{key}.p{label}"] = Stat(value=merged[label], values=values, method="merged-histogram")
            else:
                out[f"{key}.p{label}"] = Stat(
                    value=stats.mean(values), values=values, method="value" if len(values) == 1 else "mean"
                )
    samples = sum(t.sample_count for t in tasks)
    # Without a measurement request there is no error rate (not 0 %): the gate must see it missing.
    if samples:
        pooled = sum(t.error_count for t in tasks) / samples * 100.0
        out["error_rate"] = Stat(
            value=pooled,
            values=tuple(t.error_rate * 100.0 for t in tasks if t.sample_count),
            method="value" if len(tasks) == 1 else "pooled",
        )
    return out


def _row_meta(key: str, task: TaskResult | None) -> tuple[str, str, bool]:
    """(Rally row name, unit, higher_is_better) of a task row key."""
    family, _, rest = key.partition(".")
    if family == "throughput":
        name = dict(_THROUGHPUT_FIELDS)[rest]
        return name, task.throughput_unit if task else "ops/s", True
    if family == "error_rate":
        return "error rate", "%", False
    pretty = {k: n for k, n, _ in _TIMINGS}[family]
    return percentile_metric_name(rest[1:], pretty), "ms", False


def _row_order(key: str) -> tuple[int, float]:
    family, _, rest = key.partition(".")
    if family == "throughput":
        return 0, [n for n, _ in _THROUGHPUT_FIELDS].index(rest)
    if family == "error_rate":
        return 9, 0.0
    return 1 + TIMING_KEYS.index(family), percentile_sort_key(rest[1:])


def _reported_task_names(races: Sequence[RaceResult]) -> list[str]:
    names: list[str] = []
    for race in races:
        for t in race.tasks:
            if t.reported and t.task not in names:
                names.append(t.task)
    return names


def _task_results(races: Sequence[RaceResult], name: str) -> list[TaskResult]:
    return [t for t in (r.task(name) for r in races) if t is not None]


def _make_row(
    key: str, metric: str, task: str, unit: str, higher: bool, base: Stat | None, cont: Stat | None
) -> Row:
    welch = None
    if base is not None and cont is not None:
        welch = stats.welch_t_test(base.values, cont.values)
    return Row(
        key=key,
        metric=metric,
        task=task,
        unit=unit,
        baseline=base,
        contender=cont,
        higher_is_better=higher,
        welch=welch,
    )


def _cluster_rows(baseline: Side, contender: Side) -> list[Row]:
    def collect(side: Side) -> dict[tuple[str, str], tuple[str, list[float]]]:
        out: dict[tuple[str, str], tuple[str, list[float]]] = {}
        for race in side.races:
            for m in race.cluster_metrics:
                out.setdefault((m.name, m.task), (m.unit, []))[1].append(m.value)
        return out

    base, cont = collect(baseline), collect(contender)
    rows = []
    for name_task in list(base) + [k for k in cont if k not in base]:
        unit = (base.get(name_task) or cont[name_task])[0]
        b = _mean_stat(base[name_task][1]) if name_task in base else None
        c = _mean_stat(cont[name_task][1]) if name_task in cont else None
        rows.append(_make_row(cluster_key(name_task[0]), name_task[0], name_task[1], unit, False, b, c))
    return rows


def _side_warnings(side: Side, role: str) -> list[str]:
    warnings = []
    for race in side.races:
        if race.status != STATUS_COMPLETED:
            reason = f": {race.error}" if race.error else ""
            warnings.append(
                f"The {role} race {race.race_id} ({side.label}) {race.status}{reason}. "
                "Its tasks that ran are compared; tasks it did not reach are missing."
            )
    tracks = sorted({r.track for r in side.races})
    if len(tracks) > 1:
        warnings.append(f"The {role} races ({side.label}) ran different tracks: {', '.join(tracks)}.")
    if len({r.test_mode for r in side.races}) > 1:
        warnings.append(f"Some {role} races ({side.label}) ran in test mode and some did not.")
    return warnings


def _shared_race_warnings(baseline: Side, contender: Side) -> list[str]:
    # A CI job whose two tags resolve to the same races would pass its gate without measuring anything.
    base_ids = {r.race_id for r in baseline.races}
    shared = [r.race_id for r in contender.races if r.race_id in base_ids]
    if not shared:
        return []
    if len(shared) == len(contender.races) == len(base_ids):
        return [
            f"The contender ({contender.label}) is the same race{'s' if len(shared) > 1 else ''} as the "
            "baseline: every difference is 0. Check --baseline and --contender."
        ]
    ids = ", ".join(i[:8] for i in shared)
    if len(shared) == len(contender.races):
        which = "Every contender race" if len(shared) > 1 else "The contender race"
        return [
            f"{which} ({contender.label}) is in the baseline too ({ids}): the differences are understated."
        ]
    verb = "is" if len(shared) == 1 else "are"
    return [
        f"{len(shared)} of the {len(contender.races)} contender races ({contender.label}) {verb} in the "
        f"baseline too ({ids}): the differences are understated."
    ]


def _compare_one(
    baseline: Side, contender: Side, *, show_processing_time: bool, percentiles: Sequence[float] | None
) -> ContenderComparison:
    base_names = _reported_task_names(baseline.races)
    cont_names = _reported_task_names(contender.races)
    common = [n for n in base_names if n in cont_names]
    rows = _cluster_rows(baseline, contender)
    warnings: list[str] = []
    for name in common:
        base_tasks = _task_results(baseline.races, name)
        cont_tasks = _task_results(contender.races, name)
        for role, side, found in (("baseline", baseline, base_tasks), ("contender", contender, cont_tasks)):
            if len(found) < len(side.races):
                warnings.append(
                    f"Task '{name}' is missing in {len(side.races) - len(found)} of the {len(side.races)} "
                    f"{role} races ({side.label}); its {role} values come from the other races."
                )
        base_stats = _side_task_stats(
            base_tasks, show_processing_time=show_processing_time, percentiles=percentiles
        )
        cont_stats = _side_task_stats(
            cont_tasks, show_processing_time=show_processing_time, percentiles=percentiles
        )
        keys = sorted(set(base_stats) | set(cont_stats), key=_row_order)
        for key in keys:
            metric, unit, higher = _row_meta(key, (base_tasks or cont_tasks)[0])
            rows.append(_make_row(key, metric, name, unit, higher, base_stats.get(key), cont_stats.get(key)))
    only_base = tuple(n for n in base_names if n not in cont_names)
    only_cont = tuple(n for n in cont_names if n not in base_names)
    if only_base:
        warnings.append(
            f"Tasks only in the baseline ({baseline.label}), not compared: {', '.join(only_base)}."
        )
    if only_cont:
        warnings.append(
            f"Tasks only in the contender ({contender.label}), not compared: {', '.join(only_cont)}."
        )
    base_tracks = sorted({r.track for r in baseline.races})
    cont_tracks = sorted({r.track for r in contender.races})
    if base_tracks != cont_tracks:
        warnings.append(
            f"The baseline ran track {', '.join(base_tracks)} but the contender ({contender.label}) ran "
            f"{', '.join(cont_tracks)}; tasks are matched by name."
        )
    else:
        base_ch = sorted({r.challenge for r in baseline.races})
        cont_ch = sorted({r.challenge for r in contender.races})
        if base_ch != cont_ch:
            warnings.append(
                f"The baseline ran challenge {', '.join(base_ch)} but the contender ({contender.label}) ran "
                f"{', '.join(cont_ch)}; tasks are matched by name."
            )
    warnings += _shared_race_warnings(baseline, contender)
    warnings += _side_warnings(contender, "contender")
    return ContenderComparison(
        contender=contender,
        rows=tuple(rows),
        tasks=tuple(common),
        only_in_baseline=only_base,
        only_in_contender=only_cont,
        warnings=tuple(warnings),
    )


def compare_races(
    baseline: Side,
    contenders: Sequence[Side],
    *,
    alpha: float = DEFAULT_ALPHA,
    show_processing_time: bool = False,
    percentiles: Sequence[float] | None = None,
) -> Comparison:
    """Compare ``baseline`` with each contender side (pure; see the module docstring for the rules).

    Args:
        baseline / contenders: sides of one or more races each; at least one contender.
        alpha: significance level of the Welch t-test (0 < alpha < 1).
        show_processing_time: add processing time percentile rows.
        percentiles: the timing percentiles to compare (OSB's ``compare --percentiles``, each kept
            when a race's sample count makes it distinct,
            :func:`esbench.reporting.percentiles.osb_percentiles_for_sample_size`); None: the
            percentiles the races stored (Rally's).

    Raises:
        ValueError: no contender or alpha outside (0, 1).
    """
    if not contenders:
        raise ValueError("at least one contender side is needed")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    return Comparison(
        baseline=baseline,
        contenders=tuple(
            _compare_one(baseline, c, show_processing_time=show_processing_time, percentiles=percentiles)
            for c in contenders
        ),
        alpha=alpha,
        warnings=tuple(_side_warnings(baseline, "baseline")),
    )


def all_warnings(comparison: Comparison) -> list[str]:
    """Baseline warnings, then each contender's (deduplicated, in order)."""
    seen: list[str] = []
    for w in (*comparison.warnings, *(w for c in comparison.contenders for w in c.warnings)):
        if w not in seen:
            seen.append(w)
    return seen


def format_value(value: float | None, unit: str) -> str:
    """A row value as reports and gate messages show it: ``""`` for None, 2 decimals for ``%`` and
    rates (``docs/s``, ``ops/s``; Rally's ``"%.2f"``), else 6 significant digits (ms, GB, min...)."""
    if value is None:
        return ""
    if unit == "%" or unit.endswith("/s"):
        return f"{value:.2f}"
    return f"{value:.6g}"
