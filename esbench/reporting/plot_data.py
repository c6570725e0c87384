"""The data behind the HTML and PNG reports' charts, built from stored races (no plotting library here).

Every chart is made of :class:`Line` objects: x and y values plus the *side* they belong to (a race
report has one side; a comparison has the baseline as side 0 and the contenders after it), so the
figure builders (:mod:`esbench.reporting.html_figures`) can overlay the sides.

Time axis (docs/reporting.md): seconds since the race's *time zero*, the earliest of its tasks'
``start_epoch`` and its telemetry timestamps (the race timestamp when it has neither), so the
throughput, latency and telemetry charts of one race share one axis and the sides of a comparison
line up at their starts. A 1-second window ``i`` of a task is drawn at its midpoint,
``start_epoch + i + 0.5``. A race stored before ``start_epoch`` existed has no wall-clock time for its
windows: its tasks are drawn against seconds since each task's measurement start
(:attr:`TaskSeries.aligned` is False) and the report says so.

Latency spectrum (HdrHistogram's percentile distribution plot, Gil Tene's ``HdrHistogram``
``outputPercentileDistribution``): x = ``1 / (1 - p/100)`` on a log axis (so 90 %, 99 %, 99.9 % are
evenly spaced), y = the value at percentile ``p`` in ms, computed from the task's stored HdrHistogram
with the same rule as the summary table (:func:`esbench.metrics.stats.percentile_values`, Rally's
interpolated ranks), 10 points per decade of x up to the number of samples, plus the maximum.

Every value is rounded as the page shows it (:func:`esbench.reporting.numbers.shown`; x on time charts
to 0.01 s), so the page carries no digits nobody reads.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from esbench.records import RaceResult, TaskResult
from esbench.reporting.numbers import shown

#: Percentile labels of the per-second latency / service time series, in drawing order.
WINDOW_PERCENTILES: tuple[str, ...] = ("50", "90", "99", "100")

#: Points per decade of ``1 / (1 - p)`` on the latency spectrum.
SPECTRUM_POINTS_PER_DECADE = 10


@dataclass(frozen=True, kw_only=True)
class Line:
    """One drawn line.

    Attributes:
        name: legend text.
        x / y: equal-length values (x in s on time charts, ``1/(1-p)`` on spectra; y in the unit;
            None in y for a window without a value, drawn as a gap).
        side: 0 for the baseline (or the only race), 1.. for contenders.
        style: what the line shows within its chart (``"50"``..``"100"`` for percentiles,
            ``"latency"``/``"service_time"`` on spectra, ``""`` otherwise); figures map it to a dash.
        hover: optional text per point (same length as x) shown on hover.
        source: the race's legend label (:meth:`SideRaces.race_label`), ``""`` when not from one race.
    """

    name: str
    x: tuple[float, ...]
    y: tuple[float | None, ...]
    side: int = 0
    style: str = ""
    hover: tuple[str, ...] = ()
    source: str = ""

    def __post_init__(self) -> None:
        if len(self.x) != len(self.y):
            raise ValueError(f"line {self.name!r}: {len(self.x)} x values but {len(self.y)} y values")


@dataclass(frozen=True, kw_only=True)
class SideRaces:
    """A labelled group of races drawn in one colour (a race report: one side of one race)."""

    label: str
    races: tuple[RaceResult, ...]

    def race_label(self, index: int) -> str:
        """Legend label of the race at ``index``: the side label, plus ``#n`` when it has several races."""
        return self.label if len(self.races) == 1 else f"{self.label} #{index + 1}"


def race_sides(race: RaceResult) -> list[SideRaces]:
    """The one side of a race report, labelled with the race id's first 8 characters."""
    return [SideRaces(label=race.race_id[:8], races=(race,))]


