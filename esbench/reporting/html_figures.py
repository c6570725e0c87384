"""plotly figures of the HTML and PNG reports, built from :mod:`esbench.reporting.plot_data`.

Styling rules: with one side (a race report) each line gets its own colour; with several sides (a
comparison) the colour says the side (baseline first) and the dash says the percentile (p50 solid,
p90 dash, p99 dot, max dash-dot) or the metric (latency solid, service time dot), so the sides
overlay in one chart. Every axis title names its unit in parentheses; numbers on axes and in hovers
are written in full (no SI suffix such as plotly's "2B" for 2 billion bytes) and log axes are
labelled at 1-2-5 steps or decades only (:func:`esbench.reporting.numbers.log_ticks`). Legends never
overlap: each row of a multi-row chart has its own legend beside its row, and the row is made tall
enough for it. Time charts have their time axis as ``xaxis`` (the HTML page links the zoom of all of
them); the spectrum is a separate figure with a log x axis labelled in percentiles.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from esbench.reporting.numbers import log_ticks
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
_TASK_DASH = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
# x = 1/(1-p) of the spectrum's ticks and their labels; the 50 % and 75 % ticks keep a spectrum of
# a few samples (x up to 4) readable.
_SPECTRUM_TICKS = (
    (1, "0%"),
    (2, "50%"),
    (4, "75%"),
    (10, "90%"),
    (100, "99%"),
    (1_000, "99.9%"),
    (10_000, "99.99%"),
    (100_000, "99.999%"),
    (1_000_000, "99.9999%"),
    (10_000_000, "99.99999%"),
)
#: Height in px of one row of a time chart (at least; a row grows with its legend).
ROW_HEIGHT = 210
#: Height in px one legend entry needs (font size 10: plotly draws about 19.8 px per entry).
LEGEND_ENTRY = 20
TIME_AXIS_TITLE = "time since start (s)"
TEMPLATE = "plotly_white"
# Numbers in full ("2,147,483,648", never "2.1B"): values are already scaled to MiB, ms, docs/s.
_NUMBER_AXIS = {"exponentformat": "none", "separatethousands": True}


def _scatter(line: Line, *, unit: str, several_sides: bool, index: int, legendgroup: str = "") -> go.Scatter:
    color = COLORS[(line.side if several_sides else index) % len(COLORS)]
    dash = _DASH.get(line.style, "solid") if several_sides else "solid"
    value = f"%{{y}} {unit}"
    # Spectrum points carry their percentile ("p99.9", "max") as hover text.
    hover = (
        {"text": list(line.hover), "hovertemplate": f"%{{text}}: {value}<extra>%{{fullData.name}}</extra>"}
        if line.hover
        else {"hovertemplate": f"{value}<extra>%{{fullData.name}}</extra>"}
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


def row_heights(entries: Sequence[int]) -> list[int]:
    """Height in px of each row of a multi-row chart whose rows have ``entries`` legend entries: at
    least :data:`ROW_HEIGHT`, and tall enough for the row's legend beside it."""
    return [max(ROW_HEIGHT, n * LEGEND_ENTRY + 40) for n in entries]


def _rows_figure(heights: Sequence[int], **kwargs: object) -> go.Figure:
    return make_subplots(
        rows=max(len(heights), 1),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=min(0.05, 0.3 / max(len(heights), 1)),
        row_heights=list(heights) if heights else None,
        **kwargs,
    )


def _row_legends(fig: go.Figure, rows: int) -> None:
    """Give each row of a one-column subplot grid its own legend beside it (plotly's ``legend2``...),
    so a row's legend names only that row's lines (the rows are tall enough: :func:`row_heights`)."""
    legends = {}
    for r in range(1, rows + 1):
        top = fig.get_subplot(r, 1).yaxis.domain[1]
        legends["legend" if r == 1 else f"legend{r}"] = {
            "x": 1.01,
            "xanchor": "left",
            "y": top,
            "yanchor": "top",
            "font": {"size": 10},
        }
    fig.update_layout(legends)  # once: each update_layout copies the whole layout
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


def spectrum_axis(lines: Sequence[Line]) -> dict[str, object]:
    """The percentile x axis of a spectrum: log of ``1/(1-p)`` up to the largest sample count, ticks
    at 0 %, 50 %, 75 %, 90 %, 99 %... (50 % and 75 % only while they are not crowded)."""
    top = max((max(line.x) for line in lines if line.x), default=100.0)
    ticks = [(x, text) for x, text in _SPECTRUM_TICKS if x <= max(top, 4)]
    if top > 100:
        ticks = [(x, text) for x, text in ticks if x not in (2, 4)]
    return {
        "type": "log",
        "tickvals": [x for x, _ in ticks],
        "ticktext": [text for _, text in ticks],
        "title_text": "percentile (%)",
    }


def _log_axis(values: Sequence[float]) -> dict[str, object]:
    ticks, texts = log_ticks(min(values), max(values))
    return {"type": "log", "tickvals": ticks, "ticktext": texts}


