"""The load driver's own CPU during a race, to tell a saturated client from a saturated cluster.

:class:`DriverCpuSampler` samples, every ``interval_s`` from a background thread, the cumulative CPU
time (user + system, psutil) of esbench's process and all its descendants: the load driver's worker
processes are children of this process. A process
that has exited keeps its last sample. :meth:`DriverCpuSampler.usage` turns the samples within a time
span (a task's measurement window) into CPU use in percent of one core (like ``top``).

Kept small on purpose: the ``os`` telemetry device records the load driver's CPU for every race; this
is only what planning needs to flag a point.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import psutil

#: A process using at least this share of one core, or the tree at least this share of all cores,
#: counts as saturated (a Python worker is single-threaded: one busy core is its limit).
DEFAULT_SATURATION = 0.9


@dataclass(frozen=True, kw_only=True)
class DriverCpu:
    """CPU use of the load driver over a span, in percent of one core.

    Attributes:
        total_percent: all of esbench's processes together (200 = two cores busy).
        busiest_percent: the busiest single process.
        cores: logical CPUs of the machine.
        saturated: ``busiest_percent`` >= 90 % of a core or ``total_percent`` >= 90 % of all cores.
    """

    total_percent: float
    busiest_percent: float
    cores: int
    saturated: bool

    def to_dict(self) -> dict[str, float | int | bool]:
        """A JSON-able dict (stored next to the race)."""
        return {
            "total_percent": self.total_percent,
            "busiest_percent": self.busiest_percent,
            "cores": self.cores,
            "saturated": self.saturated,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> DriverCpu:
        """The inverse of :meth:`to_dict`."""
        return cls(
            total_percent=float(data["total_percent"]),  # type: ignore[arg-type]
            busiest_percent=float(data["busiest_percent"]),  # type: ignore[arg-type]
            cores=int(data["cores"]),  # type: ignore[call-overload]
            saturated=bool(data["saturated"]),
        )


class DriverCpuSampler:
    """Samples the CPU time of this process tree; use as a context manager around a race.

    Samples are ``(epoch seconds, {(pid, create_time): cpu seconds})``.
    """

    def __init__(self, interval_s: float = 0.5) -> None:
        self.interval_s = interval_s
        self._root = psutil.Process()
        self._samples: list[tuple[float, dict[tuple[int, float], float]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="esbench-driver-cpu", daemon=True)

    def __enter__(self) -> DriverCpuSampler:
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._sample()

    def _sample(self) -> None:
        cpu: dict[tuple[int, float], float] = {}
        for proc in [self._root, *self._root.children(recursive=True)]:
            try:
                with proc.oneshot():
                    times = proc.cpu_times()
                    cpu[(proc.pid, proc.create_time())] = times.user + times.system
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
        self._samples.append((time.time(), cpu))

    def usage(self, start: float, end: float, *, saturation: float = DEFAULT_SATURATION) -> DriverCpu | None:
        """CPU use between epoch seconds ``start`` and ``end``; None with fewer than two samples in it.

        The span is widened to the nearest samples inside it; a process first seen inside the span
        counts from zero CPU seconds at the span's first sample (it was started within the span).
        """
        inside = [s for s in self._samples if start <= s[0] <= end]
        if len(inside) < 2:
            return None
        (t0, first), (t1, _) = inside[0], inside[-1]
        wall = t1 - t0
        if wall <= 0:
            return None
        seen: dict[tuple[int, float], float] = {}
        for _, cpu in inside:
            seen.update(cpu)  # a process that exited keeps its last sample
        per_process = {key: value - first.get(key, 0.0) for key, value in seen.items()}
        total = sum(per_process.values()) / wall * 100
        busiest = max(per_process.values(), default=0.0) / wall * 100
        cores = psutil.cpu_count() or 1
        return DriverCpu(
            total_percent=total,
            busiest_percent=busiest,
            cores=cores,
            saturated=busiest >= saturation * 100 or total >= saturation * 100 * cores,
        )
