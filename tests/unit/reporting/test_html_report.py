"""The HTML report page, its plotly figures and the report/compare commands' html and png formats.

Synthetic races from plotfactory.py beside this file. The page drawn in a real browser is tested in
tests/integration/test_html_report_browser.py.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from esbench.cli import main
from esbench.exceptions import ConfigError, UserError
from esbench.reporting.compare import Side, compare_races
from esbench.reporting.gate import evaluate_gate
from esbench.reporting.html import (
    comparison_sides,
    render_compare_html,
    render_race_html,
    write_html,
    write_png,
)
from esbench.reporting.html_figures import (
    COLORS,
    LEGEND_ENTRY,
    ROW_HEIGHT,
    overview_figure,
    row_heights,
    spectrum_axis,
    spectrum_figure,
    task_timeline_figure,
    telemetry_figure,
)
from esbench.reporting.numbers import human, shown
from esbench.reporting.plot_data import Line, race_sides, task_series, task_spans
from esbench.reporting.plot_telemetry import telemetry_view
from esbench.results.store import ResultsStore

sys.path.append(str(Path(__file__).resolve().parent))
import plotfactory as pf


@pytest.fixture(scope="module")
def race():
    return pf.race(seed=5)


@pytest.fixture(scope="module")
def page(race) -> str:
    return render_race_html(race)


def test_page_is_self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    # plotly.js inlined once (gzip + base64), no external script, style sheet or image
    assert page.count("<script") == page.count("</script>")
    assert not re.search(r"<(script|link|img|iframe)\b[^>]*\b(src|href)=", page)
    assert page.count('id="plotly-gz"') == 1 and page.count("DecompressionStream('gzip')") == 1
    packed = re.search(r'<script type="text/plain" id="plotly-gz">([^<]*)</script>', page)
    assert packed is not None
    import base64
    import gzip

    assert b"Plotly" in gzip.decompress(base64.b64decode(packed.group(1)))
    # the page stays small: plotly.js alone is 4.8 MB uncompressed
    assert 1_500_000 < len(page.encode()) < 2_600_000


def test_page_has_every_chart_and_the_summary(race, page: str) -> None:
    for chart in (
        "overview",
        "telemetry",
        "task-0-time",
        "task-0-spectrum",
        "task-1-time",
        "task-1-spectrum",
    ):
        assert f'id="chart-{chart}"' in page
    assert '<h2 id="task-0">Task index-append</h2>' in page and '<h2 id="task-1">Task term</h2>' in page
    median = race.task("term").throughput_median
    assert "<td>Median Throughput</td>" not in page  # label cells are left-aligned strings
    assert f'<td class="s">Median Throughput</td><td class="s">term</td><td>{human(median)}</td>' in page
    assert "<dd>synthetic</dd>" in page  # the race header
    assert "1 telemetry series match no panel" in page
    # the figures carry the stored values as shown: the term task's throughput windows, rounded
    assert all(f"{shown(v)}" in page for v in race.task("term").throughput_windows[:3])
    assert not any(f"{v}" in page for v in race.task("term").throughput_windows[:3])


def test_timeline_figure_rows_and_values(race) -> None:
    ts = task_series(race_sides(race), "index-append")
    fig = task_timeline_figure(ts, several_sides=False, x_range=(0.0, 34.0))
    assert len(fig.data) == 1 + 4 + 4
    assert tuple(fig.data[0].y) == tuple(shown(v) for v in race.task("index-append").throughput_windows)
    assert [t.name for t in fig.data[1:5]] == ["p50", "p90", "p99", "p100"]
    # one legend per row, beside its row
    assert [t.legend for t in fig.data] == ["legend"] + ["legend2"] * 4 + ["legend3"] * 4
    assert tuple(fig.layout.xaxis.range) == (0.0, 34.0)
    assert fig.layout.yaxis.title.text == "throughput (docs/s)"


def test_timeline_figure_leaves_out_rows_without_data() -> None:
    old = pf.race(aligned=False)
    fig = task_timeline_figure(task_series(race_sides(old), "term"), several_sides=False, x_range=None)
    assert len(fig.data) == 1 and fig.layout.yaxis.title.text == "throughput (ops/s)"
    assert fig.layout.xaxis.title.text == "time since the task's measurement start (s)"


def test_telemetry_figure_panels_and_task_spans(race) -> None:
    panels = telemetry_view(race_sides(race)).panels
    fig = telemetry_figure(panels, several_sides=False, x_range=(0.0, 34.0), spans=task_spans(race))
    titles = ["Rejections", "GC", "Heap", "CPU", "Disk IO", "Page cache and memory"]
    assert [a.text for a in fig.layout.annotations][:6] == titles
    # every y axis names its panel and the unit its values are drawn in
    assert [fig.layout[f"yaxis{i if i > 1 else ''}"].title.text for i in range(1, 7)] == [
        "Rejections (per s)",
        "GC (ms)",
        "Heap (%)",
        "CPU (%)",
        "Disk IO (MiB/s)",
        "Page cache and memory (GiB)",
    ]
    assert fig.layout.xaxis6.title.text == "time since start (s)"
    assert fig.layout.yaxis5.exponentformat == "none"  # never plotly's "2B"
    assert len(fig.data) == 8
    # a shaded band per task through all panels, named at the top
    assert [(sh.x0, sh.x1, sh.yref) for sh in fig.layout.shapes] == [
        (2.0, 22.0, "paper"),
        (23.0, 33.0, "paper"),
    ]
    assert [a.text for a in fig.layout.annotations][6:] == ["index-append", "term"]
    # one legend per panel, at the top of its row
    assert {t.legend for t in fig.data} == {"legend"} | {f"legend{i}" for i in range(2, 7)}
    assert fig.layout.legend3.y == pytest.approx(fig.layout.yaxis3.domain[1])


def test_rows_grow_with_their_legends() -> None:
    assert row_heights([1, 4, 30]) == [ROW_HEIGHT, ROW_HEIGHT, 30 * LEGEND_ENTRY + 40]


def test_overview_has_one_throughput_panel_per_unit(race) -> None:
    series = [task_series(race_sides(race), n) for n in ("index-append", "term")]
    fig = overview_figure(series, several_sides=False)
    # docs/s and ops/s never share an axis: a row each on the left, the spectrum on the right
    assert fig.layout.yaxis.title.text == "throughput (docs/s)"
    assert fig.layout.yaxis3.title.text == "throughput (ops/s)"
    assert fig.data[0].yaxis == "y" and fig.data[2].yaxis == "y3"
    assert fig.layout.xaxis2.type == "log"  # the spectrum
    assert fig.layout.xaxis2.title.text == "percentile (%)"
    # the legend names the task once (its spectrum line is in the same legend group), no unit
    assert [(t.name, t.showlegend) for t in fig.data] == [
        ("index-append", None),
        ("index-append", False),
        ("term", None),
        ("term", False),
    ]
    assert fig.data[0].line.color != fig.data[2].line.color
    alone = overview_figure(series[1:], several_sides=False)
    assert alone.layout.yaxis.type != "log" and "yaxis3" not in alone.layout.to_plotly_json()


def test_log_axes_are_labelled_with_values_not_bare_digits(race) -> None:
    series = [task_series(race_sides(race), n) for n in ("index-append", "term")]
    fig = overview_figure(series, several_sides=False)
    spectrum = fig.layout.yaxis2
    if spectrum.type == "log":
        assert list(spectrum.ticktext) == [human(v) for v in spectrum.tickvals]


def test_spectrum_axis_reads_with_few_samples() -> None:
    few = [Line(name="latency", x=(1.0, 1.26, 1.58, 2.0, 3.0), y=(1.0, 2.0, 3.0, 4.0, 5.0))]
    axis = spectrum_axis(few)
    assert axis["ticktext"] == ["0%", "50%", "75%"]
    many = [Line(name="latency", x=(1.0, 10.0, 100.0, 2000.0), y=(1.0, 2.0, 3.0, 4.0))]
    assert spectrum_axis(many)["ticktext"] == ["0%", "90%", "99%", "99.9%"]


def test_spectrum_legend_has_no_throughput_unit(race) -> None:
    ts = task_series(race_sides(race), "index-append")
    fig = spectrum_figure("x", [*ts.latency_spectrum, *ts.service_time_spectrum], several_sides=False)
    assert [t.name for t in fig.data] == ["latency", "service time"]
    assert "%{y} ms" in fig.data[0].hovertemplate


def test_old_race_page_says_what_is_missing() -> None:
    page = render_race_html(pf.race(aligned=False))
    assert "No telemetry was recorded" in page
    assert "time since each task's measurement start (s)" in page
    assert "Per-second latency and service time percentiles were not recorded" in page
    assert 'id="chart-task-1-spectrum"' in page


def test_names_are_escaped(race) -> None:
    bad = "</script><b>x"
    task = dataclasses.replace(race.tasks[1], task=bad)
    page = render_race_html(dataclasses.replace(race, tasks=(race.tasks[0], task)))
    assert bad not in page
    assert "Task &lt;/script&gt;&lt;b&gt;x</h2>" in page


@pytest.fixture(scope="module")
def comparison():
    base = pf.race(seed=1)
    fast = pf.race(seed=2, speed=1.5)
    return compare_races(Side(label="tag:setup:a", races=(base,)), [Side(label="tag:setup:b", races=(fast,))])


def test_compare_page_overlays_the_sides(comparison) -> None:
    page = render_compare_html(comparison)
    assert "esbench compare: tag:setup:a vs tag:setup:b" in page
    assert 'id="chart-task-1-time"' in page and 'id="chart-telemetry"' in page
    # 1.5x faster contender: its throughput rows are improvements, its latency rows too
    assert page.count('<td class="better">') >= 8
    # the key numbers: each task's throughput, latencies and error rate with change and significance
    key = page[page.index('<section id="key-numbers">') : page.index("</section>")]
    # (the synthetic races store p50 and max latency only: no p99 row)
    assert key.count("<tr>") == 1 + 2 * 3 and "p99 latency" not in key
    assert "untested (one race per side)" in key and '<td class="better">+25%</td>' in key
    sides = comparison_sides(comparison)
    fig = task_timeline_figure(task_series(sides, "term"), several_sides=True, x_range=None)
    throughput = [t for t in fig.data if t.legend == "legend"]
    assert [t.name for t in throughput] == ["tag:setup:a", "tag:setup:b"]
    assert throughput[0].line.color != throughput[1].line.color  # colour says the side
    latency = [t for t in fig.data if t.legend == "legend2"]
    assert [t.line.dash for t in latency[:4]] == ["solid", "dash", "dot", "dashdot"]  # dash says p
    # the overview too: colour says the side, dash the task, every line in the legend
    overview = overview_figure([task_series(sides, n) for n in ("index-append", "term")], several_sides=True)
    names = [(t.name, t.line.color, t.line.dash) for t in overview.data if t.showlegend is not False]
    assert names == [
        ("tag:setup:a: index-append", COLORS[0], "solid"),
        ("tag:setup:b: index-append", COLORS[1], "solid"),
        ("tag:setup:a: term", COLORS[0], "dash"),
        ("tag:setup:b: term", COLORS[1], "dash"),
    ]


def test_compare_page_says_how_significant_each_difference_is() -> None:
    """Several races per side: compare's Welch's t-test decides, and the page says it per metric."""
    base = Side(label="a", races=(pf.race(seed=1), pf.race(seed=3), pf.race(seed=5)))
    fast = Side(
        label="b", races=(pf.race(seed=2, speed=2), pf.race(seed=4, speed=2), pf.race(seed=6, speed=2))
    )
    comparison = compare_races(base, [fast])
    page = render_compare_html(comparison)
    key = page[page.index('<section id="key-numbers">') : page.index("</section>")]
    row = next(r for r in comparison.contenders[0].rows if (r.task, r.key) == ("term", "throughput.median"))
    assert row.welch is not None and row.welch.significant(comparison.alpha)
    p = row.welch.p_value
    assert (f"significant (p = {human(p)})" if p >= 0.001 else "significant (p &lt; 0.001)") in key
    assert "<th>Baseline RSD %</th>" in page and "<th>Significance</th>" in page
    # no number on the page (outside the chart data) has more than 3 significant digits after its point
    text = re.sub(r"<script.*?</script>|<style>.*?</style>", "", page, flags=re.S)
    assert re.findall(r"[1-9]\d*\.\d{3,}|\b0\.0*[1-9]\d{3,}|\de-\d", text) == []


def test_compare_page_with_seed_table_and_gate(comparison) -> None:
    gate = evaluate_gate(comparison, fail_on_regression=1.0, thresholds=())
    page = render_compare_html(comparison, table="seed", gate=gate)
    assert "<th>Median Throughput Diff %</th>" in page
    assert "Regression gate" in page
    with pytest.raises(ConfigError, match="--table"):
        render_compare_html(comparison, table="nope")


def test_write_errors_are_user_errors(tmp_path: Path, race) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UserError, match="Cannot write the HTML report"):
        write_html("<html></html>", blocker / "sub" / "report.html")


def test_png_without_kaleido_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, race
) -> None:
    monkeypatch.setitem(sys.modules, "kaleido", None)  # import kaleido now raises ImportError
    with pytest.raises(ConfigError, match=r"pip install 'esbench\[png\]'"):
        write_png(race_sides(race), tmp_path / "r.png")
    assert not (tmp_path / "r.png").exists()


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_report_and_compare_commands_write_html(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, slow = pf.race(seed=1), pf.race(seed=2, speed=0.5)
    with ResultsStore.open() as store:
        store.save(base)
        store.save(slow)
    out = tmp_path / "out" / "race.html"
    code, stdout, stderr = run("report", base.race_id[:8], "--report-format=html", f"--report-file={out}")
    assert code == 0 and stdout == "" and f"Wrote the report to {out}." in stderr
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    monkeypatch.chdir(tmp_path)  # without --report-file the file goes to the working directory
    code, _, stderr = run("report", base.race_id, "--report-format=html")
    assert code == 0 and (tmp_path / f"esbench-report-{base.race_id[:8]}.html").is_file()

    code, stdout, stderr = run(
        "compare",
        f"--baseline={base.race_id}",
        f"--contender={slow.race_id}",
        "--report-format=html",
        "--fail-on-regression=10",
    )
    assert code == 3  # the gate still decides the exit status
    assert "Regression gate: FAILED" in stderr
    written = tmp_path / f"esbench-compare-{base.race_id[:8]}-{slow.race_id[:8]}.html"
    assert "Regression gate: FAILED" in written.read_text(encoding="utf-8")
