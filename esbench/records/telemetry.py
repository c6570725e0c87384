"""What a telemetry device hands to the results: time series of one metric on one node.

Agreed shape between ``telemetry/`` (producer), ``results/`` (storage) and ``reporting/`` (tables and
plots), kept on the ground floor so that none of them imports another for it. A series is columnar
(two equal-length tuples) so a race of an hour at 1 s sampling stays a few thousand floats per metric.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, kw_only=True)
class TelemetrySeries:
    """Samples of one metric of one telemetry device on one node.

    Attributes:
        device: telemetry device name (Rally's name where Rally has the device: ``node-stats``,
            ``segment-stats``...; ``os`` for esbench's OS-level sampler).
        metric: dotted metric name within the device, e.g. ``jvm.mem.heap_used_percent``.
        unit: unit of ``values`` (``%``, ``bytes``, ``bytes/s``, ``ms``, ``ops/s``, ``""``).
        node: node name; ``""`` for a cluster-wide series; ``"load-driver"`` for the load driver host.
        timestamps: sample times, Unix epoch seconds (wall clock), ascending.
        values: sample values, same length as ``timestamps``.
    """

    device: str
    metric: str
    unit: str
    node: str = ""
    timestamps: tuple[float, ...] = ()
    values: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if len(self.timestamps) != len(self.values):
            raise ValueError(
                f"telemetry series {self.device}/{self.metric}: {len(self.timestamps)} timestamps "
                f"but {len(self.values)} values"
            )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TelemetrySeries:
        """Inverse of ``dataclasses.asdict`` (lists become tuples)."""
        return cls(
            device=data["device"],
            metric=data["metric"],
            unit=data.get("unit", ""),
            node=data.get("node", ""),
            timestamps=tuple(data.get("timestamps", ())),
            values=tuple(data.get("values", ())),
        )