@dataclass(frozen=True, kw_only=True)
class TaskSeries:
    """Everything drawn for one task.

    Attributes:
        task: task name.
        throughput_unit: unit of the throughput lines (of the first side that ran the task).
        throughput / latency / service_time: lines over time (s).
        latency_spectrum / service_time_spectrum: spectrum lines (x = ``1/(1-p)``, y in ms).
        aligned: True when every window line is on the race time axis (all races had ``start_epoch``).
    """

    task: str
    throughput_unit: str
    throughput: tuple[Line, ...] = ()
    latency: tuple[Line, ...] = ()
    service_time: tuple[Line, ...] = ()
    latency_spectrum: tuple[Line, ...] = ()
    service_time_spectrum: tuple[Line, ...] = ()
    aligned: bool = True


@dataclass(frozen=True, kw_only=True)
class Panel:
    """One telemetry panel (:mod:`esbench.reporting.plot_telemetry`): a title, the unit its values are
    drawn in (``"MiB"``, ``"%"``, ``"per s"``), its lines (x in s)."""

    title: str
    unit: str
    lines: tuple[Line, ...] = field(default_factory=tuple)


def _iso_epoch(timestamp: str) -> float | None:
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def time_zero(race: RaceResult) -> float | None:
    """Epoch seconds of ``x = 0`` for ``race``: its earliest task ``start_epoch`` or telemetry sample,
    else its ``timestamp``; None when it has none of them (an unparsable timestamp)."""
    starts = [t.start_epoch for t in race.tasks if t.start_epoch is not None and t.throughput_windows]
    starts += [s.timestamps[0] for s in race.telemetry if s.timestamps]
    return min(starts) if starts else _iso_epoch(race.timestamp)


def window_x(task: TaskResult, zero: float | None, count: int) -> tuple[tuple[float, ...], bool]:
    """x values (s) of ``count`` per-second windows of ``task``: midpoints on the race axis when the
    task has ``start_epoch`` (second item True), else seconds since the task's measurement start."""
    if task.start_epoch is not None and zero is not None:
        offset, aligned = task.start_epoch - zero, True
    else:
        offset, aligned = 0.0, False
    return tuple(round(offset + i + 0.5, 2) for i in range(count)), aligned


def reported_task_names(sides: Sequence[SideRaces]) -> list[str]:
    """Names of the tasks shown in reports (``TaskResult.reported``) over all sides, first-seen order."""
    names: list[str] = []
    for side in sides:
        for race in side.races:
            for t in race.tasks:
                if t.reported and t.task not in names:
                    names.append(t.task)
    return names


def _percentile_points(count: int) -> list[tuple[float, float]]:
    """(x, percentile) pairs of a spectrum of ``count`` samples: x = 10^(k/10) below ``count``, then
    the maximum (percentile 100) at x = ``count``."""
    points = []
    k = 0
    while True:
        x = 10.0 ** (k / SPECTRUM_POINTS_PER_DECADE)
        if x >= count:
            break
        points.append((x, 100.0 * (1.0 - 1.0 / x)))
        k += 1
    points.append((float(max(count, 1)), 100.0))
    return points


def spectrum_from_histogram(encoded: str) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
    """The latency spectrum of one base64 HdrHistogram of microseconds.

    Returns:
        ``(x, values_ms, percentiles)``: x = ``1/(1-p/100)`` (the maximum at x = sample count),
        values in ms, percentiles in [0, 100]; three empty tuples for an empty histogram.

    Raises:
        ValueError: ``encoded`` is not a valid HdrHistogram encoding.
    """
    from esbench.metrics.recorder import decode_histogram
    from esbench.metrics.stats import percentile_values

    hist = decode_histogram(encoded)
    count = hist.get_total_count()
    if count == 0:
        return (), (), ()
    points = _percentile_points(count)
    values = percentile_values(hist, [p for _, p in points])
    return (
        tuple(shown(x) for x, _ in points),
        tuple(shown(v / 1000.0) for v in values),
        tuple(p for _, p in points),
    )


def _pct_text(p: float) -> str:
    return "max" if p >= 100.0 else f"p{p:.6g}"


