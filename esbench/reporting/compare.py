"""Comparison of races: baseline vs one or more contenders, statistics, and the regression gate.

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

The regression gate (:func:`evaluate_gate`) applies rules (``--fail-on-regression=PCT`` and a
thresholds file, :func:`load_thresholds`) to the rows; see :class:`Threshold` for the rule format.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import tabulate
import yaml

from esbench.exceptions import ConfigError
from esbench.reporting.formats import check_format, csv_table, dump_json
from esbench.results import stats
from esbench.results.model import STATUS_COMPLETED, RaceResult, TaskResult

TABLES: tuple[str, ...] = ("rally", "seed")
HEADERS: tuple[str, ...] = ("Metric", "Task", "Baseline", "Contender", "Diff", "Unit", "Diff %")
STAT_HEADERS: tuple[str, ...] = ("Baseline RSD %", "Contender RSD %", "p-value", "Significant")
DEFAULT_ALPHA = 0.05
REGRESSION_EXIT_CODE = 3

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

# ------------------------------------------------------------------------------------------ model


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


def _decode(encoded: str) -> Any | None:
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

    merged = new_histogram()
    for t in tasks:
        enc = t.histograms.get(metric)
        h = _decode(enc) if enc else None
        if h is None:
            return None
        merged.add(h)
    if merged.get_total_count() == 0:
        return None
    return {label: merged.get_value_at_percentile(float(label)) / 1000.0 for label in labels}


def _mean_stat(values: Sequence[float | None]) -> Stat | None:
    present = tuple(float(v) for v in values if v is not None)
    if not present:
        return None
    return Stat(value=stats.mean(present), values=present, method="value" if len(present) == 1 else "mean")


def _side_task_stats(tasks: Sequence[TaskResult], *, show_processing_time: bool) -> dict[str, Stat]:
    """Aggregated stats of one task over the races of one side, keyed by row key."""
    out: dict[str, Stat] = {}
    for name, _ in _THROUGHPUT_FIELDS:
        st = _mean_stat([getattr(t, f"throughput_{name}") for t in tasks])
        if st is not None:
            out[f"throughput.{name}"] = st
    for key, _, attr in _TIMINGS:
        if key == "processing_time" and not show_processing_time:
            continue
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
    if tasks:
        pooled = (sum(t.error_count for t in tasks) / samples * 100.0) if samples else 0.0
        out["error_rate"] = Stat(
            value=pooled,
            values=tuple(t.error_rate * 100.0 for t in tasks),
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
    return 1 + [k for k, _, _ in _TIMINGS].index(family), percentile_sort_key(rest[1:])


def _reported_task_names(races: Sequence[RaceResult]) -> list[str]:
    names: list[str] = []
    for race in races:
        for t in race.tasks:
            if t.include_in_reporting and t.task not in names:
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


def _compare_one(baseline: Side, contender: Side, *, show_processing_time: bool) -> ContenderComparison:
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
        base_stats = _side_task_stats(base_tasks, show_processing_time=show_processing_time)
        cont_stats = _side_task_stats(cont_tasks, show_processing_time=show_processing_time)
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
) -> Comparison:
    """Compare ``baseline`` with each contender side (pure; see the module docstring for the rules).

    Args:
        baseline / contenders: sides of one or more races each; at least one contender.
        alpha: significance level of the Welch t-test (0 < alpha < 1).
        show_processing_time: add processing time percentile rows.

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
            _compare_one(baseline, c, show_processing_time=show_processing_time) for c in contenders
        ),
        alpha=alpha,
        warnings=tuple(_side_warnings(baseline, "baseline")),
    )


# ---------------------------------------------------------------------------------- thresholds

_METRIC_RE = re.compile(
    r"^(throughput\.(min|mean|median|max)"
    r"|(latency|service_time|processing_time)\.(p\d+(\.\d+)?|tail)"
    r"|error_rate|cluster\.[a-z0-9_]+)$"
)
# Names a glob must match at least one of, to catch typos such as ``latncy.*``.
_EXAMPLE_KEYS: tuple[str, ...] = (
    "throughput.min",
    "throughput.mean",
    "throughput.median",
    "throughput.max",
    *(f"{k}.p{p}" for k, _, _ in _TIMINGS for p in ("50", "90", "99", "99.9", "99.99", "100")),
    *(f"{k}.tail" for k, _, _ in _TIMINGS),
    "error_rate",
    "cluster.store_size",
)
_ENTRY_KEYS = ("task", "metric", "max-relative-change", "max-absolute-change", "ignore")


