"""The HTML report (``--report-format=html``) and the single-chart PNG (``--report-format=png``).

The HTML report is one self-contained file: plotly.js is inlined once in ``<head>`` (no network is
needed to open it), each chart is a plotly figure (:mod:`esbench.reporting.html_figures`) with its data
inlined as JSON. Sections, in order: the race header (or the compared sides) and warnings; an overview
(throughput over time and latency spectrum of all tasks); the telemetry panels on the race time axis;
per task, throughput / latency / service time over time beside the latency and service time spectra;
the summary table (the same rows as ``--report-format=text``). Zooming the time axis of one time chart
zooms all of them (a small script at the end of the page). docs/reporting.md describes the charts.

The PNG is :func:`esbench.reporting.html_figures.overview_figure`, rendered by kaleido, which drives
a locally installed Chrome or Chromium (Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

import plotly.graph_objects as go

from esbench.exceptions import ConfigError, UserError
from esbench.records import RaceResult
from esbench.reporting.compare import Comparison, Side, all_warnings
from esbench.reporting.compare_render import (
    HEADERS as COMPARE_HEADERS,
)
from esbench.reporting.compare_render import (
    SEED_HEADERS,
    STAT_HEADERS,
    TABLES,
    gate_lines,
    rally_rows,
    seed_rows,
)
from esbench.reporting.formats import GRAPHIC_FORMATS
from esbench.reporting.gate import GateResult
from esbench.reporting.html_figures import (
    overview_figure,
    spectrum_figure,
    task_timeline_figure,
    telemetry_figure,
    timeline_height,
)
from esbench.reporting.plot_data import (
    SideRaces,
    TaskSeries,
    race_sides,
    reported_task_names,
    task_series,
    task_spans,
    telemetry_panels,
    time_range,
)
from esbench.reporting.summary import HEADERS as SUMMARY_HEADERS
from esbench.reporting.summary import header_fields, summary_rows, summary_warnings

#: Size in px of the PNG chart.
PNG_SIZE = (1200, 460)

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;max-width:1400px;
padding:0 18px 40px;color:#222}
h1{font-size:22px;margin:18px 0 6px}h2{font-size:18px;margin:26px 0 6px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:18px 0 4px}
dl.race{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;font-size:13px;margin:0}
dl.race dt{color:#666}dl.race dd{margin:0}
.warn{background:#fff4e5;border-left:4px solid #f0a020;padding:6px 10px;font-size:13px;margin:4px 0}
.note{color:#666;font-size:12px}
.pair{display:grid;grid-template-columns:62% 38%;gap:0}
@media (max-width:1000px){.pair{grid-template-columns:100%}}
table.summary{border-collapse:collapse;font-size:12px;margin-top:6px}
table.summary th,table.summary td{border:1px solid #ddd;padding:2px 8px;text-align:right}
table.summary th{background:#f4f4f4}table.summary td.s{text-align:left}
td.better{color:#17803d;font-weight:600}td.worse{color:#c0262d;font-weight:600}
nav{font-size:13px}nav a{margin-right:10px}
"""

# Zooming the time axis of one time chart zooms every time chart (they share the race time axis).
_LINK_ZOOM_JS = """
(function(){
  var charts = Array.prototype.slice.call(document.querySelectorAll('.timeline .plotly-graph-div'));
  var busy = false;
  charts.forEach(function(g){
    g.on('plotly_relayout', function(ev){
      if (busy) return;
      var update = null;
      Object.keys(ev).forEach(function(k){
        var m = /^xaxis\\d*\\.(range\\[[01]\\]|range|autorange)$/.exec(k);
        if (!m) return;
        update = update || {};
        if (m[1] === 'autorange') update['xaxis.autorange'] = true;
        else if (m[1] === 'range') update['xaxis.range'] = ev[k];
        else update['xaxis.' + m[1]] = ev[k];
      });
      if (!update) return;
      busy = true;
      Promise.all(charts.filter(function(o){ return o !== g; }).map(function(o){
        return Plotly.relayout(o, update);
      })).then(function(){ busy = false; }, function(){ busy = false; });
    });
  });
})();
"""


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    # plotly ships no types: its return values are pinned here.
    js: str = get_plotlyjs()
    # "</script" inside the library would end the inline script early.
    return js.replace("</script", "<\\/script")


