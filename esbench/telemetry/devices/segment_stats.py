"""``segment-stats``: the segments of every index after the race, written to ``segment_stats.log``.

Rally's device of the same name (esrally ``telemetry.py``, ``SegmentStats``): after the last task it
writes ``GET _cat/segments?index=_all&v`` to ``segment_stats.log`` in the race's directory. It
records no series; the segment count of the race is a row of every report already.
"""

from __future__ import annotations

from collections.abc import Mapping

from esbench.telemetry.device import DeviceOutput, TelemetryDevice


class SegmentStats(TelemetryDevice):
    """Writes ``_cat/segments`` to the race directory at the end (Rally's ``segment-stats``)."""

    name = "segment-stats"
    human_name = "Segment Stats"
    help = "Determines segment stats at the end of the benchmark."

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.written: str | None = None

    async def stop(self) -> None:
        response = await self.client.cat.segments(index="_all", v=True)
        if self.ctx.race_dir is not None:
            path = self.ctx.race_dir / "segment_stats.log"
            path.write_text(str(response.body), encoding="utf-8")
            self.written = str(path)

    def output(self) -> DeviceOutput:
        out = super().output()
        if self.written:
            out.notes.append(f"Segment stats written to {self.written}")
        return out
