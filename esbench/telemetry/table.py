"""Bounded in-memory storage of one telemetry device's samples: columns on a shared time axis.

A device records one *row* per sample (a wall-clock timestamp and a value per metric). Memory is
bounded twice over:

- at most ``capacity`` rows are kept: when the buffer is full every other row is dropped and from
  then on only every ``stride``-th sample is kept (stride doubles each time), so the rows always span
  the whole race evenly; the newest sample is always kept as well, so a series ends where the race
  ends;
- at most ``max_columns`` metrics per table: further metrics are dropped (counted in
  :attr:`SampleTable.dropped_columns`).

Summary statistics (first, last, min, max, mean, count) are updated on *every* sample, so summary
rows stay exact however much the kept rows were thinned. Columns are ``array('d')`` (8 bytes per
value); a metric missing from a sample is stored as NaN and left out of its series.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Mapping
from dataclasses import dataclass

from esbench.records import TelemetrySeries

#: Rows kept per table: 34 minutes at 1 s sampling before the first thinning.
DEFAULT_CAPACITY = 2048
#: Metrics kept per table (columns); a 1-node ``node-stats`` sample has about 350.
DEFAULT_MAX_COLUMNS = 2000

#: A column key: (metric, node).
Key = tuple[str, str]


@dataclass(kw_only=True)
class ColumnStats:
    """Running statistics of one column over every sample offered (not only the kept rows)."""

    first: float
    last: float
    minimum: float
    maximum: float
    total: float
    count: int
    first_time: float
    last_time: float

    @property
    def mean(self) -> float:
        """Arithmetic mean of all samples."""
        return self.total / self.count

    @property
    def delta(self) -> float:
        """``last - first``: the increase of a cumulative counter over the race."""
        return self.last - self.first


class SampleTable:
    """Rows of samples of one device (see the module docstring for the bounds).

    Args:
        device: the device name written into every series.
        capacity: rows kept (at least 4).
        max_columns: metrics kept.
    """

    def __init__(
        self, device: str, *, capacity: int = DEFAULT_CAPACITY, max_columns: int = DEFAULT_MAX_COLUMNS
    ) -> None:
        if capacity < 4:
            raise ValueError(f"capacity must be at least 4, not {capacity}")
        self.device = device
        self.capacity = capacity
        self.max_columns = max_columns
        self.dropped_columns = 0
        self._times = array("d")
        self._columns: dict[Key, array[float]] = {}
        self._units: dict[Key, str] = {}
        self._stats: dict[Key, ColumnStats] = {}
        self._stride = 1
        self._offered = 0
        # The newest sample when the stride did not keep it: (time, values).
        self._tail: tuple[float, dict[Key, float]] | None = None

    @property
    def stride(self) -> int:
        """Every ``stride``-th sample is kept (1 until the first thinning)."""
        return self._stride

    @property
    def rows(self) -> int:
        """Rows kept (without the tail sample)."""
        return len(self._times)

    def add(self, timestamp: float, values: Mapping[Key, float], units: Mapping[Key, str]) -> None:
        """Record one sample.

        Args:
            timestamp: Unix epoch seconds of the sample; not earlier than the previous one.
            values: ``(metric, node)`` -> value; non-finite values are ignored.
            units: ``(metric, node)`` -> unit, for metrics seen for the first time.
        """
        clean: dict[Key, float] = {}
        for key, raw in values.items():
            value = float(raw)
            if not math.isfinite(value):
                continue
            if key not in self._stats:
                if len(self._stats) >= self.max_columns:
                    self.dropped_columns += 1
                    continue
                self._stats[key] = ColumnStats(
                    first=value,
                    last=value,
                    minimum=value,
                    maximum=value,
                    total=0.0,
                    count=0,
                    first_time=timestamp,
                    last_time=timestamp,
                )
                self._units[key] = units.get(key, "")
            stats = self._stats[key]
            stats.last = value
            stats.last_time = timestamp
            stats.minimum = min(stats.minimum, value)
            stats.maximum = max(stats.maximum, value)
            stats.total += value
            stats.count += 1
            clean[key] = value
        index = self._offered
        self._offered += 1
        if index % self._stride:
            self._tail = (timestamp, clean)
            return
        self._tail = None
        self._append(timestamp, clean)
        if len(self._times) >= self.capacity:
            self._thin()

    def _append(self, timestamp: float, values: Mapping[Key, float]) -> None:
        rows = len(self._times)
        self._times.append(timestamp)
        for key, column in self._columns.items():
            column.append(values.get(key, math.nan))
        for key, value in values.items():
            if key not in self._columns:
                column = array("d", [math.nan]) * rows
                column.append(value)
                self._columns[key] = column

    def _thin(self) -> None:
        # Rows hold the samples whose index is a multiple of the stride; keeping the even rows keeps
        # exactly the multiples of the doubled stride.
        self._times = self._times[::2]
        for key in self._columns:
            self._columns[key] = self._columns[key][::2]
        self._stride *= 2

    def stats(self, metric: str, node: str = "") -> ColumnStats | None:
        """Running statistics of one metric, or None if it was never sampled."""
        return self._stats.get((metric, node))

    def columns(self) -> list[Key]:
        """``(metric, node)`` of every column, in order of first appearance."""
        return list(self._stats)

    def series(self) -> tuple[TelemetrySeries, ...]:
        """One :class:`TelemetrySeries` per column (samples where the metric was missing left out)."""
        times = list(self._times)
        tail_values: Mapping[Key, float] = {}
        if self._tail is not None:
            times.append(self._tail[0])
            tail_values = self._tail[1]
        out = []
        for key in self._stats:
            kept = self._columns.get(key)
            column = list(kept) if kept is not None else [math.nan] * len(self._times)
            if self._tail is not None:
                column.append(tail_values.get(key, math.nan))
            pairs = [(t, v) for t, v in zip(times, column, strict=True) if not math.isnan(v)]
            out.append(
                TelemetrySeries(
                    device=self.device,
                    metric=key[0],
                    unit=self._units[key],
                    node=key[1],
                    timestamps=tuple(t for t, _ in pairs),
                    values=tuple(v for _, v in pairs),
                )
            )
        return tuple(out)
