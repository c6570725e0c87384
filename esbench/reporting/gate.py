"""The CI regression gate: rules (``--fail-on-regression=PCT`` and a thresholds file) applied to the
rows of a :class:`~esbench.reporting.compare.Comparison`.

See :class:`Threshold` for the rule format, :func:`load_thresholds` for the YAML file and
:func:`evaluate_gate` for how rules are chosen per row (docs/results.md, "CI regression gate").
``esbench compare`` exits with :data:`REGRESSION_EXIT_CODE` when the gate finds a regression, and
with :data:`MISSING_EXIT_CODE` when it cannot judge because something measured in the baseline was
not measured in the contender (or a side's race did not complete), unless ``--allow-missing``.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from esbench.exceptions import ConfigError
from esbench.records import STATUS_COMPLETED
from esbench.reporting.compare import TIMING_KEYS, Comparison, Row, Side, format_value

REGRESSION_EXIT_CODE = 3
#: Exit status of a gate that could not judge: a gated metric of the baseline is missing or empty in the
#: contender, a task of the baseline has no result in it, or a side's race did not complete. Distinct from
#: a regression so that a CI job can tell "slower" from "not measured".
MISSING_EXIT_CODE = 4

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
    *(f"{k}.p{p}" for k in TIMING_KEYS for p in ("50", "90", "99", "99.9", "99.99", "100")),
    *(f"{k}.tail" for k in TIMING_KEYS),
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
        missing: what the gate could not judge (a gated metric measured in the baseline but missing or
            empty in the contender, a task without result, a race that did not complete, nothing
            measured on both sides); fails the gate unless ``allow_missing``.
        allow_missing: ``--allow-missing``: ``missing`` is reported but does not fail the gate.
        within_noise: rows beyond a limit whose difference is not significant (not counted).
        unused_rules: file rules that matched no row (likely a typo or a missing percentile).
    """

    violations: tuple[Violation, ...] = ()
    missing: tuple[Violation, ...] = ()
    allow_missing: bool = False
    within_noise: tuple[Violation, ...] = ()
    unused_rules: tuple[Threshold, ...] = field(default_factory=tuple)

    @property
    def passed(self) -> bool:
        """True if there is no violation and nothing missing (or missing measurements are allowed)."""
        return not self.violations and (self.allow_missing or not self.missing)

    @property
    def exit_code(self) -> int:
        """0 when passed, :data:`REGRESSION_EXIT_CODE` for a regression (also when something is missing
        too: what was measured got worse), else :data:`MISSING_EXIT_CODE`."""
        if self.violations:
            return REGRESSION_EXIT_CODE
        return 0 if self.passed else MISSING_EXIT_CODE


def tail_keys(rows: Sequence[Row], *, baseline_only: bool = False) -> dict[str, frozenset[str]]:
    """Per task, the row keys meant by ``<timing>.tail``: p99, else the highest percentile shown on
    both sides (with ``baseline_only``: in the baseline) below 100, else p100."""
    out: dict[str, set[str]] = {}
    for family in TIMING_KEYS:
        by_task: dict[str, list[Row]] = {}
        for r in rows:
            both = r.contender is not None or baseline_only
            if r.key.startswith(family + ".p") and r.baseline is not None and both:
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
        f"{row.task or 'cluster'}: {row.metric} {verb} {rel_text} ({format_value(base, row.unit)} -> "
        f"{format_value(row.contender.value, row.unit)} {row.unit}), more than the {' and '.join(exceeded)} "
        f"allowed by {rule.source}"
    )