def _figure_div(fig: go.Figure, div_id: str) -> str:
    div: str = fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        div_id=div_id,
        config={"displaylogo": False, "responsive": True},
    )
    return div


def _table(
    headers: Sequence[str], rows: Sequence[Sequence[object]], classes: Sequence[Sequence[str]] = ()
) -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in headers)
    body = []
    for i, row in enumerate(rows):
        row_classes = classes[i] if i < len(classes) else ()
        cells = []
        for j, cell in enumerate(row):
            cls = [row_classes[j]] if j < len(row_classes) and row_classes[j] else []
            if isinstance(cell, str) and j < 2:
                cls.append("s")
            attr = f' class="{" ".join(cls)}"' if cls else ""
            cells.append(f"<td{attr}>{'' if cell is None else _esc(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table class="summary"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


def _charts(sides: Sequence[SideRaces]) -> str:
    """The chart sections of the page (overview, telemetry, per task)."""
    several = len(sides) > 1
    names = reported_task_names(sides)
    series = [task_series(sides, n) for n in names]
    panels, unplotted = telemetry_panels(sides)
    x_range = time_range(series, panels)
    parts = ['<h2 id="overview">Overview</h2>']
    overview = overview_figure(series, several_sides=several)
    overview.update_layout(width=None, height=420)
    parts.append(_figure_div(overview, "chart-overview"))
    if not all(ts.aligned for ts in series):
        parts.append(
            '<p class="note">A race here was stored before esbench recorded when each task started: its '
            "charts use seconds since each task's measurement start and are not linked to the telemetry "
            "time axis.</p>"
        )
    parts.append('<h2 id="telemetry">Telemetry</h2>')
    if panels:
        spans = task_spans(sides[0].races[0]) if not several and len(sides[0].races) == 1 else []
        fig = telemetry_figure(panels, several_sides=several, x_range=x_range, spans=spans)
        parts.append(f'<div class="timeline">{_figure_div(fig, "chart-telemetry")}</div>')
    else:
        parts.append(
            '<p class="note">No telemetry was recorded (run the race with --telemetry=... to add CPU, heap, '
            "GC, disk IO, page cache and rejection panels).</p>"
        )
    if unplotted:
        parts.append(
            f'<p class="note">{unplotted} telemetry series match no panel and are not drawn; they are in the '
            "results store (docs/reporting.md lists the panels' metric patterns).</p>"
        )
    for i, ts in enumerate(series):
        parts.append(_task_section(ts, i, several=several, x_range=x_range))
    return "\n".join(parts)


def _task_section(ts: TaskSeries, index: int, *, several: bool, x_range: tuple[float, float] | None) -> str:
    timeline = task_timeline_figure(ts, several_sides=several, x_range=x_range)
    spectrum = spectrum_figure(
        f"{ts.task}: by percentile",
        [*ts.latency_spectrum, *ts.service_time_spectrum],
        several_sides=several,
        height=timeline_height(ts),
    )
    klass = "timeline" if ts.aligned else "task-time"
    missing = [
        name for name, lines in (("latency", ts.latency), ("service time", ts.service_time)) if not lines
    ]
    note = (
        f'<p class="note">Per-second {" and ".join(missing)} percentiles were not recorded for this task '
        "(races stored before esbench recorded them have only the overall percentiles and the histograms)."
        "</p>"
        if missing and ts.throughput
        else ""
    )
    return (
        f'<h2 id="task-{index}">Task {_esc(ts.task)}</h2>{note}<div class="pair">'
        f'<div class="{klass}">{_figure_div(timeline, f"chart-task-{index}-time")}</div>'
        f"<div>{_figure_div(spectrum, f'chart-task-{index}-spectrum')}</div></div>"
    )


def _page(title: str, header: str, charts: str, table: str, warnings: Sequence[str], nav: str) -> str:
    warn = "".join(f'<div class="warn">{_esc(w)}</div>' for w in warnings)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_esc(title)}</title><style>{_CSS}</style>"
        f'<script type="text/javascript">{_plotly_js()}</script></head><body>'
        f"<h1>{_esc(title)}</h1>{header}{warn}<nav>{nav}</nav>{charts}"
        f'<h2 id="summary">Summary</h2>{table}'
        '<p class="note">Generated by esbench. Drag on a time chart to zoom all time charts; double-click '
        "to reset.</p>"
        f"<script>{_LINK_ZOOM_JS}</script></body></html>\n"
    )


