"""End to end: the HTML report of real races, opened in headless Chromium.

Two real races of ``tests/resources/tracks/compare-tiny`` against the real node, in test mode (the
first one writes its HTML report from ``esbench race --report-format=html``), then ``esbench report``
and ``esbench compare`` with ``--report-format=html`` (and ``png``). Each page is opened in Chromium
(``--dump-dom`` after the scripts ran) and the SVG paths plotly drew are read back: the charts must
show the stored data (as many points as the race has throughput windows, several distinct values),
not an empty canvas.
"""

from __future__ import annotations

import html
import json
import re
import sys
import uuid
from pathlib import Path

import harness
import pytest
from browser import ChartProbe, boxes_intersect, drawn_lines, dump_dom, png_colored_pixels, probe_charts
from harness import TRACKS, esbench
from telemetry_race import TelemetryRace

from esbench.reporting.numbers import shown
from esbench.results.store import ResultsStore

TRACK = TRACKS / "compare-tiny"


def run_race(hosts: list[str], index: str, tag: str, *extra: str) -> str:
    result = harness.race(
        TRACK,
        hosts,
        "--pipeline=benchmark-only",
        "--test-mode",
        f"--track-params=index_name:{index}",
        f"--user-tag=html:{tag}",
        "--quiet",
        *extra,
    )
    assert result.returncode == 0, f"esbench race failed:\n{result.stdout}\n{result.stderr}"
    with ResultsStore.open() as store:
        (race,) = store.resolve(f"tag:html:{tag}")
    return race.race_id


def task_index(page: str, task: str) -> int:
    """Position of ``task`` among the page's task sections (``<h2 id="task-N">Task NAME</h2>``)."""
    for i in range(20):
        if f'<h2 id="task-{i}">Task {task}</h2>' in page:
            return i
    raise AssertionError(f"no section for task {task}")


def test_html_reports_of_a_real_race_and_a_compare_draw_their_data(
    es_hosts: list[str], index: str, tmp_path: Path
) -> None:
    tag = uuid.uuid4().hex[:8]
    from_race = tmp_path / "from-race.html"
    base_id = run_race(es_hosts, index, f"{tag}-a", "--report-format=html", f"--report-file={from_race}")
    contender_id = run_race(es_hosts, index, f"{tag}-b")
    with ResultsStore.open() as store:
        base = store.get(base_id)
    term = base.task("term-query")
    assert term is not None and len(term.throughput_windows) >= 3, term
    assert from_race.is_file() and from_race.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    page = tmp_path / "race.html"
    result = esbench("report", base_id, "--report-format=html", f"--report-file={page}")
    assert result.returncode == 0, result.stderr
    text = page.read_text(encoding="utf-8")
    # self-contained: no external script, style or image (and Chromium below runs with no network)
    assert not re.search(r"<(script|link|img|iframe)\b[^>]*\b(src|href)=", text)
    t = task_index(text, "term-query")

    charts = drawn_lines(dump_dom(page))
    assert {"chart-overview", f"chart-task-{t}-time", f"chart-task-{t}-spectrum"} <= set(charts)
    # throughput over time: one point per stored window, and the values vary (it is not a flat line)
    (throughput, *percentile_lines) = charts[f"chart-task-{t}-time"]
    assert len(throughput.points) == len(term.throughput_windows)
    assert throughput.distinct_y >= 2
    assert len(percentile_lines) == sum(1 for v in term.latency_windows_ms.values() if v) + sum(
        1 for v in term.service_time_windows_ms.values() if v
    )
    # latency spectrum: latency and service time lines from the stored histograms, rising with p
    spectra = charts[f"chart-task-{t}-spectrum"]
    assert len(spectra) == 2
    for line in spectra:
        assert len(line.points) >= 10 and line.distinct_y >= 3
        ys = [y for _, y in line.points]
        assert ys[-1] < ys[0]  # SVG y grows downwards: the maximum is drawn highest
    assert len(charts["chart-overview"]) >= 2  # throughput and spectrum of the tasks
    # the page drawn by 'esbench race --report-format=html' has the same charts
    assert len(drawn_lines(dump_dom(from_race))[f"chart-task-{t}-time"]) == len(
        charts[f"chart-task-{t}-time"]
    )

    compare_page = tmp_path / "compare.html"
    result = esbench(
        "compare",
        f"--baseline={base_id}",
        f"--contender={contender_id}",
        "--report-format=html",
        f"--report-file={compare_page}",
    )
    assert result.returncode == 0, result.stderr
    compare_text = compare_page.read_text(encoding="utf-8")
    assert "Median Throughput" in compare_text and contender_id[:8] in compare_text
    t = task_index(compare_text, "term-query")
    compared = drawn_lines(dump_dom(compare_page))
    # both sides overlaid: two throughput lines and a latency + service time spectrum per side
    time_lines = compared[f"chart-task-{t}-time"]
    assert len(time_lines) >= 2 and all(len(line.points) >= 3 for line in time_lines[:2])
    assert len(compared[f"chart-task-{t}-spectrum"]) == 4
    probes = probe_charts(compare_page, tmp_path / "compare-probe.html")
    assert_readable(probes)
    # each side its own colour and a legend entry, both sides on seconds since their own start
    time_chart = probes[f"chart-task-{t}-time"]
    throughput = [tr for tr in time_chart.traces if tr["yaxis"] == "y"]
    assert [tr["name"] for tr in throughput] == [base_id[:8], contender_id[:8]]
    assert throughput[0]["color"] != throughput[1]["color"]
    assert time_chart.legends and time_chart.legends[0]["entries"] == 2
    assert time_chart.xrange[0] == 0 and time_chart.xrange[1] < 120  # seconds, not epoch seconds
    starts = [min(tr["x"]) for tr in throughput]
    # a test-mode race starts its search task seconds after its first sample, on both sides alike
    assert all(0 <= x < 30 for x in starts) and abs(starts[0] - starts[1]) < 5, starts
    overview = probes["chart-overview"]
    sides = {tr["color"] for tr in overview.traces}
    assert len(sides) == 2 and overview.legends[0]["entries"] == len(overview.traces) // 2
    spectrum = probes[f"chart-task-{t}-spectrum"]
    assert not any("/s" in str(tr["name"]) for tr in spectrum.traces)  # no "(docs/s)" beside latencies

    png = tmp_path / "race.png"
    result = esbench("report", base_id, "--report-format=png", f"--report-file={png}")
    assert result.returncode == 0, result.stderr
    width, height, colored = png_colored_pixels(png.read_bytes())
    assert (width, height) == (1200, 460)
    # the data lines are coloured; an empty chart (axes, grid, text) has no coloured pixel at all
    assert colored > 300


