"""The HTML report (``--report-format=html``) and the single-chart PNG (``--report-format=png``).

The HTML report is one self-contained file (:mod:`esbench.reporting.html_page`: plotly.js once,
compressed; no network is needed to open it); each chart is a plotly figure
(:mod:`esbench.reporting.html_figures`) with its data inlined as JSON, rounded as shown. Sections, in
order: the key numbers per task (median throughput, p50/p99 latency, error rate; on a comparison,
each with its change and significance: :mod:`esbench.reporting.html_tables`); the race header (or
the compared sides) and warnings; an overview (throughput over time, one panel per throughput unit,
and the latency spectrum of all tasks); the telemetry panels on the race time axis; per task,
throughput / latency / service time over time beside the latency and service time spectra; the
summary table (the rows of ``--report-format=text``, numbers as people read them). Zooming the time
axis of one time chart zooms all of them. docs/reporting.md describes the charts.

The PNG is :func:`esbench.reporting.html_figures.overview_figure`, rendered by kaleido, which drives
a locally installed Chrome or Chromium (Debian: ``apt-get install chromium``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from esbench.exceptions import ConfigError, UserError
from esbench.records import RaceResult
from esbench.reporting.compare import Comparison, Side, all_warnings
from esbench.reporting.compare_render import TABLES, gate_lines
from esbench.reporting.formats import GRAPHIC_FORMATS
from esbench.reporting.gate import GateResult
from esbench.reporting.html_figures import (
    overview_figure,
    spectrum_figure,
    task_timeline_figure,
    telemetry_figure,
    throughput_units,
    timeline_height,
)
from esbench.reporting.html_page import chart, esc, page
from esbench.reporting.html_tables import compare_key_numbers, compare_tables, key_numbers, summary_table
from esbench.reporting.plot_data import (
    SideRaces,
    TaskSeries,
    race_sides,
    reported_task_names,
    task_series,
    task_spans,
    time_range,
)
from esbench.reporting.plot_telemetry import TelemetryView, telemetry_view
from esbench.reporting.summary import header_fields, summary_warnings

#: Size in px of the PNG chart.
PNG_SIZE = (1200, 460)


def _telemetry_section(
    view: TelemetryView, sides: Sequence[SideRaces], x_range: tuple[float, float] | None
) -> str:
    parts = ['<h2 id="telemetry">Telemetry</h2>']
    several = len(sides) > 1
    if view.panels:
        spans = task_spans(sides[0].races[0]) if not several and len(sides[0].races) == 1 else []
        fig = telemetry_figure(view.panels, several_sides=several, x_range=x_range, spans=spans)
        parts.append(f'<div class="timeline">{chart(fig, "chart-telemetry")}</div>')
    elif not view.silent_rejections:
        parts.append(
            '<p class="note">No telemetry was recorded (run the race with --telemetry=... to add CPU, heap, '
            "GC, disk IO, page cache and rejection panels).</p>"
        )
    if view.silent_rejections:
        parts.append(
            f'<p class="note">{view.silent_rejections} rejection counters (thread pools, indexing pressure) '
            "rejected nothing during the race and are not drawn.</p>"
        )
    if view.unplotted:
        parts.append(
            f'<p class="note">{view.unplotted} telemetry series match no panel and are not drawn; they are '
            "in the results store (docs/reporting.md lists the panels' metric patterns).</p>"
        )
    return "".join(parts)


def _charts(sides: Sequence[SideRaces]) -> str:
    """The chart sections of the page (overview, telemetry, per task)."""
    several = len(sides) > 1
    series = [task_series(sides, n) for n in reported_task_names(sides)]
    view = telemetry_view(sides)
    x_range = time_range(series, view.panels)
    parts = ['<h2 id="overview">Overview</h2>']
    overview = overview_figure(series, several_sides=several)
    overview.update_layout(width=None, height=max(420, 220 * len(throughput_units(series))))
    if x_range is not None and all(ts.aligned for ts in series):
        overview.update_xaxes(range=list(x_range), col=1)  # the time axis of the charts below
    parts.append(chart(overview, "chart-overview"))
    if not all(ts.aligned for ts in series):
        parts.append(
            '<p class="note">A race here was stored before esbench recorded when each task started: its '
            "charts use seconds since each task's measurement start and are not linked to the telemetry "
            "time axis.</p>"
        )
    parts.append(_telemetry_section(view, sides, x_range))
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
        f'<h2 id="task-{index}">Task {esc(ts.task)}</h2>{note}<div class="pair">'
        f'<div class="{klass}">{chart(timeline, f"chart-task-{index}-time")}</div>'
        f"<div>{chart(spectrum, f'chart-task-{index}-spectrum')}</div></div>"
    )


def _body(
    title: str, header: str, key: str, charts: str, table: str, warnings: Sequence[str], nav: str
) -> str:
    warn = "".join(f'<div class="warn">{esc(w)}</div>' for w in warnings)
    return (
        f'<h1>{esc(title)}</h1><section id="key-numbers">{key}</section>{header}{warn}<nav>{nav}</nav>'
        f'{charts}<h2 id="summary">Summary</h2>{table}'
        '<p class="note">Generated by esbench. Drag on a time chart to zoom all time charts; double-click '
        "to reset.</p>"
    )


def _nav(sides: Sequence[SideRaces]) -> str:
    links = ['<a href="#overview">Overview</a>', '<a href="#telemetry">Telemetry</a>']
    links += [f'<a href="#task-{i}">{esc(n)}</a>' for i, n in enumerate(reported_task_names(sides))]
    links.append('<a href="#summary">Summary</a>')
    return "".join(links)


def render_race_html(race: RaceResult, *, show_processing_time: bool = False) -> str:
    """The HTML report of one race (see the module docstring); a complete document of about 2 MB."""
    sides = race_sides(race)
    header = (
        '<dl class="race">'
        + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in header_fields(race))
        + "</dl>"
    )
    table = summary_table(race, show_processing_time=show_processing_time)
    title = f"esbench report: {race.track} / {race.challenge} ({race.race_id[:8]})"
    body = _body(title, header, key_numbers(race), _charts(sides), table, summary_warnings(race), _nav(sides))
    return page(title, body)


def _side_item(role: str, side: Side) -> str:
    ids = ", ".join(r.race_id[:8] for r in side.races)
    tracks = ", ".join(sorted({r.track for r in side.races}))
    what = f"{side.label} ({len(side.races)} race(s) of {tracks}: {ids})"
    return f"<dt>{esc(role)}</dt><dd>{esc(what)}</dd>"


def render_compare_html(
    comparison: Comparison, *, table: str = "rally", gate: GateResult | None = None
) -> str:
    """The HTML report of a comparison: the key numbers with each change and its significance, every
    chart with the baseline and the contenders overlaid (colour = side), and the compare table
    (``table``: ``rally`` or ``seed``) with improvements in green and regressions in red.

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
    body = _body(
        title,
        header,
        compare_key_numbers(comparison),
        _charts(sides),
        compare_tables(comparison, table),
        warnings,
        _nav(sides),
    )
    return page(title, body)


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