def _nav(sides: Sequence[SideRaces]) -> str:
    links = ['<a href="#overview">Overview</a>', '<a href="#telemetry">Telemetry</a>']
    links += [f'<a href="#task-{i}">{_esc(n)}</a>' for i, n in enumerate(reported_task_names(sides))]
    links.append('<a href="#summary">Summary</a>')
    return "".join(links)


def render_race_html(race: RaceResult, *, show_processing_time: bool = False) -> str:
    """The HTML report of one race (see the module docstring); a complete document of a few MB."""
    sides = race_sides(race)
    header = (
        '<dl class="race">'
        + "".join(f"<dt>{_esc(k)}</dt><dd>{_esc(v)}</dd>" for k, v in header_fields(race))
        + "</dl>"
    )
    table = _table(SUMMARY_HEADERS, summary_rows(race, show_processing_time=show_processing_time))
    title = f"esbench report: {race.track} / {race.challenge} ({race.race_id[:8]})"
    return _page(title, header, _charts(sides), table, summary_warnings(race), _nav(sides))


def _side_item(role: str, side: Side) -> str:
    ids = ", ".join(r.race_id[:8] for r in side.races)
    tracks = ", ".join(sorted({r.track for r in side.races}))
    what = f"{side.label} ({len(side.races)} race(s) of {tracks}: {ids})"
    return f"<dt>{_esc(role)}</dt><dd>{_esc(what)}</dd>"


def _compare_table(comparison: Comparison, table: str) -> str:
    if table == "seed":
        return _table(SEED_HEADERS, seed_rows(comparison))
    headers = [*COMPARE_HEADERS, *(STAT_HEADERS if comparison.has_statistics else ())]
    parts = []
    for c in comparison.contenders:
        rows = rally_rows(comparison, c)
        classes = []
        for row in c.rows:
            better = row.improvement(comparison.alpha)
            mark = "" if better is None else ("better" if better else "worse")
            classes.append(["", "", "", "", mark, "", mark])
        if len(comparison.contenders) > 1:
            parts.append(f"<h3>Contender {_esc(c.contender.label)}</h3>")
        parts.append(_table(headers, rows, classes))
    return "".join(parts)


def render_compare_html(
    comparison: Comparison, *, table: str = "rally", gate: GateResult | None = None
) -> str:
    """The HTML report of a comparison: every chart with the baseline and the contenders overlaid
    (colour = side), and the compare table (``table``: ``rally`` or ``seed``) with improvements in green
    and regressions in red.

    Raises:
        ConfigError: unknown ``table``.
    """
    if table not in TABLES:
        raise ConfigError(f"Unknown table {table!r} given with --table. Use one of: {', '.join(TABLES)}.")
    sides = comparison_sides(comparison)
    header = (
        '<dl class="race">'
        + _side_item("Baseline", comparison.baseline)
        + "".join(_side_item("Contender", c.contender) for c in comparison.contenders)
        + "</dl>"
    )
    warnings = all_warnings(comparison)
    if gate is not None:
        warnings = [*warnings, *gate_lines(gate)]
    title = "esbench compare: " + " vs ".join(s.label for s in sides)
    return _page(title, header, _charts(sides), _compare_table(comparison, table), warnings, _nav(sides))