def _positive(lines: Sequence[Line]) -> list[float]:
    return [v for line in lines for v in line.y if v is not None and v > 0]


def timeline_rows(series: TaskSeries) -> list[tuple[str, tuple[Line, ...], str]]:
    """(y axis title, lines, unit) of the rows of :func:`task_timeline_figure` that have data, in
    order throughput, latency, service time."""
    rows = (
        (f"throughput ({series.throughput_unit})", series.throughput, series.throughput_unit),
        ("latency (ms)", series.latency, "ms"),
        ("service time (ms)", series.service_time, "ms"),
    )
    return [(title, lines, unit) for title, lines, unit in rows if lines]


def timeline_height(series: TaskSeries) -> int:
    """Height in px of :func:`task_timeline_figure` (and of the spectrum beside it)."""
    heights = row_heights([len(lines) for _, lines, _ in timeline_rows(series)])
    return max(sum(heights), 2 * ROW_HEIGHT) + 60


def task_timeline_figure(
    series: TaskSeries, *, several_sides: bool, x_range: tuple[float, float] | None
) -> go.Figure:
    """Throughput, latency percentiles and service time percentiles over time of one task, one row
    each on one shared time axis; rows without data are left out (the page says which)."""
    rows = timeline_rows(series)
    fig = _rows_figure(row_heights([len(lines) for _, lines, _ in rows]))
    for r, (title, lines, unit) in enumerate(rows, start=1):
        for i, line in enumerate(lines):
            fig.add_trace(_scatter(line, unit=unit, several_sides=several_sides, index=i), row=r, col=1)
        fig.update_yaxes(title_text=title, rangemode="tozero", row=r, col=1)
    if not rows:
        _empty_note(fig, "no throughput windows recorded for this task")
    _row_legends(fig, max(len(rows), 1))
    time_title = TIME_AXIS_TITLE if series.aligned else "time since the task's measurement start (s)"
    fig.update_xaxes(title_text=time_title, row=max(len(rows), 1), col=1)
    fig.update_xaxes(**_NUMBER_AXIS)
    fig.update_yaxes(**_NUMBER_AXIS)
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
    """Latency / service time by percentile, HdrHistogram-style (log x = ``1/(1-p)``, labelled in %);
    one legend, under the chart."""
    fig = go.Figure()
    for i, line in enumerate(lines):
        fig.add_trace(_scatter(line, unit="ms", several_sides=several_sides, index=i))
    if not lines:
        _empty_note(fig, "no histograms stored for this task")
    fig.update_xaxes(**spectrum_axis(lines))
    fig.update_yaxes(title_text="latency / service time (ms)", rangemode="tozero", **_NUMBER_AXIS)
    fig.update_layout(
        template=TEMPLATE,
        height=height,
        margin={"l": 70, "r": 20, "t": 30, "b": 50},
        title={"text": title, "font": {"size": 14}},
        legend={"font": {"size": 10}, "orientation": "h", "x": 0, "y": -0.12, "yanchor": "top"},
        showlegend=bool(lines),
    )
    return fig


def telemetry_figure(
    panels: Sequence[Panel],
    *,
    several_sides: bool,
    x_range: tuple[float, float] | None,
    spans: Sequence[tuple[str, float, float]] = (),
) -> go.Figure:
    """One row per telemetry panel on the race time axis, each with its own legend; ``spans`` (task,
    start s, end s) shade where each task ran."""
    heights = row_heights([len(p.lines) for p in panels])
    fig = _rows_figure(heights, subplot_titles=[p.title for p in panels])
    for r, panel in enumerate(panels, start=1):
        for i, line in enumerate(panel.lines):
            trace = _scatter(line, unit=panel.unit, several_sides=several_sides, index=i)
            fig.add_trace(trace, row=r, col=1)
        fig.update_yaxes(title_text=f"{panel.title} ({panel.unit})", rangemode="tozero", row=r, col=1)
    _task_bands(fig, spans)
    _row_legends(fig, len(panels))
    fig.update_xaxes(title_text=TIME_AXIS_TITLE, row=len(panels), col=1)
    fig.update_xaxes(**_NUMBER_AXIS)
    fig.update_yaxes(**_NUMBER_AXIS)
    if x_range is not None:
        fig.update_xaxes(range=list(x_range))
    fig.update_layout(
        template=TEMPLATE,
        height=sum(heights) + 80,
        margin={"l": 70, "r": 260, "t": 40, "b": 50},
        hovermode="x unified",
        showlegend=True,
    )
    return fig


def _task_bands(fig: go.Figure, spans: Sequence[tuple[str, float, float]]) -> None:
    # One band per task through all panels (plotly's add_vrect(row="all") costs seconds on big figures).
    band = {"type": "rect", "xref": "x", "yref": "paper", "y0": 0, "y1": 1, "opacity": 0.07}
    label = {"xref": "x", "yref": "paper", "y": 1, "xanchor": "left", "yanchor": "bottom"}
    fig.update_layout(
        shapes=[
            {**band, "x0": start, "x1": end, "fillcolor": COLORS[i % len(COLORS)], "line": {"width": 0}}
            | {"layer": "below"}
            for i, (_, start, end) in enumerate(spans)
        ],
        annotations=[
            *fig.layout.annotations,
            *(
                {**label, "text": task, "x": start, "showarrow": False, "font": {"size": 9}}
                for task, start, _ in spans
            ),
        ],
    )


