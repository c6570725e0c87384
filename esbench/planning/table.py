"""Seed 003's evidence table: one row per point of a sweep.

Columns: the swept value, samples, throughput, p50/p90/p99 latency and service time (ms), received
and sent KB/s (seed 003's JMeter KB/s, 1 KB = 1,024 bytes; "-" for races stored before esbench
counted bytes), error rate, the load driver's CPU (percent of one core, busiest process / all
processes), the race id's first 8 characters (enough for ``esbench compare --baseline=ID``) and notes
(knee, a saturated load driver, a reused race).
"""

from __future__ import annotations

from collections.abc import Sequence

from esbench.planning.measure import TABLE_PERCENTILES, PointResult, percentile_key


def render_points(
    points: Sequence[PointResult], *, param: str, knee: int | None = None, best: int | None = None
) -> str:
    """The table of ``points`` (in order); ``knee`` / ``best`` mark a row by index."""
    unit = next((p.throughput_unit for p in points), "ops/s")
    pcts = [percentile_key(p) for p in TABLE_PERCENTILES]
    header = (
        [param, "samples", f"throughput {unit}"]
        + [f"p{k} lat ms" for k in pcts]
        + [f"p{k} svc ms" for k in pcts]
        + ["recv KB/s", "sent KB/s", "errors", "driver CPU %", "race", "notes"]
    )
    rows = []
    for i, p in enumerate(points):
        notes = []
        if i == knee:
            notes.append("KNEE")
        if i == best:
            notes.append("BEST")
        if p.driver_saturated:
            notes.append("load driver saturated")
        if not p.completed:
            notes.append(f"race {p.status}")
        if p.reused:
            notes.append(f"reused, ran {p.ran_at}" if p.ran_at else "reused")
        cpu = p.driver_cpu
        rows.append(
            [p.label, str(p.samples), _num(p.throughput)]
            + [_num(p.latency_ms.get(k)) for k in pcts]
            + [_num(p.service_time_ms.get(k)) for k in pcts]
            + [
                _num(p.received_kb_s),
                _num(p.sent_kb_s),
                "-" if p.error_rate is None else f"{p.error_rate:.2%}",
                "-" if cpu is None else f"{cpu.busiest_percent:.0f}/{cpu.total_percent:.0f}",
                p.race_id[:8],
                ", ".join(notes),
            ]
        )
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    lines = [
        "  ".join(
            cell.rjust(w) if c else cell.ljust(w) for c, (cell, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    if any(p.driver_cpu is None for p in points):
        lines.append("")
        lines.append(
            "(driver CPU % '-': fewer than two CPU samples (one every 0.5 s) fell within the task, "
            "or the race was stored without them.)"
        )
    return "\n".join(line.rstrip() for line in lines)


#: The label of every planning answer made from test-mode races.
TEST_MODE_LABEL = "[test mode: not a measurement]"


def test_mode_notice(kind: str) -> str:
    """The paragraph under a planning answer made from test-mode races (``kind``: ``optimize``...)."""
    return (
        f"{TEST_MODE_LABEL} Every race of this {kind} ran in test mode (-1k corpora, capped iterations "
        "and time periods): a handful of requests per point, percentiles from a few samples. The "
        "numbers check that the procedure runs; they measure nothing. Run without --test-mode for an answer."
    )


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.1f}" if value < 1000 else f"{value:,.0f}"