def write_png(sides: Sequence[SideRaces], path: Path) -> None:
    """Write the overview chart (:func:`~esbench.reporting.html_figures.overview_figure`) of ``sides``
    as a PNG of :data:`PNG_SIZE` px to ``path``.

    Raises:
        ConfigError: kaleido or a Chrome/Chromium browser is not installed.
        UserError: ``path`` cannot be written.
    """
    fig = overview_figure(
        [task_series(sides, n) for n in reported_task_names(sides)], several_sides=len(sides) > 1
    )
    try:
        import kaleido  # noqa: F401
    except ImportError as e:
        raise ConfigError(
            "--report-format=png needs the kaleido package: pip install 'esbench[png]' (or kaleido), and a "
            "Chrome or Chromium browser (Debian: apt-get install chromium). --report-format=html needs "
            "neither.",
            e,
        ) from e
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        image = fig.to_image(format="png", width=PNG_SIZE[0], height=PNG_SIZE[1])
    except OSError as e:
        raise UserError(f"Cannot write the PNG report {path}: {e}.", e) from e
    except Exception as e:  # kaleido raises its own ChromeNotFoundError and RuntimeErrors
        raise ConfigError(
            f"Could not render the PNG chart with kaleido: {e}. kaleido needs a Chrome or Chromium browser "
            "(Debian: apt-get install chromium; or set BROWSER_PATH). --report-format=html needs none.",
            e,
        ) from e
    try:
        path.write_bytes(image)
    except OSError as e:
        raise UserError(f"Cannot write the PNG report {path}: {e}.", e) from e


def comparison_sides(comparison: Comparison) -> list[SideRaces]:
    """The sides of a comparison: the baseline, then each contender."""
    return [SideRaces(label=comparison.baseline.label, races=comparison.baseline.races)] + [
        SideRaces(label=c.contender.label, races=c.contender.races) for c in comparison.contenders
    ]


def write_html(text: str, path: Path) -> None:
    """Write an HTML report to ``path`` (UTF-8), creating its directory.

    Raises:
        UserError: ``path`` cannot be written.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UserError(f"Cannot write the HTML report {path}: {e}.", e) from e


def _unknown_format(fmt: str) -> None:
    raise ConfigError(
        f"Unknown graphic report format {fmt!r} given with --report-format. Use one of: "
        f"{', '.join(GRAPHIC_FORMATS)}."
    )


def default_report_path(fmt: str, stem: str) -> Path:
    """Where a graphic report goes without ``--report-file``: ``./<stem>.<fmt>`` (html or png)."""
    return Path(f"{stem}.{fmt}")


def write_race_report(race: RaceResult, *, fmt: str, path: Path, show_processing_time: bool = False) -> None:
    """Write the ``html`` page or the ``png`` chart of one race to ``path``.

    Raises:
        ConfigError: unknown ``fmt``; for png, kaleido or a browser missing (see :func:`write_png`).
        UserError: ``path`` cannot be written.
    """
    if fmt == "html":
        write_html(render_race_html(race, show_processing_time=show_processing_time), path)
    elif fmt == "png":
        write_png(race_sides(race), path)
    else:
        _unknown_format(fmt)


def write_compare_report(
    comparison: Comparison, *, fmt: str, path: Path, table: str = "rally", gate: GateResult | None = None
) -> None:
    """Write the ``html`` page or the ``png`` chart of a comparison (sides overlaid) to ``path``.

    Raises:
        ConfigError: unknown ``fmt`` or ``table``; for png, kaleido or a browser missing.
        UserError: ``path`` cannot be written.
    """
    if fmt == "html":
        write_html(render_compare_html(comparison, table=table, gate=gate), path)
    elif fmt == "png":
        write_png(comparison_sides(comparison), path)
    else:
        _unknown_format(fmt)