def throughput_units(series: Sequence[TaskSeries]) -> list[str]:
    """The throughput units of the tasks with throughput lines, first-seen order (one panel each)."""
    units: list[str] = []
    for ts in series:
        if ts.throughput and ts.throughput_unit not in units:
            units.append(ts.throughput_unit)
    return units


def _overview_trace(ts: TaskSeries, t: int, line: Line, *, unit: str, several_sides: bool) -> go.Scatter:
    """A line of the overview: colour = task (one side) or side (a comparison, dash = task)."""
    trace = _scatter(line, unit=unit, several_sides=False, index=t, legendgroup=f"{ts.task}/{line.side}")
    if several_sides:
        trace.name = f"{line.source or line.side}: {ts.task}"
        trace.line.color = COLORS[line.side % len(COLORS)]
        trace.line.dash = _TASK_DASH[t % len(_TASK_DASH)]
    else:
        trace.name = ts.task
        trace.line.color = COLORS[t % len(COLORS)]
    return trace


def overview_figure(series: Sequence[TaskSeries], *, several_sides: bool) -> go.Figure:
    """Throughput over time of every task, one panel per throughput unit (docs/s and ops/s never
    share an axis; left), and the latency spectrum of every task (right, spanning the rows). One
    legend, right of the chart: one entry per task (and side), naming its throughput and spectrum
    lines. With one side the colour says the task; in a comparison the colour says the side and the
    dash the task. A y axis whose values span 100x or more is logarithmic."""
    units = throughput_units(series) or ["ops/s"]
    specs: list[list[dict[str, object] | None]] = [
        [{}, {"rowspan": len(units)} if r == 0 else None] for r in range(len(units))
    ]
    fig = make_subplots(
        rows=len(units),
        cols=2,
        specs=specs,
        column_widths=[0.6, 0.4],
        shared_xaxes=True,
        vertical_spacing=0.18 / len(units),
        horizontal_spacing=0.09,
        # Titles go to the grid's cells row by row: row 1 has both columns, later rows the left one.
        subplot_titles=[
            f"throughput over time ({units[0]})",
            "latency by percentile",
            *(f"throughput over time ({u})" for u in units[1:]),
        ],
    )
    for t, ts in enumerate(series):
        row = units.index(ts.throughput_unit) + 1 if ts.throughput else 1
        for line in ts.throughput:
            trace = _overview_trace(ts, t, line, unit=ts.throughput_unit, several_sides=several_sides)
            fig.add_trace(trace, row=row, col=1)
        for line in ts.latency_spectrum:
            trace = _overview_trace(ts, t, line, unit="ms", several_sides=several_sides)
            trace.showlegend = not ts.throughput
            fig.add_trace(trace, row=1, col=2)
    _overview_axes(fig, series, units)
    fig.update_layout(
        template=TEMPLATE,
        height=460,
        width=1200,
        margin={"l": 70, "r": 20, "t": 40, "b": 50},
        legend={"font": {"size": 10}, "x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top"},
        showlegend=bool(fig.data),
    )
    return fig


def _overview_axes(fig: go.Figure, series: Sequence[TaskSeries], units: Sequence[str]) -> None:
    aligned = all(ts.aligned for ts in series)
    for r, unit in enumerate(units, start=1):
        values = _positive([line for ts in series if ts.throughput_unit == unit for line in ts.throughput])
        if values and max(values) / min(values) >= 100:
            fig.update_yaxes(**_log_axis(values), row=r, col=1)
        else:
            fig.update_yaxes(rangemode="tozero", row=r, col=1)
        fig.update_yaxes(title_text=f"throughput ({unit})", row=r, col=1)
        if not values:
            _empty_note(fig, "no throughput windows recorded", row=r, col=1)
    time_title = TIME_AXIS_TITLE if aligned else "time since each task's measurement start (s)"
    fig.update_xaxes(title_text=time_title, row=len(units), col=1)
    spectra = [line for ts in series for line in ts.latency_spectrum]
    fig.update_xaxes(**spectrum_axis(spectra), row=1, col=2)
    fig.update_yaxes(title_text="latency (ms)", row=1, col=2)
    spectrum_values = _positive(spectra)
    if spectrum_values and max(spectrum_values) / min(spectrum_values) >= 100:
        fig.update_yaxes(**_log_axis(spectrum_values), row=1, col=2)
    else:
        fig.update_yaxes(rangemode="tozero", row=1, col=2)
    if not spectra:
        _empty_note(fig, "no latency histograms stored", row=1, col=2)
    fig.update_xaxes(**_NUMBER_AXIS)
    fig.update_yaxes(**_NUMBER_AXIS)