def _task_lines(sides: Sequence[SideRaces], name: str) -> tuple[dict[str, list[Line]], bool, str]:
    out: dict[str, list[Line]] = {
        k: [] for k in ("throughput", "latency", "service_time", "latency_spectrum", "service_time_spectrum")
    }
    aligned, unit = True, ""
    several = len(sides) > 1 or any(len(side.races) > 1 for side in sides)
    for s, side in enumerate(sides):
        for r, race in enumerate(side.races):
            task = race.task(name)
            if task is None:
                continue
            unit = unit or task.throughput_unit
            label = side.race_label(r)
            # With one race the legend needs no race label: "p99" rather than "5f3c2a1e p99".
            prefix = f"{label} " if several else ""
            zero = time_zero(race)
            if task.throughput_windows:
                x, ok = window_x(task, zero, len(task.throughput_windows))
                aligned = aligned and ok
                out["throughput"].append(
                    Line(
                        name=label if several else "throughput",
                        x=x,
                        y=tuple(shown(v) for v in task.throughput_windows),
                        side=s,
                        source=label,
                    )
                )
            for key, series in (
                ("latency", task.latency_windows_ms),
                ("service_time", task.service_time_windows_ms),
            ):
                for p in WINDOW_PERCENTILES:
                    values = series.get(p, ())
                    if not values:
                        continue
                    x, ok = window_x(task, zero, len(values))
                    aligned = aligned and ok
                    out[key].append(
                        Line(
                            name=f"{prefix}p{p}",
                            x=x,
                            y=tuple(None if v is None else shown(v) for v in values),
                            side=s,
                            style=p,
                            source=label,
                        )
                    )
            for key in ("latency", "service_time"):
                encoded = task.histograms.get(key)
                if not encoded:
                    continue
                try:
                    x, y, pcts = spectrum_from_histogram(encoded)
                except ValueError:
                    continue  # a damaged histogram: the table still has the stored percentiles
                if x:
                    pretty = key.replace("_", " ")
                    out[f"{key}_spectrum"].append(
                        Line(
                            name=f"{prefix}{pretty}",
                            x=x,
                            y=y,
                            side=s,
                            style=key,
                            hover=tuple(_pct_text(p) for p in pcts),
                            source=label,
                        )
                    )
    return out, aligned, unit


def task_series(sides: Sequence[SideRaces], name: str) -> TaskSeries:
    """All lines of task ``name`` over every race of every side (races without the task are skipped)."""
    lines, aligned, unit = _task_lines(sides, name)
    return TaskSeries(
        task=name,
        throughput_unit=unit or "ops/s",
        throughput=tuple(lines["throughput"]),
        latency=tuple(lines["latency"]),
        service_time=tuple(lines["service_time"]),
        latency_spectrum=tuple(lines["latency_spectrum"]),
        service_time_spectrum=tuple(lines["service_time_spectrum"]),
        aligned=aligned,
    )


def task_spans(race: RaceResult) -> list[tuple[str, float, float]]:
    """(task, start s, end s) of each reported task of ``race`` with ``start_epoch`` and windows, on the
    race time axis; used to mark where each task ran on the telemetry panels."""
    zero = time_zero(race)
    if zero is None:
        return []
    return [
        (t.task, t.start_epoch - zero, t.start_epoch - zero + len(t.throughput_windows))
        for t in race.tasks
        if t.reported and t.start_epoch is not None and t.throughput_windows
    ]


def time_range(series: Sequence[TaskSeries], panels: Sequence[Panel]) -> tuple[float, float] | None:
    """The common x range (s) of every aligned time chart: from 0 to the last window or sample end."""
    ends = [max(line.x) + 0.5 for ts in series if ts.aligned for line in ts.throughput if line.x]
    ends += [max(line.x) for p in panels for line in p.lines if line.x]
    if not ends:
        return None
    return 0.0, math.ceil(max(ends))
