"""plotly figures of the HTML and PNG reports, built from :mod:`esbench.reporting.plot_data`.

Styling rules: with one side (a race report) each line gets its own colour; with several sides (a
comparison) the colour says the side (baseline first) and the dash says the percentile (p50 solid,
p90 dash, p99 dot, max dash-dot) or the metric (latency solid, service time dot), so the sides
overlay in one chart. Time charts have their time axis as ``xaxis`` (the HTML page links the zoom of
all of them); the spectrum is a separate figure with a log x axis labelled in percentiles.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from esbench.reporting.plot_data import Line, Panel, TaskSeries

COLORS: tuple[str, ...] = tuple(qualitative.Plotly)
_DASH = {
    "50": "solid",
    "90": "dash",
    "99": "dot",
    "100": "dashdot",
    "latency": "solid",
    "service_time": "dot",
}
_SPECTRUM_TICKS = (1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000)
_SPECTRUM_TEXT = ("0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%", "99.99999%")
#: Height in px of one row of a time chart.
ROW_HEIGHT = 210
TEMPLATE = "plotly_white"


def _scatter(line: Line, *, several_sides: bool, index: int, legendgroup: str = "") -> go.Scatter:
    color = COLORS[(line.side if several_sides else index) % len(COLORS)]
    dash = _DASH.get(line.style, "solid") if several_sides else "solid"
    # Spectrum points carry their percentile ("p99.9", "max") as hover text.
    hover = (
        {"text": list(line.hover), "hovertemplate": "%{text}: %{y:.4g} ms<extra>%{fullData.name}</extra>"}
        if line.hover
        else {"hovertemplate": "%{y:.4g}<extra>%{fullData.name}</extra>"}
    )
    return go.Scatter(
        x=list(line.x),
        y=list(line.y),
        name=line.name,
        mode="lines+markers" if len(line.x) < 3 else "lines",
        # simplify off: plotly otherwise drops points it finds collinear at the drawn size, and
        # a benchmark report draws every window it stored.
        line={"color": color, "dash": dash, "width": 1.6, "simplify": False},
        legendgroup=legendgroup or None,
        **hover,
    )


def _row_legends(fig: go.Figure, rows: int) -> None:
    """Give each row of a one-column subplot grid its own legend beside it (plotly's ``legend2``...),
    so a row's legend names only that row's lines."""
    for r in range(1, rows + 1):
        name = "legend" if r == 1 else f"legend{r}"
        top = fig.get_subplot(r, 1).yaxis.domain[1]
        fig.update_layout(
            {name: {"x": 1.01, "xanchor": "left", "y": top, "yanchor": "top", "font": {"size": 10}}}
        )
    for trace in fig.data:
        axis = trace.yaxis or "y"
        index = int(axis[1:] or 1)
        trace.legend = "legend" if index == 1 else f"legend{index}"


def _empty_note(fig: go.Figure, text: str, *, row: int | None = None, col: int | None = None) -> None:
    if row is not None:
        sub = fig.get_subplot(row, col or 1)
        ref = {
            "xref": f"{sub.xaxis.plotly_name.replace('axis', '')} domain",
            "yref": f"{sub.yaxis.plotly_name.replace('axis', '')} domain",
        }
    else:
        ref = {"xref": "paper", "yref": "paper"}
    fig.add_annotation(text=text, x=0.5, y=0.5, showarrow=False, font={"color": "#888"}, **ref)


def _spectrum_axis(lines: Sequence[Line]) -> dict[str, object]:
    top = max((max(line.x) for line in lines if line.x), default=100.0)
    ticks = [t for t in _SPECTRUM_TICKS if t <= max(top, 10)]
    return {
        "type": "log",
        "tickvals": ticks,
        "ticktext": list(_SPECTRUM_TEXT[: len(ticks)]),
        "title_text": "percentile",
    }


def _time_axis_title(aligned: bool) -> str:
    return (
        "seconds since the race's first sample" if aligned else "seconds since the task's measurement start"
    )


def timeline_rows(series: TaskSeries) -> list[tuple[str, tuple[Line, ...]]]:
    """(y axis title, lines) of the rows of :func:`task_timeline_figure` that have data, in order
    throughput, latency, service time."""
    rows = (
        (f"throughput ({series.throughput_unit})", series.throughput),
        ("latency (ms)", series.latency),
        ("service time (ms)", series.service_time),
    )
    return [(title, lines) for title, lines in rows if lines]


def timeline_height(series: TaskSeries) -> int:
    """Height in px of :func:`task_timeline_figure` (and of the spectrum beside it)."""
    return max(len(timeline_rows(series)), 2) * ROW_HEIGHT + 60


def task_timeline_figure(
    series: TaskSeries, *, several_sides: bool, x_range: tuple[float, float] | None
) -> go.Figure:
    """Throughput, latency percentiles and service time percentiles over time of one task, one row
    each on one shared time axis; rows without data are left out (the page says which)."""
    rows = timeline_rows(series)
    fig = make_subplots(rows=max(len(rows), 1), cols=1, shared_xaxes=True, vertical_spacing=0.06)
    for r, (title, lines) in enumerate(rows, start=1):
        for i, line in enumerate(lines):
            fig.add_trace(_scatter(line, several_sides=several_sides, index=i), row=r, col=1)
        fig.update_yaxes(title_text=title, rangemode="tozero", row=r, col=1)
    if not rows:
        _empty_note(fig, "no throughput windows recorded for this task")
    _row_legends(fig, max(len(rows), 1))
    fig.update_xaxes(title_text=_time_axis_title(series.aligned), row=max(len(rows), 1), col=1)
    if x_range is not None and series.aligned:
        fig.update_xaxes(range=list(x_range))
    fig.update_layout(
        template=TEMPLATE,
        height=timeline_height(series),
        margin={"l": 70, "r": 150, "t": 30, "b": 50},
        title={"text": f"{series.task}: over time", "font": {"size": 14}},
        hovermode="x unified",
        showlegend=True,
    )
    return fig


def spectrum_figure(
    title: str, lines: Sequence[Line], *, several_sides: bool, height: int = 3 * ROW_HEIGHT + 60
) -> go.Figure:
    """Latency / service time by percentile, HdrHistogram-style (log x = ``1/(1-p)``, labelled in %)."""
    fig = go.Figure()
    for i, line in enumerate(lines):
        fig.add_trace(_scatter(line, several_sides=several_sides, index=i))
    if not lines:
        _empty_note(fig, "no histograms stored for this task")
    fig.update_xaxes(**_spectrum_axis(lines))
    fig.update_yaxes(title_text="ms", rangemode="tozero")
    fig.update_layout(
        template=TEMPLATE,
        height=height,
        margin={"l": 70, "r": 20, "t": 30, "b": 50},
        title={"text": title, "font": {"size": 14}},
        legend={"font": {"size": 10}, "orientation": "h", "y": -0.15},
    )
    return fig


def telemetry_figure(
    panels: Sequence[Panel],
    *,
    several_sides: bool,
    x_range: tuple[float, float] | None,
    spans: Sequence[tuple[str, float, float]] = (),
) -> go.Figure:
    """One row per telemetry panel on the race time axis; ``spans`` (task, start s, end s) shade where
    each task ran."""
    fig = make_subplots(
        rows=len(panels),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=min(0.05, 0.3 / max(len(panels), 1)),
        subplot_titles=[f"{p.title} ({p.unit})" if p.unit else p.title for p in panels],
    )
    for r, panel in enumerate(panels, start=1):
        for i, line in enumerate(panel.lines):
            fig.add_trace(_scatter(line, several_sides=several_sides, index=i), row=r, col=1)
        fig.update_yaxes(title_text=panel.unit, rangemode="tozero", row=r, col=1)
    # One band per task through all panels (plotly's add_vrect(row="all") costs seconds on big figures).
    fig.update_layout(
        shapes=[
            {
                "type": "rect",
                "xref": "x",
                "yref": "paper",
                "x0": start,
                "x1": end,
                "y0": 0,
                "y1": 1,
                "fillcolor": COLORS[i % len(COLORS)],
                "opacity": 0.07,
                "line": {"width": 0},
                "layer": "below",
            }
            for i, (_, start, end) in enumerate(spans)
        ],
        annotations=[
            *fig.layout.annotations,
            *(
                {
                    "text": task,
                    "xref": "x",
                    "yref": "paper",
                    "x": start,
                    "y": 1,
                    "xanchor": "left",
                    "yanchor": "bottom",
                    "showarrow": False,
                    "font": {"size": 9},
                }
                for task, start, _ in spans
            ),
        ],
    )
    _row_legends(fig, len(panels))
    fig.update_xaxes(title_text=_time_axis_title(True), row=len(panels), col=1)
    if x_range is not None:
        fig.update_xaxes(range=list(x_range))
    fig.update_layout(
        template=TEMPLATE,
        height=len(panels) * ROW_HEIGHT + 80,
        margin={"l": 70, "r": 330, "t": 40, "b": 50},
        hovermode="x unified",
        showlegend=True,
    )
    return fig


def overview_figure(series: Sequence[TaskSeries], *, several_sides: bool) -> go.Figure:
    """The single chart of ``--report-format=png``: throughput over time of every task (left) and the
    latency spectrum of every task (right). Here the colour says the task and the dash the side (the
    other way round from the per-task charts: across tasks, the tasks differ most). A throughput axis
    spanning 100x or more is logarithmic (bulk docs/s beside search ops/s)."""
    fig = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.6, 0.4],
        subplot_titles=["throughput over time", "latency by percentile"],
        horizontal_spacing=0.08,
    )
    for t, ts in enumerate(series):
        color = COLORS[t % len(COLORS)]
        for col, lines, unit in ((1, ts.throughput, ts.throughput_unit), (2, ts.latency_spectrum, "ms")):
            for line in lines:
                side = f" [{line.source}]" if several_sides else ""
                trace = _scatter(line, several_sides=False, index=t, legendgroup=ts.task)
                trace.name = f"{ts.task} ({unit}){side}"
                trace.line.color = color
                trace.line.dash = ("solid", "dash", "dot", "dashdot")[line.side % 4]
                trace.showlegend = col == 1 or not ts.throughput
                fig.add_trace(trace, row=1, col=col)
    positive = [v for ts in series for line in ts.throughput for v in line.y if v is not None and v > 0]
    if positive and max(positive) / min(positive) >= 100:
        fig.update_yaxes(type="log", row=1, col=1)
    fig.update_xaxes(title_text=_time_axis_title(all(ts.aligned for ts in series)), row=1, col=1)
    fig.update_yaxes(title_text="throughput", row=1, col=1)
    spectra = [line for ts in series for line in ts.latency_spectrum]
    fig.update_xaxes(**_spectrum_axis(spectra), row=1, col=2)
    fig.update_yaxes(title_text="latency (ms)", rangemode="tozero", row=1, col=2)
    spectrum_values = [v for line in spectra for v in line.y if v is not None and v > 0]
    if spectrum_values and max(spectrum_values) / min(spectrum_values) >= 100:
        fig.update_yaxes(type="log", row=1, col=2)
    if not positive:
        _empty_note(fig, "no throughput windows recorded", row=1, col=1)
    if not spectra:
        _empty_note(fig, "no latency histograms stored", row=1, col=2)
    fig.update_layout(
        template=TEMPLATE,
        height=460,
        width=1200,
        margin={"l": 70, "r": 20, "t": 40, "b": 50},
        legend={"font": {"size": 10}},
    )
    return fig