@dataclass(frozen=True, kw_only=True)
class Threshold:
    """One gate rule: how much a metric of a task may get *worse* before the gate fails.

    Attributes:
        task: task name or glob (``*``, ``query-*``); for cluster rows the task is ``""`` and only ``*``
            matches it.
        metric: row key or glob (:attr:`Row.key`: ``throughput.median``, ``latency.p99``,
            ``service_time.*``, ``error_rate``, ``cluster.store_size``...). ``latency.tail`` /
            ``service_time.tail`` / ``processing_time.tail`` mean the p99 row, or if a task has fewer
            than 100 samples the highest percentile shown below 100 (the maximum is a single request).
        max_relative_change: allowed worsening in percent of the baseline (a fall for throughput,
            a rise for times and error rate).
        max_absolute_change: allowed worsening in the row's unit (ms, docs/s, percentage points of
            error rate). When both limits are given a row fails only if it exceeds both.
        ignore: True exempts matching rows from every earlier rule.
        source: where the rule came from, for messages (``--fail-on-regression=10``, ``t.yml entry 2``).
    """

    task: str = "*"
    metric: str
    max_relative_change: float | None = None
    max_absolute_change: float | None = None
    ignore: bool = False
    source: str = ""

    def matches(self, row: Row, tail_keys: frozenset[str]) -> bool:
        """True if this rule applies to ``row`` (``tail_keys``: the row keys that are tails of its task)."""
        if not fnmatch.fnmatchcase(row.task, self.task):
            return False
        if self.metric.endswith(".tail"):
            family = row.key.partition(".")[0]
            return row.key in tail_keys and fnmatch.fnmatchcase(family, self.metric[: -len(".tail")])
        return fnmatch.fnmatchcase(row.key, self.metric)


def default_rules(pct: float) -> tuple[Threshold, ...]:
    """The rules of ``--fail-on-regression=PCT``: median throughput may fall and tail latency / service
    time may rise by at most ``pct`` %, error rate may not rise.

    Raises:
        ConfigError: negative ``pct``.
    """
    if pct < 0 or math.isnan(pct):
        raise ConfigError(f"--fail-on-regression needs a percentage >= 0, got {pct}.")
    src = f"--fail-on-regression={pct:g}"
    return (
        Threshold(task="*", metric="throughput.median", max_relative_change=pct, source=src),
        Threshold(task="*", metric="latency.tail", max_relative_change=pct, source=src),
        Threshold(task="*", metric="service_time.tail", max_relative_change=pct, source=src),
        Threshold(task="*", metric="error_rate", max_absolute_change=0.0, source=src),
    )


def _entry_error(path: Path, index: int, entry: Any, problem: str) -> ConfigError:
    where = f"entry {index}"
    if isinstance(entry, dict) and "task" in entry:
        where += f" (task {entry.get('task')!r}, metric {entry.get('metric')!r})"
    return ConfigError(
        f"Invalid thresholds file {path}, {where}: {problem} Each entry is a mapping with 'task' (name or "
        "glob, default '*'), 'metric' (e.g. throughput.median, latency.p99, latency.tail, error_rate), "
        "and 'max-relative-change' (%) and/or 'max-absolute-change' (metric unit), or 'ignore: true'. "
        "See docs/results.md."
    )


def _limit(path: Path, index: int, entry: dict[str, Any], key: str) -> float | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value) or value < 0:
        raise _entry_error(path, index, entry, f"'{key}' must be a number >= 0, got {value!r}.")
    return float(value)