_ZOOM_PROBE = """<script>
document.addEventListener('esbench:charts-drawn', function () { setTimeout(function () {
  var g = document.getElementById('chart-task-0-time');
  Plotly.relayout(g, {'xaxis3.range[0]': 5, 'xaxis3.range[1]': 10}).then(function () {
    setTimeout(function () {
      var ranges = ['chart-telemetry', 'chart-task-1-time'].map(function (id) {
        return document.getElementById(id).layout.xaxis.range;
      });
      document.body.setAttribute('data-probe', JSON.stringify(ranges));
    }, 500);
  });
}, 200); });</script></body>"""


def test_zooming_one_time_chart_zooms_the_others(tmp_path: Path) -> None:
    """The page's linking script, run in Chromium on a synthetic race with telemetry and task start
    times (the races above have no telemetry device): zooming the service time row of one task's chart
    sets the same time range on the telemetry panels and on the other task's chart."""
    sys.path.append(str(Path(__file__).resolve().parents[1] / "unit" / "reporting"))
    import plotfactory

    from esbench.reporting.html import render_race_html

    page = tmp_path / "zoom.html"
    page.write_text(render_race_html(plotfactory.race()).replace("</body>", _ZOOM_PROBE), encoding="utf-8")
    probe = re.search(r'data-probe="([^"]*)"', dump_dom(page))
    assert probe is not None, "the probe script did not run"
    assert json.loads(html.unescape(probe.group(1))) == [[5, 10], [5, 10]]


def test_every_stored_window_is_drawn_even_on_a_straight_line(tmp_path: Path) -> None:
    """Plotly drops points it finds collinear at the drawn size unless told not to; a benchmark
    report must draw every window it stored (a steady throughput is a straight line)."""
    sys.path.append(str(Path(__file__).resolve().parents[1] / "unit" / "reporting"))
    import dataclasses

    import plotfactory

    from esbench.reporting.html import render_race_html

    race = plotfactory.race()
    steady = tuple(100.0 + 10.0 * k for k in range(10))  # exactly collinear
    term = dataclasses.replace(race.tasks[1], throughput_windows=steady)
    race = dataclasses.replace(race, tasks=(race.tasks[0], term))
    page = tmp_path / "steady.html"
    page.write_text(render_race_html(race), encoding="utf-8")
    t = task_index(page.read_text(encoding="utf-8"), "term")
    throughput, *_ = drawn_lines(dump_dom(page))[f"chart-task-{t}-time"]
    assert len(throughput.points) == len(steady)


