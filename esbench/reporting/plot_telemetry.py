"""The telemetry panels of the HTML report: which stored series are drawn, under which human name, in
which unit (no plotting library here; :mod:`esbench.reporting.html_figures` draws them).

A series goes to the first panel of :data:`TELEMETRY_PANELS` with a matching pattern (fnmatch on
the lower-cased metric name); series matching none are not drawn (they stay in the results store).
Elasticsearch's cumulative counters (:func:`esbench.records.rates.is_cumulative`: rejections, GC
time, disk kilobytes) are drawn as their increase per second. A rejection counter that never
increased says nothing and is left out; the page counts them in a note. One panel per (title, unit):
values are scaled to the unit people read (:func:`esbench.reporting.numbers.display_unit`: bytes
in KiB/MiB/GiB, KiB merged with bytes) and rounded as shown. docs/reporting.md lists the panels.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass

from esbench.records import TelemetrySeries, is_cumulative, rate
from esbench.reporting.numbers import base_unit, display_unit, shown
from esbench.reporting.plot_data import Line, Panel, SideRaces, time_zero

#: Telemetry panels: (title, fnmatch patterns on the lower-cased metric name), in page order.
TELEMETRY_PANELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Rejections", ("thread_pool.*.rejected", "*rejections*", "*rejected*")),
    ("GC", ("jvm.gc.collectors.*.collection_time*", "*gc_time*")),
    ("Heap", ("jvm.mem.heap_*", "heap_used*", "*.heap_used*")),
    ("CPU", ("*cpu.percent", "*cpu_percent")),
    ("Disk IO", ("fs.io_stats.total.*_kilobytes", "*disk.*bytes*", "*disk*iops*", "*io_stats*bytes*")),
    (
        "Page cache and memory",
        ("*page_cache*", "*cached*", "*memory.available*", "*memory.free*", "*mem.free*", "*rss*"),
    ),
)

# Human names of metric path parts, applied in order (docs/reporting.md shows examples).
_PREFIXES: tuple[tuple[str, str], ...] = (
    ("thread_pool.", ""),
    ("jvm.gc.collectors.", ""),
    ("jvm.mem.", ""),
    ("fs.io_stats.total.", "node "),
    ("indexing_pressure.memory.total.", "indexing pressure "),
    ("system.memory.", "machine "),
    ("system.", "machine "),
    ("os.", "node OS "),
    ("process.", "process "),
)
_SUFFIXES: tuple[tuple[str, str], ...] = (
    (".rejected", " pool"),
    (".collection_time_in_millis", " GC time"),
    (".collection_time", " GC time"),
    ("_in_bytes", ""),
    ("_bytes_per_s", ""),
    ("_kilobytes", ""),
    ("_in_millis", ""),
    ("_percent", ""),
    (".percent", ""),
)


@dataclass(frozen=True, kw_only=True)
class TelemetryView:
    """What the telemetry section draws.

    Attributes:
        panels: non-empty panels in :data:`TELEMETRY_PANELS` order (then by unit).
        unplotted: non-empty series that matched no panel.
        silent_rejections: rejection counters left out because they never increased.
    """

    panels: tuple[Panel, ...]
    unplotted: int = 0
    silent_rejections: int = 0


def panel_of(metric: str) -> str | None:
    """The title of the :data:`TELEMETRY_PANELS` panel of ``metric``, or None when no pattern matches."""
    name = metric.lower()
    for title, patterns in TELEMETRY_PANELS:
        if any(fnmatch.fnmatchcase(name, p) for p in patterns):
            return title
    return None


def metric_label(metric: str) -> str:
    """A human name for a stored metric path: ``jvm.mem.heap_used_in_bytes`` -> ``heap used``,
    ``thread_pool.write.rejected`` -> ``write pool``, ``system.disk.read_bytes_per_s`` -> ``machine
    disk read``."""
    name = metric
    for prefix, text in _PREFIXES:
        if name.startswith(prefix):
            name = text + name[len(prefix) :]
            break
    for suffix, text in _SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)] + text
            break
    return name.replace("_", " ").replace(".", " ").strip()


def _drawn(series: TelemetrySeries) -> TelemetrySeries:
    return rate(series) if is_cumulative(series) else series


def _silent(title: str, series: TelemetrySeries) -> bool:
    return title == "Rejections" and not any(v > 0 for v in series.values)


def telemetry_view(sides: Sequence[SideRaces]) -> TelemetryView:
    """The telemetry panels of all races of ``sides`` (see the module docstring)."""
    grouped: dict[tuple[str, str], list[tuple[TelemetrySeries, int, str, float]]] = {}
    unplotted = silent = 0
    several = len(sides) > 1
    for s, side in enumerate(sides):
        for r, race in enumerate(side.races):
            zero = time_zero(race) or 0.0
            for stored in race.telemetry:
                if not stored.timestamps:
                    continue
                title = panel_of(stored.metric)
                if title is None:
                    unplotted += 1
                    continue
                series = _drawn(stored)
                if _silent(title, series):
                    silent += 1
                    continue
                label = f"{side.race_label(r)}: " if several else ""
                grouped.setdefault((title, base_unit(series.unit)[0]), []).append((series, s, label, zero))
    order = [title for title, _ in TELEMETRY_PANELS]
    keys = sorted(grouped, key=lambda k: (order.index(k[0]), k[1]))
    panels = tuple(_panel(title, grouped[(title, unit)]) for title, unit in keys)
    return TelemetryView(panels=panels, unplotted=unplotted, silent_rejections=silent)


def _panel(title: str, members: list[tuple[TelemetrySeries, int, str, float]]) -> Panel:
    shown_unit = display_unit(
        base_unit(members[0][0].unit)[0],
        [v * base_unit(m.unit)[1] for m, *_ in members for v in m.values],
    )
    nodes = {m.node for m, *_ in members if m.node}
    names = [
        label + metric_label(m.metric) + (f" ({m.node})" if len(nodes) > 1 and m.node else "")
        for m, _, label, _ in members
    ]
    lines = []
    for (series, side, _, zero), name in zip(members, names, strict=True):
        # Two devices can sample the same thing (node-stats' and os' process CPU): say which is which.
        device = f" [{series.device}]" if names.count(name) > 1 else ""
        factor = base_unit(series.unit)[1] * shown_unit.factor
        lines.append(
            Line(
                name=name + device,
                x=tuple(round(t - zero, 2) for t in series.timestamps),
                y=tuple(shown(v * factor) for v in series.values),
                side=side,
            )
        )
    return Panel(title=title, unit=shown_unit.axis_text, lines=tuple(lines))
