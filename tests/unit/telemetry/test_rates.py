"""Rates of cumulative counters."""

from __future__ import annotations

from esbench.records import TelemetrySeries
from esbench.records.rates import is_cumulative, rate


def _s(metric: str, unit: str = "", device: str = "node-stats", **kw) -> TelemetrySeries:
    return TelemetrySeries(device=device, metric=metric, unit=unit, node="n1", **kw)


def test_rate_per_second_between_samples() -> None:
    r = rate(
        _s(
            "jvm.gc.collectors.young.collection_time_in_millis",
            "ms",
            timestamps=(0.0, 1.0, 3.0, 4.0),
            values=(10.0, 15.0, 25.0, 3.0),
        )
    )
    # The drop at t=4 is a node restart: no value for that interval.
    assert (r.timestamps, r.values, r.unit, r.node) == ((1.0, 3.0), (5.0, 5.0), "ms/s", "n1")
    assert rate(_s("x", "bytes", timestamps=(1.0,), values=(1.0,))).unit == "bytes/s"


def test_which_series_are_counters() -> None:
    assert is_cumulative(_s("thread_pool.write.rejected"))
    assert is_cumulative(_s("fs.io_stats.total.read_kilobytes", "KiB"))
    assert is_cumulative(_s("indices.indexing.index_total"))
    assert not is_cumulative(_s("jvm.mem.heap_used_percent", "%"))
    assert not is_cumulative(_s("thread_pool.write.queue"))
    assert not is_cumulative(_s("process.cpu.percent", "%", device="os"))
