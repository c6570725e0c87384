"""A sweep as an HTML page: throughput and latency against the swept value (plotly, JS inlined).

Throughput (mean) on the left axis, p50/p90/p99 latency on the right, one marker per point; the knee
is annotated, points with a saturated load driver are drawn as crosses. The page also carries the
text table and the verdict, so the file stands alone.
"""

from __future__ import annotations

import html
from pathlib import Path

import plotly.graph_objects as go

from esbench.planning.measure import TABLE_PERCENTILES, percentile_key
from esbench.planning.procedures import SweepOutcome
from esbench.reporting.html import write_html


def sweep_figure(outcome: SweepOutcome) -> go.Figure:
    """The figure: x = point labels in sweep order (categorical, as the values may not be numbers)."""
    points = outcome.points
    x = [p.label for p in points]
    unit = next((p.throughput_unit for p in points), "ops/s")
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=x,
            y=[p.throughput for p in points],
            name=f"throughput ({unit})",
            mode="lines+markers",
            marker={"symbol": ["x" if p.driver_saturated else "circle" for p in points], "size": 10},
        )
    )
    for percentile in TABLE_PERCENTILES:
        key = percentile_key(percentile)
        fig.add_trace(
            go.Scatter(
                x=x,
                y=[p.latency_ms.get(key) for p in points],
                name=f"p{key} latency (ms)",
                mode="lines+markers",
                yaxis="y2",
                line={"dash": "dot"},
            )
        )
    if outcome.knee.index is not None:
        knee = points[outcome.knee.index]
        fig.add_annotation(x=knee.label, y=knee.throughput, text="knee", showarrow=True, arrowhead=2)
    fig.update_layout(
        title=f"Sweep over {outcome.param}",
        xaxis={"title": outcome.param, "type": "category"},
        yaxis={"title": f"throughput ({unit})", "rangemode": "tozero"},
        yaxis2={"title": "latency (ms)", "overlaying": "y", "side": "right", "rangemode": "tozero"},
        legend={"orientation": "h", "y": -0.2},
        height=520,
    )
    return fig


def render_sweep_html(outcome: SweepOutcome) -> str:
    """A complete HTML page: the figure (plotly.js inlined) and the text table with the verdict."""
    body = sweep_figure(outcome).to_html(include_plotlyjs=True, full_html=False)
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>esbench sweep over {html.escape(outcome.param)}</title></head><body>"
        f"{body}<pre>{html.escape(outcome.render())}</pre></body></html>"
    )


def write_sweep_html(outcome: SweepOutcome, path: Path) -> None:
    """Write :func:`render_sweep_html` to ``path``.

    Raises:
        UserError: the file cannot be written.
    """
    write_html(render_sweep_html(outcome), path)
