"""The telemetry panels of the HTML report (esbench/reporting/plot_telemetry.py): which series are
drawn, under which name, in which unit. Synthetic races from plotfactory.py beside this file."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from esbench.records import TelemetrySeries
from esbench.reporting.numbers import shown
from esbench.reporting.plot_data import SideRaces, race_sides
from esbench.reporting.plot_telemetry import metric_label, panel_of, telemetry_view

sys.path.append(str(Path(__file__).resolve().parent))
import plotfactory as pf


@pytest.fixture(scope="module")
def race():
    return pf.race(seed=3)


@pytest.mark.parametrize(
    ("metric", "panel"),
    [
        ("thread_pool.write.rejected", "Rejections"),
        ("thread_pool.search.rejected_count", "Rejections"),
        ("indexing_pressure.memory.total.primary_rejections", "Rejections"),
        ("jvm.gc.collectors.old.collection_time_in_millis", "GC"),
        ("jvm.mem.heap_used_percent", "Heap"),
        ("jvm.mem.heap_used_in_bytes", "Heap"),
        ("os.cpu.percent", "CPU"),
        ("process.cpu_percent", "CPU"),
        ("fs.io_stats.total.read_kilobytes", "Disk IO"),
        ("disk.read_bytes", "Disk IO"),
        ("system.disk.write_bytes_per_s", "Disk IO"),
        ("disk.write_iops", "Disk IO"),
        ("system.page_cache", "Page cache and memory"),
        ("mem.cached", "Page cache and memory"),
        ("process.rss", "Page cache and memory"),
        # what a person does not read at a glance stays in the store
        ("jvm.mem.non_heap_used_in_bytes", None),
        ("jvm.mem.pools.CodeHeap 'non-nmethods'.used_in_bytes", None),
        ("os.cgroup.cpu.cfs_period_micros", None),
        ("jvm.gc.collectors.young.collection_count", None),
        ("indices.segments.count", None),
        ("breakers.parent.tripped", None),
    ],
)
def test_panel_patterns(metric: str, panel: str | None) -> None:
    assert panel_of(metric) == panel
    assert panel_of(metric.upper()) == panel  # case does not matter


@pytest.mark.parametrize(
    ("metric", "label"),
    [
        ("jvm.mem.heap_used_in_bytes", "heap used"),
        ("jvm.mem.heap_used_percent", "heap used"),
        ("thread_pool.write.rejected", "write pool"),
        ("jvm.gc.collectors.young.collection_time_in_millis", "young GC time"),
        ("os.cpu.percent", "node OS cpu"),
        ("system.disk.read_bytes_per_s", "machine disk read"),
        ("system.memory.page_cache", "machine page cache"),
        ("fs.io_stats.total.write_kilobytes", "node write"),
    ],
)
def test_metric_labels_are_human(metric: str, label: str) -> None:
    assert metric_label(metric) == label


def test_panels_by_title_and_unit_in_units_people_read(race) -> None:
    view = telemetry_view(race_sides(race))
    assert [(p.title, p.unit) for p in view.panels] == [
        ("Rejections", "per s"),  # a cumulative counter, drawn as its increase per second
        ("GC", "ms"),
        ("Heap", "%"),
        ("CPU", "%"),
        ("Disk IO", "MiB/s"),  # up to 7e7 bytes/s
        ("Page cache and memory", "GiB"),  # 8e9 bytes
    ]
    assert view.unplotted == 1 and view.silent_rejections == 0  # indices.segments.count
    cpu = view.panels[3]
    # two nodes in the panel: each line says its node
    assert [ln.name for ln in cpu.lines] == ["node OS cpu (node-0)", "process cpu (load-driver)"]
    stored = next(s for s in race.telemetry if s.metric == "os.cpu.percent")
    assert cpu.lines[0].y == tuple(shown(v) for v in stored.values)
    assert cpu.lines[0].x[0] == 0.0 and cpu.lines[0].x[-1] == 34.0
    disk = next(s for s in race.telemetry if s.metric == "disk.read_bytes")
    assert view.panels[4].lines[0].y == tuple(shown(v / 1024**2) for v in disk.values)
    rejections = view.panels[0].lines[0]
    assert rejections.name == "write pool"
    assert set(rejections.y) == {0.0, 1.0} and len(rejections.y) == 34  # 1 more every 5 s


def _series(metric: str, unit: str, values: list[float], device: str = "node-stats") -> TelemetrySeries:
    return TelemetrySeries(
        device=device,
        metric=metric,
        unit=unit,
        node="node-0",
        timestamps=tuple(pf.T0 + i for i in range(len(values))),
        values=tuple(values),
    )


def test_quiet_rejection_counters_are_left_out_and_counted(race) -> None:
    quiet = [_series(f"thread_pool.{p}.rejected", "", [3.0] * 5) for p in ("search", "get", "flush")]
    view = telemetry_view(race_sides(dataclasses.replace(race, telemetry=(*race.telemetry, *quiet))))
    assert view.silent_rejections == 3
    assert [ln.name for ln in view.panels[0].lines] == ["write pool"]


def test_kilobytes_join_the_bytes_panel_and_same_names_say_their_device() -> None:
    telemetry = (
        _series("fs.io_stats.total.read_kilobytes", "KiB", [0.0, 1024.0, 3072.0]),  # cumulative
        _series("system.disk.read_bytes_per_s", "bytes/s", [2.0**20, 2.0**20, 2.0**20], device="os"),
        _series("process.cpu.percent", "%", [10.0, 20.0, 30.0]),
        _series("process.cpu.percent", "%", [11.0, 21.0, 31.0], device="os"),
    )
    race = dataclasses.replace(pf.race(seed=1), telemetry=telemetry)
    disk, cpu = telemetry_view(race_sides(race)).panels[1], telemetry_view(race_sides(race)).panels[0]
    assert (disk.title, disk.unit) == ("Disk IO", "MiB/s")
    # 1024 KiB then 2048 KiB in one second each: 1 and 2 MiB/s
    assert [(ln.name, ln.y) for ln in disk.lines] == [
        ("node read", (1.0, 2.0)),
        ("machine disk read", (1.0, 1.0, 1.0)),
    ]
    assert [ln.name for ln in cpu.lines] == ["process cpu [node-stats]", "process cpu [os]"]


def test_compare_sides_label_their_lines() -> None:
    sides = [
        SideRaces(label="tag:setup:a", races=(pf.race(seed=1),)),
        SideRaces(label="tag:setup:b", races=(pf.race(seed=2),)),
    ]
    panels = telemetry_view(sides).panels
    assert panels[0].lines[0].name == "tag:setup:a: write pool"
    assert {ln.side for p in panels for ln in p.lines} == {0, 1}
