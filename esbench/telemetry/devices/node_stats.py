"""``node-stats``: samples ``GET _nodes/stats`` of every node on a fixed interval.

Rally's device of the same name (esrally ``telemetry.py``, ``NodeStats``/``NodeStatsRecorder``):
same parameters and defaults, same sections, numbers flattened (see :mod:`esbench.telemetry.flatten`),
one series per number and node (node = the Elasticsearch node name). Differences, both chosen so that
the device shows what a performance engineer needs by default:

- ``node-stats-include-indices`` defaults to true (Rally: false): indexing/search/merge totals per
  node are what tells whether the cluster kept up with the load;
- ``node-stats-include-os-cpu`` (esbench only, default true) adds ``os.cpu.*`` (machine CPU percent
  and load averages); Rally's device records only ``process.cpu``.

Counters stay cumulative as Elasticsearch reports them (``thread_pool.write.rejected``,
``jvm.gc.collectors.young.collection_time_in_millis``); :func:`esbench.records.rates.rate` turns a
series into per-second rates. ``process.cpu.percent`` is Elasticsearch's figure: the JVM's CPU load
as a percent of all cores of the machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from esbench.records import ClusterMetric
from esbench.telemetry.device import TelemetryDevice
from esbench.telemetry.flatten import flatten, unit_of
from esbench.telemetry.summary import MIB, counter_delta, peak_and_mean
from esbench.telemetry.table import Key

#: Rally's default ``node-stats-include-indices-metrics``.
DEFAULT_INDICES_METRICS = (
    "docs",
    "store",
    "indexing",
    "search",
    "merges",
    "refresh",
    "flush",
    "query_cache",
    "fielddata",
    "segments",
    "translog",
    "request_cache",
)

# include flag -> (response path of the section, ``_nodes/stats`` metric that returns it)
_SECTIONS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("node-stats-include-thread-pools", ("thread_pool",), "thread_pool"),
    ("node-stats-include-breakers", ("breakers",), "breaker"),
    ("node-stats-include-buffer-pools", ("jvm", "buffer_pools"), "jvm"),
    ("node-stats-include-mem", ("jvm", "mem"), "jvm"),
    ("node-stats-include-mem", ("os", "mem"), "os"),
    ("node-stats-include-cgroup", ("os", "cgroup"), "os"),
    ("node-stats-include-gc", ("jvm", "gc"), "jvm"),
    ("node-stats-include-network", ("transport",), "transport"),
    ("node-stats-include-process", ("process", "cpu"), "process"),
    ("node-stats-include-indexing-pressure", ("indexing_pressure",), "indexing_pressure"),
    ("node-stats-include-fs", ("fs",), "fs"),
    ("node-stats-include-os-cpu", ("os", "cpu"), "os"),
)

_INDEXING_PRESSURE_REJECTIONS = tuple(
    f"indexing_pressure.memory.total.{kind}_rejections" for kind in ("coordinating", "primary", "replica")
)


def _section(doc: Mapping[str, object], path: tuple[str, ...]) -> object:
    current: object = doc
    for key in path:
        if not isinstance(current, Mapping):
            return None
        current = current.get(key)
    return current


class NodeStats(TelemetryDevice):
    """Regularly samples node stats (Rally's ``node-stats``)."""

    name = "node-stats"
    human_name = "Node Stats"
    help = "Regularly samples node stats: thread pools, JVM heap and GC, breakers, CPU, fs IO, indices"
    params: ClassVar[Mapping[str, object]] = {
        "node-stats-sample-interval": 1,
        "node-stats-include-indices": True,
        "node-stats-include-indices-metrics": None,
        "node-stats-include-thread-pools": True,
        "node-stats-include-buffer-pools": True,
        "node-stats-include-breakers": True,
        "node-stats-include-network": True,
        "node-stats-include-process": True,
        "node-stats-include-mem": True,
        "node-stats-include-cgroup": True,
        "node-stats-include-gc": True,
        "node-stats-include-indexing-pressure": True,
        "node-stats-include-fs": True,
        "node-stats-include-os-cpu": True,
    }

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.sample_interval_s = self.positive_number("node-stats-sample-interval")
        # Rally: naming indices metrics switches indices stats on even without include-indices.
        chosen = self.name_list("node-stats-include-indices-metrics")
        include_indices = self.flag("node-stats-include-indices") or bool(chosen)
        self.indices_metrics = (chosen or DEFAULT_INDICES_METRICS) if include_indices else ()
        self.sections = tuple((path, metric) for flag, path, metric in _SECTIONS if self.flag(flag))
        api_metrics = {metric for _, metric in self.sections}
        if self.indices_metrics:
            api_metrics.add("indices")
        self.api_metrics = ",".join(sorted(api_metrics)) or "_none"

    async def sample(self, timestamp: float) -> None:
        response = await self.client.nodes.stats(metric=self.api_metrics)
        values, units = parse_node_stats(response.body, self.sections, self.indices_metrics)
        self.table.add(timestamp, values, units)

    def summary(self) -> tuple[ClusterMetric, ...]:
        rows: list[ClusterMetric] = []
        nodes = sorted({node for _, node in self.table.columns()})
        for node in nodes:
            rows += peak_and_mean(self.table, "process.cpu.percent", node, what="CPU usage (node-stats)")
            heap = self.table.stats("jvm.mem.heap_used_percent", node)
            if heap is not None:
                rows.append(ClusterMetric(name="Peak heap usage", value=heap.maximum, unit="%", task=node))
            rows += _rejection_rows(self, node)
            for direction in ("read", "write"):
                kib = counter_delta(self.table, f"fs.io_stats.total.{direction}_kilobytes", node)
                if kib is not None:
                    rows.append(
                        ClusterMetric(
                            name=f"Disk {direction}s (fs io stats)",
                            value=kib * 1024 / MIB,
                            unit="MB",
                            task=node,
                        )
                    )
        return tuple(rows)


def _rejection_rows(device: NodeStats, node: str) -> list[ClusterMetric]:
    rows: list[ClusterMetric] = []
    total = None
    for metric, key_node in device.table.columns():
        if key_node != node or not (metric.startswith("thread_pool.") and metric.endswith(".rejected")):
            continue
        rejected = counter_delta(device.table, metric, node) or 0.0
        total = (total or 0.0) + rejected
        if rejected > 0:
            pool = metric[len("thread_pool.") : -len(".rejected")]
            rows.append(
                ClusterMetric(
                    name=f"Rejected requests in thread pool {pool}", value=rejected, unit="", task=node
                )
            )
    if total is not None:
        rows.insert(
            0, ClusterMetric(name="Rejected requests (all thread pools)", value=total, unit="", task=node)
        )
    pressure = [counter_delta(device.table, m, node) for m in _INDEXING_PRESSURE_REJECTIONS]
    if any(p is not None for p in pressure):
        rows.append(
            ClusterMetric(
                name="Indexing pressure rejections", value=sum(p or 0.0 for p in pressure), unit="", task=node
            )
        )
    return rows


def parse_node_stats(
    body: Mapping[str, Any],
    sections: tuple[tuple[tuple[str, ...], str], ...],
    indices_metrics: tuple[str, ...],
) -> tuple[dict[Key, float], dict[Key, str]]:
    """``_nodes/stats`` response -> (``(metric, node name)`` -> value, ``(metric, node)`` -> unit).

    Only the given sections (response paths) and, under ``indices``, the given index-stats sections.
    """
    values: dict[Key, float] = {}
    units: dict[Key, str] = {}
    for node_id, node in (body.get("nodes") or {}).items():
        name = node.get("name", node_id)
        parts: list[tuple[str, object]] = [(".".join(path), _section(node, path)) for path, _ in sections]
        indices = node.get("indices") or {}
        parts += [(f"indices.{s}", indices.get(s)) for s in indices_metrics]
        for prefix, section in parts:
            for metric, value in flatten(section, prefix):
                key = (metric, name)
                values[key] = value
                units[key] = unit_of(metric)
    return values, units
