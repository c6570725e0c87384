"""The trend as one self-contained HTML page: per task, the metric over races with its change points.

Like the race report (:mod:`esbench.reporting.html`), the page is built by
:mod:`esbench.reporting.html_page`: plotly.js inlined once (compressed) and each chart's figure as
JSON, so the page opens without a network. A chart's
x-axis counts the selected races (1 = the oldest); each segment between change points is drawn as
its mean (dotted), each change point as a vertical line before its first race, red for a regression
and green for an improvement, labelled with the change in % and its p-value. The table and the
verdict lines of the text report follow the charts.
"""

from __future__ import annotations

import html
import itertools
from pathlib import Path

import plotly.graph_objects as go

from esbench.exceptions import UserError
from esbench.trend.model import TaskTrend
from esbench.trend.render import HEADERS, change_text, table_rows, verdict_lines
from esbench.trend.report import TrendReport

_REGRESSION_COLOUR = "#c0262d"
_IMPROVEMENT_COLOUR = "#17803d"
_SERIES_COLOUR = "#1f5fa8"

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;max-width:1200px;
padding:0 18px 40px;color:#222}
h1{font-size:22px;margin:18px 0 6px}h2{font-size:17px;margin:24px 0 6px;border-bottom:1px solid #ddd}
pre.verdict{background:#f6f6f6;padding:8px 10px;font-size:13px;white-space:pre-wrap}
table{border-collapse:collapse;font-size:12px;margin-top:6px}
th,td{border:1px solid #ddd;padding:2px 8px;text-align:right}th{background:#f4f4f4}
td.regression{color:#c0262d;font-weight:600}td.improvement{color:#17803d;font-weight:600}
"""


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def trend_figure(report: TrendReport, trend: TaskTrend) -> go.Figure:
    """The chart of one task: points, segment means and change-point lines (see the module doc)."""
    ordinal = {race.race_id: n for n, race in enumerate(report.races, start=1)}
    points = trend.series.points
    unit = trend.series.unit
    xs = [ordinal[p.race_id] for p in points]
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[p.value for p in points],
            mode="lines+markers",
            name=report.metric.label,
            line={"color": _SERIES_COLOUR},
            text=[f"race {x} · {p.race_id[:8]} · {p.timestamp}" for x, p in zip(xs, points, strict=True)],
            hovertemplate="%{text}<br>%{y:.4g} " + unit + "<extra></extra>",
        )
    )
    bounds = [0, *(c.index for c in trend.change_points), len(points)]
    for start, end in itertools.pairwise(bounds):
        segment = [p.value for p in points[start:end]]
        if not segment:
            continue
        mean = sum(segment) / len(segment)
        fig.add_trace(
            go.Scatter(
                x=[xs[start], xs[end - 1]],
                y=[mean, mean],
                mode="lines",
                line={"color": "#888", "dash": "dot"},
                name="segment mean",
                showlegend=start == 0,
                hovertemplate=f"segment mean {mean:.4g} {unit}<extra></extra>",
            )
        )
    for change in trend.change_points:
        colour = _REGRESSION_COLOUR if change.regression else _IMPROVEMENT_COLOUR
        x = ordinal[change.race_id] - 0.5
        fig.add_vline(x=x, line={"color": colour, "dash": "dash", "width": 2})
        fig.add_annotation(
            x=x,
            y=1,
            yref="paper",
            text=change_text(change),
            showarrow=False,
            xanchor="left",
            yanchor="bottom",
            font={"color": colour, "size": 12},
        )
    fig.update_layout(
        height=380,
        margin={"l": 70, "r": 20, "t": 40, "b": 50},
        legend={"orientation": "h", "yanchor": "top", "y": -0.18, "x": 0},
        xaxis={"title": {"text": "race (oldest first)"}, "dtick": 1 if len(report.races) <= 30 else None},
        yaxis={"title": {"text": f"{report.metric.label} ({unit})"}, "rangemode": "tozero"},
        template="plotly_white",
    )
    return fig


def _table(report: TrendReport) -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in HEADERS[:4]) + f"<th>{_esc(report.metric.label)}</th>"
    head += "".join(f"<th>{_esc(h)}</th>" for h in HEADERS[5:])
    body = []
    for row in table_rows(report, "text"):
        change = str(row[-1])
        css = change.split(" ", 1)[0] if change else ""
        cells = "".join(f"<td>{_esc(c)}</td>" for c in row[:-1])
        body.append(f"<tr>{cells}<td class='{css}'>{_esc(change)}</td></tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def render_trend_html(report: TrendReport, *, title: str) -> str:
    """The whole page (UTF-8 text); ``title`` heads it (e.g. the selection).

    Built with the race report's page (:func:`esbench.reporting.html_page.page`): plotly.js inlined
    once, compressed, and each chart drawn from its JSON, so a trend page weighs what a report does.
    """
    from esbench.reporting.html_page import chart, page

    sections = []
    for n, trend in enumerate(report.trends):
        s = trend.series
        sections.append(
            f"<h2>{_esc(s.task)} <small>({_esc(s.track)} / {_esc(s.challenge)})</small></h2>"
            + chart(trend_figure(report, trend), f"trend-{n}")
        )
    verdict = "\n".join(verdict_lines(report))
    body = (
        f"<style>{_CSS}</style><h1>{_esc(title)}</h1><pre class='verdict'>{_esc(verdict)}</pre>"
        f"{''.join(sections)}<h2>Races</h2>{_table(report)}"
    )
    return page(title, body)


def write_trend_html(report: TrendReport, path: Path, *, title: str) -> None:
    """Write :func:`render_trend_html` to ``path``, creating its directory.

    Raises:
        UserError: ``path`` cannot be written.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_trend_html(report, title=title), encoding="utf-8")
    except OSError as e:
        raise UserError(f"Cannot write the trend report {path}: {e}.", e) from e
