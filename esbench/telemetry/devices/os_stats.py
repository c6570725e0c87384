"""``os``: operating-system view of the provisioned nodes and of the load driver, through psutil.

esbench's own device (Rally gathers a part of this with its internal ``DiskIo`` device, as totals
only). Every sample records, per provisioned node (``node`` = its Elasticsearch node name):

- ``process.cpu.percent``: CPU time of the node's JVM per wall second ×100 (top's convention:
  200 = two cores busy), from ``psutil.Process.cpu_times`` (user + system);
- ``process.rss`` (bytes);
- ``process.disk.read_bytes_per_s`` / ``process.disk.write_bytes_per_s``: bytes the process made the
  storage layer read and write (Linux ``/proc/PID/io`` ``read_bytes``/``write_bytes``; page-cache
  hits are not disk reads and do not count);

for the machine (``node`` = ``""``; on a provisioned cluster the nodes and the load driver share it):

- ``system.cpu.percent`` (0-100 over all cores), ``system.memory.page_cache`` (Linux ``Cached``),
  ``system.memory.free``, ``system.memory.available`` (bytes);
- ``system.disk.read_iops`` / ``system.disk.write_iops`` (completed device operations per second,
  all disks) and ``system.disk.read_bytes_per_s`` / ``system.disk.write_bytes_per_s``: Linux keeps
  no per-process count of device operations, so IOPS are the machine's;

and for the load driver (``node`` = ``"load-driver"``): ``process.cpu.percent`` of the coordinator
and all its worker processes together (top's convention: 100 × cores = saturated).

Rates are taken between consecutive samples, so the first sample gives no rate. Summary rows: peak
and mean CPU of each node and of the load driver, disk reads and writes (MB) of each node over the
race, peak RSS, minimum page cache and minimum available memory.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from esbench.exceptions import ConfigError
from esbench.records import ClusterMetric
from esbench.telemetry.device import TelemetryDevice
from esbench.telemetry.summary import MIB, peak_and_mean

if TYPE_CHECKING:
    import psutil
    from psutil._ntuples import pio
from esbench.telemetry.table import Key

logger = logging.getLogger(__name__)

LOAD_DRIVER = "load-driver"


class _Rates:
    """Per-second rates of cumulative counters between consecutive readings."""

    def __init__(self) -> None:
        self._previous: dict[str, tuple[float, float]] = {}

    def rate(self, name: str, now: float, value: float) -> float | None:
        before = self._previous.get(name)
        self._previous[name] = (now, value)
        if before is None or now <= before[0] or value < before[1]:
            return None
        return (value - before[1]) / (now - before[0])


class OsStats(TelemetryDevice):
    """Samples CPU, memory and disk IO of provisioned nodes and the load driver (psutil)."""

    name = "os"
    human_name = "OS Stats"
    help = "Regularly samples CPU, RSS, disk IO of provisioned nodes, page cache, load driver CPU"
    params: ClassVar[Mapping[str, object]] = {"os-sample-interval": 1}
    needs_client = False
    provisioned_only = True

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.sample_interval_s = self.positive_number("os-sample-interval")
        self._rates = _Rates()
        self._processes: dict[str, psutil.Process] = {}
        # node -> (read bytes, write bytes) at the start and at the latest sample.
        self._io_first: dict[str, tuple[float, float]] = {}
        self._io_last: dict[str, tuple[float, float]] = {}
        self._driver_times: dict[int, float] = {}
        self._driver_previous: tuple[float, float] | None = None
        self._warned: set[str] = set()

    async def start(self) -> None:
        import psutil

        if not self.ctx.nodes:
            raise ConfigError(
                "The telemetry device 'os' samples the nodes esbench provisions on this machine, but this "
                "race benchmarks an existing cluster (--target-hosts). Drop 'os' from --telemetry, or let "
                "esbench provision the cluster (no --target-hosts); 'node-stats' works for any cluster."
            )
        for node in self.ctx.nodes:
            try:
                self._processes[node.name] = psutil.Process(node.pid)
            except psutil.Error as e:
                raise ConfigError(
                    f"The telemetry device 'os' cannot watch node {node.name} (pid {node.pid}): {e}."
                ) from e
        psutil.cpu_percent(interval=None)  # the baseline of the first system.cpu.percent sample
        for name, proc in self._processes.items():
            io = self._io(name, proc)
            if io is not None:
                self._io_first[name] = (float(io.read_bytes), float(io.write_bytes))

    async def sample(self, timestamp: float) -> None:
        import psutil

        now = time.monotonic()
        values: dict[Key, float] = {}
        units: dict[Key, str] = {}

        def put(metric: str, node: str, value: float | None, unit: str) -> None:
            if value is not None:
                values[(metric, node)] = value
                units[(metric, node)] = unit

        for name, proc in self._processes.items():
            try:
                with proc.oneshot():
                    cpu = proc.cpu_times()
                    rss = proc.memory_info().rss
            except psutil.Error:
                self._warn(name, f"node {name} (pid {proc.pid}) is gone; its OS samples stop here")
                continue
            put(
                "process.cpu.percent",
                name,
                _percent(self._rates.rate(f"{name}.cpu", now, cpu.user + cpu.system)),
                "%",
            )
            put("process.rss", name, float(rss), "bytes")
            io = self._io(name, proc)
            if io is not None:
                read = self._rates.rate(f"{name}.read", now, float(io.read_bytes))
                write = self._rates.rate(f"{name}.write", now, float(io.write_bytes))
                put("process.disk.read_bytes_per_s", name, read, "bytes/s")
                put("process.disk.write_bytes_per_s", name, write, "bytes/s")
                self._io_last[name] = (float(io.read_bytes), float(io.write_bytes))
        memory = psutil.virtual_memory()
        put("system.cpu.percent", "", psutil.cpu_percent(interval=None), "%")
        put("system.memory.page_cache", "", float(getattr(memory, "cached", 0.0)), "bytes")
        put("system.memory.free", "", float(memory.free), "bytes")
        put("system.memory.available", "", float(memory.available), "bytes")
        disk = psutil.disk_io_counters(perdisk=False, nowrap=True)
        if disk is not None:
            put(
                "system.disk.read_iops",
                "",
                self._rates.rate("disk.reads", now, float(disk.read_count)),
                "ops/s",
            )
            put(
                "system.disk.write_iops",
                "",
                self._rates.rate("disk.writes", now, float(disk.write_count)),
                "ops/s",
            )
            put(
                "system.disk.read_bytes_per_s",
                "",
                self._rates.rate("disk.rb", now, float(disk.read_bytes)),
                "bytes/s",
            )
            put(
                "system.disk.write_bytes_per_s",
                "",
                self._rates.rate("disk.wb", now, float(disk.write_bytes)),
                "bytes/s",
            )
        put("process.cpu.percent", LOAD_DRIVER, self._load_driver_cpu(now), "%")
        self.table.add(timestamp, values, units)

    def _io(self, name: str, proc: psutil.Process) -> pio | None:
        import psutil

        try:
            return proc.io_counters()
        except (psutil.Error, AttributeError, NotImplementedError) as e:
            self._warn(f"{name}.io", f"no disk IO counters for node {name}: {e}")
            return None

    def _load_driver_cpu(self, now: float) -> float | None:
        """CPU percent of the load driver process tree since the previous sample.

        Each process's CPU time is tracked separately, so processes that start between samples
        count from their first reading and processes that end stop counting.
        """
        import psutil

        pid = self.ctx.load_driver_pid or os.getpid()
        try:
            root = psutil.Process(pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            return None
        used = 0.0
        seen: dict[int, float] = {}
        for proc in procs:
            try:
                times = proc.cpu_times()
            except psutil.Error:
                continue
            total = times.user + times.system
            seen[proc.pid] = total
            used += total - self._driver_times.get(proc.pid, total)
        self._driver_times = seen
        previous, self._driver_previous = self._driver_previous, (now, used)
        if previous is None:
            return None
        return _percent(used / (now - previous[0])) if now > previous[0] else None

    def _warn(self, key: str, message: str) -> None:
        if key not in self._warned:
            self._warned.add(key)
            logger.warning("telemetry device os: %s", message)

    def summary(self) -> tuple[ClusterMetric, ...]:
        rows: list[ClusterMetric] = []
        for name in self._processes:
            rows += peak_and_mean(self.table, "process.cpu.percent", name, what="CPU usage (os)")
            if name in self._io_first and name in self._io_last:
                (read0, write0), (read1, write1) = self._io_first[name], self._io_last[name]
                rows.append(
                    ClusterMetric(name="Disk reads (os)", value=(read1 - read0) / MIB, unit="MB", task=name)
                )
                rows.append(
                    ClusterMetric(
                        name="Disk writes (os)", value=(write1 - write0) / MIB, unit="MB", task=name
                    )
                )
            rss = self.table.stats("process.rss", name)
            if rss is not None:
                rows.append(ClusterMetric(name="Peak RSS", value=rss.maximum / MIB, unit="MB", task=name))
        rows += peak_and_mean(self.table, "process.cpu.percent", LOAD_DRIVER, what="load driver CPU usage")
        for metric, what in (
            ("system.memory.page_cache", "page cache"),
            ("system.memory.available", "available memory"),
        ):
            stats = self.table.stats(metric, "")
            if stats is not None:
                rows.append(ClusterMetric(name=f"Min {what}", value=stats.minimum / MIB, unit="MB"))
                rows.append(ClusterMetric(name=f"Mean {what}", value=stats.mean / MIB, unit="MB"))
        return tuple(rows)


def _percent(cpu_seconds_per_second: float | None) -> float | None:
    return None if cpu_seconds_per_second is None else 100.0 * cpu_seconds_per_second