def parse_thresholds(data: Any, *, path: Path) -> tuple[Threshold, ...]:
    """Validate parsed YAML ``data`` (a list of entries, or ``{"thresholds": [...]}``) into rules.

    Raises:
        ConfigError: naming the file, the 1-based entry number and what is wrong.
    """
    if isinstance(data, dict) and set(data) == {"thresholds"}:
        data = data["thresholds"]
    if data is None:
        data = []
    if not isinstance(data, list):
        raise ConfigError(
            f"Invalid thresholds file {path}: expected a list of entries (or a mapping with the single key "
            f"'thresholds' holding that list), got {type(data).__name__}. See docs/results.md."
        )
    rules = []
    for index, entry in enumerate(data, start=1):
        if not isinstance(entry, dict):
            raise _entry_error(path, index, entry, f"expected a mapping, got {entry!r}.")
        unknown = [k for k in entry if k not in _ENTRY_KEYS]
        if unknown:
            raise _entry_error(
                path,
                index,
                entry,
                f"unknown key(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(_ENTRY_KEYS)}.",
            )
        task = entry.get("task", "*")
        metric = entry.get("metric")
        if not isinstance(task, str) or not task:
            raise _entry_error(path, index, entry, f"'task' must be a non-empty string, got {task!r}.")
        if not isinstance(metric, str) or not metric:
            raise _entry_error(path, index, entry, "'metric' is missing.")
        is_glob = any(c in metric for c in "*?[")
        if is_glob and not any(fnmatch.fnmatchcase(k, metric) for k in _EXAMPLE_KEYS):
            raise _entry_error(path, index, entry, f"the metric pattern {metric!r} matches no metric.")
        if not is_glob and not _METRIC_RE.match(metric):
            raise _entry_error(path, index, entry, f"unknown metric {metric!r}.")
        ignore = entry.get("ignore", False)
        if not isinstance(ignore, bool):
            raise _entry_error(path, index, entry, f"'ignore' must be true or false, got {ignore!r}.")
        rel = _limit(path, index, entry, "max-relative-change")
        absolute = _limit(path, index, entry, "max-absolute-change")
        if not ignore and rel is None and absolute is None:
            raise _entry_error(
                path,
                index,
                entry,
                "give 'max-relative-change' and/or 'max-absolute-change' (or 'ignore: true').",
            )
        rules.append(
            Threshold(
                task=task,
                metric=metric,
                max_relative_change=rel,
                max_absolute_change=absolute,
                ignore=ignore,
                source=f"{path.name} entry {index}",
            )
        )
    return tuple(rules)