_SI_TICK = re.compile(r"^-?[\d.,]+\s*[kMGTµmunp]$|^-?[\d.]+e[+-]?\d+$")


def assert_readable(probes: dict[str, ChartProbe]) -> None:
    """The page's charts as a person sees them: no two legends overlap (anywhere on the page), every
    axis title names a unit in parentheses, no tick is written with plotly's SI suffixes ("2B"), and
    the drawn values (what hovers show) are rounded as the tables round them."""
    legends = [(chart.id, legend["box"]) for chart in probes.values() for legend in chart.legends]
    assert legends, "no legend drawn"
    for i, (chart_a, a) in enumerate(legends):
        assert a["right"] > a["left"] and a["bottom"] > a["top"], (chart_a, a)
        for chart_b, b in legends[i + 1 :]:
            assert not boxes_intersect(a, b), f"legends overlap: {chart_a} {a} and {chart_b} {b}"
    for chart in probes.values():
        assert chart.titles, chart.id
        for title in chart.titles:
            assert re.search(r"\([^()]+\)$", title), f"{chart.id}: axis title without a unit: {title!r}"
        assert not [t for t in chart.ticks if _SI_TICK.match(t)], (chart.id, chart.ticks)
        # what a hover shows is the data: rounded as the tables round (3 significant digits / whole)
        for trace in chart.traces:
            values = [v for v in trace["y"] if isinstance(v, float)]
            assert all(shown(v) == v for v in values), (chart.id, trace["name"])


def test_synthetic_page_is_readable(tmp_path: Path) -> None:
    """A synthetic race with every telemetry panel and 12 write pools that rejected (tall legends)."""
    sys.path.append(str(Path(__file__).resolve().parents[1] / "unit" / "reporting"))
    import dataclasses

    import plotfactory

    from esbench.records import TelemetrySeries
    from esbench.reporting.html import render_race_html

    race = plotfactory.race()
    pools = tuple(
        TelemetrySeries(
            device="node-stats",
            metric=f"thread_pool.pool{k}.rejected",
            unit="",
            node="node-0",
            timestamps=tuple(plotfactory.T0 + i for i in range(30)),
            values=tuple(float(i * k) for i in range(30)),
        )
        for k in range(1, 13)
    )
    page = tmp_path / "synthetic.html"
    page.write_text(
        render_race_html(dataclasses.replace(race, telemetry=(*race.telemetry, *pools))), encoding="utf-8"
    )
    probes = probe_charts(page, tmp_path / "probe.html")
    assert_readable(probes)
    telemetry = probes["chart-telemetry"]
    assert len(telemetry.legends) == 6 and telemetry.legends[0]["entries"] == 13
    assert "Heap (%)" in telemetry.titles and "Disk IO (MiB/s)" in telemetry.titles


@pytest.mark.slow
def test_report_of_a_race_with_node_stats_and_os_telemetry_is_readable(
    telemetry_race: TelemetryRace, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A short race on a node esbench provisions (the os device watches only those), with node-stats
    and os telemetry (the session's race of tests/integration/telemetry_race.py, which the telemetry
    test reads too): its report in Chromium has no overlapping legends, units on every axis, human
    series names, and leaves out the thread pools that rejected nothing (saying so)."""
    monkeypatch.setenv("ESBENCH_HOME", str(telemetry_race.home))
    with ResultsStore.open() as store:
        (race,) = store.resolve(f"tag:case:{telemetry_race.case}")
    page = tmp_path / "telemetry.html"
    result = esbench("report", race.race_id, "--report-format=html", f"--report-file={page}")
    assert result.returncode == 0, f"esbench report failed:\n{result.stdout}\n{result.stderr}"
    text = page.read_text(encoding="utf-8")
    assert len(text.encode()) < 2_600_000  # plotly.js once, compressed; data rounded
    assert "rejection counters (thread pools, indexing pressure) rejected nothing" in text
    assert "jvm.mem.heap_used_in_bytes" not in text and "node-stats jvm" not in text
    probes = probe_charts(page, tmp_path / "probe.html")
    assert_readable(probes)
    telemetry = probes["chart-telemetry"]
    titles = set(telemetry.titles)
    assert {"CPU (%)", "Heap (%)"} <= titles
    assert any(re.fullmatch(r"Heap \((MiB|GiB)\)", t) for t in titles), titles
    names = {tr["name"] for tr in telemetry.traces}
    assert {"heap used", "machine cpu"} <= names, names
    # the key numbers of each task are at the top of the page
    key = text[text.index('<section id="key-numbers">') : text.index("</section>")]
    assert "index-append" in key and "term-query" in key and "docs/s" in key and "ops/s" in key