def evaluate_gate(
    comparison: Comparison,
    *,
    fail_on_regression: float | None = None,
    thresholds: Sequence[Threshold] = (),
    allow_missing: bool = False,
) -> GateResult:
    """Apply the gate rules to every contender of ``comparison``.

    Rules: :func:`default_rules` of ``fail_on_regression`` (if given), then ``thresholds``; for each
    row the *last* matching rule decides (so a file can refine or ``ignore`` the defaults). A row
    beyond its limit is a violation unless both sides have ≥ 2 races and Welch's test finds the
    difference not significant at ``comparison.alpha`` (then it is listed as within noise); a rise of
    the error rate always counts.

    Only what was measured on both sides is judged. What cannot be judged goes to
    :attr:`GateResult.missing` (failing the gate with :data:`MISSING_EXIT_CODE` unless
    ``allow_missing``): a race of either side that did not complete, a task of the baseline without
    result in the contender, a row a rule gates that has a baseline value but none in the contender
    (e.g. a bulk task that ended inside its warmup has no throughput and no latency), and a contender
    of which no gated row was measured on both sides.
    """
    rules = (*(default_rules(fail_on_regression) if fail_on_regression is not None else ()), *thresholds)
    if not rules:
        return GateResult()
    violations: list[Violation] = []
    missing: list[Violation] = []
    noise: list[Violation] = []
    used: set[int] = set()
    for comp in comparison.contenders:
        label = comp.contender.label
        missing.extend(_incomplete_races(comparison.baseline, comp.contender))
        for name in comp.only_in_baseline:
            missing.append(Violation(contender=label, message=f"{name}: no result in the contender"))
        tails = tail_keys(comp.rows)
        base_tails = tail_keys(comp.rows, baseline_only=True)
        judged = 0
        for row in comp.rows:
            if row.baseline is None:
                continue
            if row.contender is None:
                gap = _missing_in_contender(row, rules, tails, base_tails, label, used)
                if gap is not None:
                    missing.append(gap)
                continue
            matching = [i for i, r in enumerate(rules) if r.matches(row, tails.get(row.task, frozenset()))]
            if not matching:
                continue
            used.update(matching)
            rule = rules[matching[-1]]
            if rule.ignore:
                continue
            judged += 1
            verdict = _verdict(row, rule, comparison.alpha, label)
            if verdict is not None:
                violation, counted = verdict
                (violations if counted else noise).append(violation)
        if not judged:
            missing.append(
                Violation(
                    contender=label,
                    message="no gated metric was measured on both sides: there is nothing to judge",
                )
            )
    n_default = len(rules) - len(thresholds)
    unused = tuple(r for i, r in enumerate(rules) if i >= n_default and i not in used)
    return GateResult(
        violations=tuple(violations),
        missing=tuple(missing),
        allow_missing=allow_missing,
        within_noise=tuple(noise),
        unused_rules=unused,
    )


def _incomplete_races(baseline: Side, contender: Side) -> list[Violation]:
    """A missing measurement per race of either side that did not complete (labelled with the
    contender it is compared in)."""
    out = []
    for role, side in (("baseline", baseline), ("contender", contender)):
        for race in side.races:
            if race.status != STATUS_COMPLETED:
                reason = f" ({race.error})" if race.error else ""
                out.append(
                    Violation(
                        contender=contender.label,
                        message=f"{role} race {race.race_id} {race.status}{reason}: it did not "
                        "measure everything, so the gate cannot judge it",
                    )
                )
    return out


def _missing_in_contender(
    row: Row,
    rules: Sequence[Threshold],
    tails: dict[str, frozenset[str]],
    base_tails: dict[str, frozenset[str]],
    label: str,
    used: set[int],
) -> Violation | None:
    """The missing measurement of a row with a baseline value and none in the contender, if a rule
    gates it (the rules that match go into ``used``), else None."""
    assert row.baseline is not None
    # A tail measured on both sides (p90 when the contender had too few samples for p99)
    # is judged there; only a timing family without any shared percentile is missing.
    covered = {k.partition(".")[0] for k in tails.get(row.task, frozenset())}
    only_base = frozenset(
        k for k in base_tails.get(row.task, frozenset()) if k.partition(".")[0] not in covered
    )
    rule_ids = [i for i, r in enumerate(rules) if r.matches(row, only_base)]
    if not rule_ids or rules[rule_ids[-1]].ignore:
        return None
    used.update(rule_ids)
    return Violation(
        contender=label,
        message=f"{row.task or 'cluster'}: {row.metric} was measured in the baseline "
        f"({format_value(row.baseline.value, row.unit)} {row.unit}) but is missing in "
        "the contender (no measurement samples: did the task end inside its warmup "
        "or fail?)",
        row=row,
        rule=rules[rule_ids[-1]],
    )


def _verdict(row: Row, rule: Threshold, alpha: float, label: str) -> tuple[Violation, bool] | None:
    """``(violation, counted)`` for a row measured on both sides that exceeds ``rule``; not
    counted (within noise) when Welch's test finds the difference not significant at ``alpha``
    (never for the error rate). None within the limit."""
    text = _check(row, rule)
    if text is None:
        return None
    if row.key != "error_rate" and row.significant(alpha) is False:
        assert row.welch is not None
        message = f"{text}; not significant (p={row.welch.p_value:.3g}), not counted"
        return Violation(contender=label, message=message, row=row, rule=rule), False
    return Violation(contender=label, message=text, row=row, rule=rule), True