def load_thresholds(path: Path) -> tuple[Threshold, ...]:
    """Read and validate a YAML thresholds file (format: :class:`Threshold`, docs/results.md).

    Raises:
        ConfigError: unreadable file, invalid YAML (with line), or an invalid entry.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"Cannot read the thresholds file {path} given with --thresholds: {e}.", e) from e
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e)
        raise ConfigError(f"The thresholds file {path} is not valid YAML{line}: {problem}.", e) from e
    return parse_thresholds(data, path=Path(path))


# ---------------------------------------------------------------------------------- gate


@dataclass(frozen=True, kw_only=True)
class Violation:
    """A row that got worse than a rule allows (or a contender problem when ``row`` is None)."""

    contender: str
    message: str
    row: Row | None = None
    rule: Threshold | None = None


@dataclass(frozen=True, kw_only=True)
class GateResult:
    """Outcome of the regression gate.

    Attributes:
        violations: regressions that fail the gate.
        within_noise: rows beyond a limit whose difference is not significant (not counted).
        unused_rules: file rules that matched no row (likely a typo or a missing percentile).
    """

    violations: tuple[Violation, ...] = ()
    within_noise: tuple[Violation, ...] = ()
    unused_rules: tuple[Threshold, ...] = field(default_factory=tuple)

    @property
    def passed(self) -> bool:
        """True if there is no violation."""
        return not self.violations


def tail_keys(rows: Sequence[Row]) -> dict[str, frozenset[str]]:
    """Per task, the row keys meant by ``<timing>.tail``: p99, else the highest percentile shown on
    both sides below 100, else p100."""
    out: dict[str, set[str]] = {}
    for family, _, _ in _TIMINGS:
        by_task: dict[str, list[Row]] = {}
        for r in rows:
            if r.key.startswith(family + ".p") and r.baseline is not None and r.contender is not None:
                by_task.setdefault(r.task, []).append(r)
        for task, candidates in by_task.items():
            labels = {r.key[len(family) + 2 :]: r for r in candidates}
            if "99" in labels:
                chosen = "99"
            else:
                below = [lab for lab in labels if float(lab) < 100]
                chosen = max(below, key=float) if below else max(labels, key=float)
            out.setdefault(task, set()).add(f"{family}.p{chosen}")
    return {t: frozenset(v) for t, v in out.items()}


def _check(row: Row, rule: Threshold) -> str | None:
    """The violation text if ``row`` exceeds ``rule``, else None."""
    assert row.baseline is not None and row.contender is not None
    diff = row.diff or 0.0
    worse = -diff if row.higher_is_better else diff
    if worse <= 0:
        return None
    base = row.baseline.value
    rel = worse / abs(base) * 100.0 if base else math.inf
    exceeded = []
    if rule.max_relative_change is not None:
        if rel <= rule.max_relative_change:
            return None
        exceeded.append(f"{rule.max_relative_change:g} %")
    if rule.max_absolute_change is not None:
        if worse <= rule.max_absolute_change:
            return None
        exceeded.append(f"{rule.max_absolute_change:g} {row.unit}")
    verb = "fell" if row.higher_is_better else "rose"
    rel_text = f"{rel:.2f} %" if math.isfinite(rel) else "from 0"
    return (
        f"{row.task or 'cluster'}: {row.metric} {verb} {rel_text} ({_num(base, row.unit)} -> "
        f"{_num(row.contender.value, row.unit)} {row.unit}), more than the {' and '.join(exceeded)} "
        f"allowed by {rule.source}"
    )


def evaluate_gate(
    comparison: Comparison,
    *,
    fail_on_regression: float | None = None,
    thresholds: Sequence[Threshold] = (),
) -> GateResult:
    """Apply the gate rules to every contender of ``comparison``.

    Rules: :func:`default_rules` of ``fail_on_regression`` (if given), then ``thresholds``; for each
    row the *last* matching rule decides (so a file can refine or ``ignore`` the defaults). A row
    beyond its limit is a violation unless both sides have ≥ 2 races and Welch's test finds the
    difference not significant at ``comparison.alpha`` (then it is listed as within noise); a rise of
    the error rate always counts. A contender race that did not complete, or a task of the baseline
    missing from the contender, is a violation too.
    """
    rules = (*(default_rules(fail_on_regression) if fail_on_regression is not None else ()), *thresholds)
    if not rules:
        return GateResult()
    violations: list[Violation] = []
    noise: list[Violation] = []
    used: set[int] = set()
    for comp in comparison.contenders:
        label = comp.contender.label
        for race in comp.contender.races:
            if race.status != STATUS_COMPLETED:
                violations.append(
                    Violation(contender=label, message=f"contender race {race.race_id} {race.status}")
                )
        for name in comp.only_in_baseline:
            violations.append(Violation(contender=label, message=f"{name}: no result in the contender"))
        tails = tail_keys(comp.rows)
        for row in comp.rows:
            if row.baseline is None or row.contender is None:
                continue
            matching = [i for i, r in enumerate(rules) if r.matches(row, tails.get(row.task, frozenset()))]
            if not matching:
                continue
            used.update(matching)
            rule = rules[matching[-1]]
            if rule.ignore:
                continue
            text = _check(row, rule)
            if text is None:
                continue
            if row.key != "error_rate" and row.significant(comparison.alpha) is False:
                assert row.welch is not None
                noise.append(
                    Violation(
                        contender=label,
                        message=f"{text}; not significant (p={row.welch.p_value:.3g}), not counted",
                        row=row,
                        rule=rule,
                    )
                )
                continue
            violations.append(Violation(contender=label, message=text, row=row, rule=rule))
    n_default = len(rules) - len(thresholds)
    unused = tuple(r for i, r in enumerate(rules) if i >= n_default and i not in used)
    return GateResult(violations=tuple(violations), within_noise=tuple(noise), unused_rules=unused)


# ---------------------------------------------------------------------------------- rendering


def _num(v: float | None, unit: str) -> str:
    if v is None:
        return ""
    if unit == "%" or unit.endswith("/s"):
        return f"{v:.2f}"
    return f"{v:.6g}"


def _signed(v: float | None, unit: str) -> str:
    if v is None:
        return ""
    if unit == "%" or unit.endswith("/s"):
        return f"{v:+.2f}"
    return f"{v:+.6g}"


def _pct(v: float | None) -> str:
    return "" if v is None else f"{v:+.2f}%"


def _diff_pct_cell(row: Row) -> str:
    if row.diff is None:
        return ""
    return _pct(row.diff_pct) or "n/a"  # n/a: a zero baseline has no relative change


def _style(text: str, improvement: bool | None, color: bool) -> str:
    if not color or improvement is None or not text:
        return text
    return click.style(text, fg="green" if improvement else "red")


def _stat_cells(row: Row, alpha: float) -> list[str]:
    def rsd(s: Stat | None) -> str:
        r = s.rsd if s is not None else None
        return "" if r is None else f"{r:.2f}"

    if row.welch is None:
        return [rsd(row.baseline), rsd(row.contender), "", ""]
    return [
        rsd(row.baseline),
        rsd(row.contender),
        f"{row.welch.p_value:.3g}",
        "yes" if row.welch.significant(alpha) else "no",
    ]


def rally_rows(comparison: Comparison, comp: ContenderComparison, *, color: bool = False) -> list[list[str]]:
    """The rows of one contender block: Rally's 7 columns (+ the 4 statistics columns if any)."""
    out = []
    for row in comp.rows:
        better = row.improvement(comparison.alpha)
        cells = [
            row.metric,
            row.task,
            _num(row.baseline.value if row.baseline else None, row.unit),
            _num(row.contender.value if row.contender else None, row.unit),
            _style(_signed(row.diff, row.unit), better, color),
            row.unit,
            _style(_diff_pct_cell(row), better, color),
        ]
        if comparison.has_statistics:
            cells += _stat_cells(row, comparison.alpha)
        out.append(cells)
    return out


def _headers(comparison: Comparison) -> list[str]:
    return [*HEADERS, *(STAT_HEADERS if comparison.has_statistics else ())]


def _pipe(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    # Numbers are pre-formatted strings; numparse stays off so signs ("+1.20") and colours survive.
    return tabulate.tabulate(
        [list(r) for r in rows],
        headers=list(headers),
        tablefmt="pipe",
        stralign="right",
        disable_numparse=True,
    )


def _side_description(side: Side) -> str:
    races = side.races
    tracks = ", ".join(sorted({r.track for r in races}))
    ids = ", ".join(r.race_id[:8] for r in races[:6]) + (", ..." if len(races) > 6 else "")
    n = f"{len(races)} race{'s' if len(races) != 1 else ''}"
    return f"{side.label} ({n} of track {tracks}: {ids})"


SEED_HEADERS: tuple[str, ...] = (
    "Task",
    "Setup",
    "Races",
    "Min Throughput",
    "Median Throughput",
    "Max Throughput",
    "Unit",
    "P90 latency (ms)",
    "P99 latency (ms)",
    "Median Throughput Diff %",
    "P99 latency Diff %",
)


def seed_rows(comparison: Comparison, *, color: bool = False) -> list[list[str]]:
    """The compact side-by-side table (``--table=seed``): per task, one row per setup (baseline first),
    with Min/Median/Max throughput, P90/P99 latency and the contender's change of median throughput
    and P99 latency against the baseline."""
    tasks: list[str] = []
    for comp in comparison.contenders:
        tasks += [t for t in comp.tasks if t not in tasks]
    out: list[list[str]] = []
    for task in tasks:
        base_done = False
        for comp in comparison.contenders:
            rows = {r.key: r for r in comp.rows if r.task == task and not r.key.startswith("cluster.")}
            if not rows:
                continue
            unit = rows["throughput.median"].unit if "throughput.median" in rows else ""

            def cell(key: str, side: str, rows: dict[str, Row] = rows) -> str:
                r = rows.get(key)
                s = getattr(r, side) if r is not None else None
                return _num(s.value if s else None, r.unit if r else "")

            def change(key: str, rows: dict[str, Row] = rows) -> str:
                r = rows.get(key)
                if r is None or r.diff is None:
                    return ""
                return _style(_diff_pct_cell(r), r.improvement(comparison.alpha), color)

            if not base_done:
                out.append(
                    [
                        task,
                        comparison.baseline.label + " (baseline)",
                        str(len(comparison.baseline.races)),
                        *(cell(f"throughput.{k}", "baseline") for k in ("min", "median", "max")),
                        unit,
                        cell("latency.p90", "baseline"),
                        cell("latency.p99", "baseline"),
                        "",
                        "",
                    ]
                )
                base_done = True
            out.append(
                [
                    task,
                    comp.contender.label,
                    str(len(comp.contender.races)),
                    *(cell(f"throughput.{k}", "contender") for k in ("min", "median", "max")),
                    unit,
                    cell("latency.p90", "contender"),
                    cell("latency.p99", "contender"),
                    change("throughput.median"),
                    change("latency.p99"),
                ]
            )
    return out


def gate_lines(gate: GateResult) -> list[str]:
    """The gate verdict as lines: passed/FAILED, each violation, rows within the noise, unused rules."""
    lines = []
    if gate.passed:
        lines.append("Regression gate: passed.")
    else:
        n = len(gate.violations)
        lines.append(f"Regression gate: FAILED ({n} violation{'s' if n != 1 else ''}):")
        lines += [f"  - [{v.contender}] {v.message}" for v in gate.violations]
    if gate.within_noise:
        lines.append("Beyond a limit but within the noise (not counted):")
        lines += [f"  - [{v.contender}] {v.message}" for v in gate.within_noise]
    for rule in gate.unused_rules:
        lines.append(
            f"Note: threshold {rule.source} (task {rule.task!r}, metric {rule.metric!r}) matched no row."
        )
    return lines


def gate_json(gate: GateResult) -> dict[str, Any]:
    """The gate outcome as JSON-ready data."""

    def v(x: Violation) -> dict[str, Any]:
        return {
            "contender": x.contender,
            "message": x.message,
            "task": x.row.task if x.row else None,
            "metric": x.row.key if x.row else None,
            "rule": x.rule.source if x.rule else None,
        }

    return {
        "passed": gate.passed,
        "violations": [v(x) for x in gate.violations],
        "within_noise": [v(x) for x in gate.within_noise],
        "unused_rules": [r.source for r in gate.unused_rules],
    }


def _stat_json(s: Stat | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {"value": s.value, "values": list(s.values), "rsd_pct": s.rsd, "method": s.method}


def comparison_json(comparison: Comparison, gate: GateResult | None = None) -> dict[str, Any]:
    """The whole comparison as JSON-ready data (rows with per-race values, p-values, warnings, gate)."""

    def side(s: Side) -> dict[str, Any]:
        return {
            "label": s.label,
            "races": [
                {"race_id": r.race_id, "timestamp": r.timestamp, "track": r.track, "status": r.status}
                for r in s.races
            ],
        }

    def row(r: Row) -> dict[str, Any]:
        return {
            "metric": r.metric,
            "key": r.key,
            "task": r.task,
            "unit": r.unit,
            "baseline": _stat_json(r.baseline),
            "contender": _stat_json(r.contender),
            "diff": r.diff,
            "diff_pct": r.diff_pct,
            "higher_is_better": r.higher_is_better,
            "p_value": r.welch.p_value if r.welch else None,
            "significant": r.significant(comparison.alpha),
            "improvement": r.improvement(comparison.alpha),
        }

    out: dict[str, Any] = {
        "baseline": side(comparison.baseline),
        "alpha": comparison.alpha,
        "contenders": [
            {
                **side(c.contender),
                "rows": [row(r) for r in c.rows],
                "only_in_baseline": list(c.only_in_baseline),
                "only_in_contender": list(c.only_in_contender),
                "warnings": list(c.warnings),
            }
            for c in comparison.contenders
        ],
        "warnings": all_warnings(comparison),
    }
    if gate is not None:
        out["gate"] = gate_json(gate)
    return out


def all_warnings(comparison: Comparison) -> list[str]:
    """Baseline warnings, then each contender's (deduplicated, in order)."""
    seen: list[str] = []
    for w in (*comparison.warnings, *(w for c in comparison.contenders for w in c.warnings)):
        if w not in seen:
            seen.append(w)
    return seen


def render_comparison(
    comparison: Comparison,
    *,
    fmt: str = "text",
    table: str = "rally",
    color: bool = False,
    gate: GateResult | None = None,
) -> str:
    """Render ``comparison`` (and the gate outcome, if given) as text.

    Args:
        fmt: ``text`` (side descriptions, one pipe table per contender, ``[WARNING]`` lines, gate),
            ``markdown`` (headings, pipe tables, lists), ``csv`` (one table; a ``Contender race(s)``
            column is added when there are several contenders; warnings and gate are not included)
            or ``json`` (:func:`comparison_json`; ``table`` is ignored).
        table: ``rally`` (Rally's compare columns) or ``seed`` (compact: :func:`seed_rows`).
        color: colour Diff and Diff % green/red by improvement (text only; use on a TTY).

    Raises:
        ConfigError: unknown ``fmt`` or ``table``.
    """
    check_format(fmt)
    if table not in TABLES:
        raise ConfigError(f"Unknown table {table!r} given with --table. Use one of: {', '.join(TABLES)}.")
    if fmt == "json":
        return dump_json(comparison_json(comparison, gate))
    color = color and fmt == "text"
    several = len(comparison.contenders) > 1
    if table == "seed":
        headers, blocks = list(SEED_HEADERS), [("", seed_rows(comparison, color=color))]
    else:
        headers = _headers(comparison)
        blocks = [
            (
                f"Contender {i} of {len(comparison.contenders)}: {_side_description(c.contender)}"
                if several
                else f"Contender: {_side_description(c.contender)}",
                rally_rows(comparison, c, color=color),
            )
            for i, c in enumerate(comparison.contenders, start=1)
        ]
    if fmt == "csv":
        if table == "rally" and several:
            rows = [[*r, c.contender.label] for c in comparison.contenders for r in rally_rows(comparison, c)]
            return csv_table([*headers, "Contender race(s)"], rows)
        return csv_table(headers, [r for _, rows in blocks for r in rows])
    warnings = all_warnings(comparison)
    verdict = gate_lines(gate) if gate is not None else []
    baseline_line = f"Baseline: {_side_description(comparison.baseline)}"
    if fmt == "markdown":
        parts = [f"**{baseline_line}**"]
        if table == "seed":
            parts += [f"**Contender: {_side_description(c.contender)}**" for c in comparison.contenders]
        for title, rows in blocks:
            if title:
                parts.append(f"### {title}")
            parts.append(_pipe(headers, rows))
        if comparison.has_statistics:
            parts.append(_stats_note(comparison, table))
        if warnings:
            parts.append("**Warnings**\n\n" + "\n".join(f"- {w}" for w in warnings))
        if verdict:
            parts.append("**" + verdict[0] + "**" + ("\n\n" + "\n".join(verdict[1:]) if verdict[1:] else ""))
        return "\n\n".join(parts) + "\n"
    parts = [baseline_line]
    if table == "seed":
        parts += [f"Contender: {_side_description(c.contender)}" for c in comparison.contenders]
    for title, rows in blocks:
        parts.append((title + "\n\n" if title else "") + _pipe(headers, rows))
    if comparison.has_statistics:
        parts.append(_stats_note(comparison, table))
    if warnings:
        parts.append("\n".join(f"[WARNING] {w}" for w in warnings))
    if verdict:
        parts.append("\n".join(verdict))
    return "\n\n".join(parts) + "\n"


def _stats_note(comparison: Comparison, table: str) -> str:
    note = (
        "Several races per side: throughput = mean of the races' values, percentiles = recomputed from "
        "the merged HDR histograms, error rate = pooled"
    )
    if table == "seed":
        return note + "; use --table=rally for the relative standard deviations and significance tests."
    return note + (
        "; RSD = relative standard deviation of the per-race values; Significant = Welch's t-test on the "
        f"per-race values, p < {comparison.alpha:g}."
    )
