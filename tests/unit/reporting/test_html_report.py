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
from esbench.reporting.html_figures import overview_figure, task_timeline_figure, telemetry_figure
from esbench.reporting.plot_data import race_sides, task_series, task_spans, telemetry_panels
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
    # plotly.js inlined once, no external script, style sheet or image
    assert page.count("<script") == page.count("</script>")
    assert not re.search(r"<(script|link|img|iframe)\b[^>]*\b(src|href)=", page)
    head = page[: page.index("</head>")]
    assert len(head) > 1_000_000 and "Plotly" in head


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
    assert f'<td class="s">Median Throughput</td><td class="s">term</td><td>{median:.2f}</td>' in page
    assert "<dd>synthetic</dd>" in page  # the race header
    assert "1 telemetry series match no panel" in page
    # the figures carry the stored values: the term task's throughput windows are in the page's JSON
    assert all(f"{v}" in page for v in race.task("term").throughput_windows[:3])


def test_timeline_figure_rows_and_values(race) -> None:
    ts = task_series(race_sides(race), "index-append")
    fig = task_timeline_figure(ts, several_sides=False, x_range=(0.0, 34.0))
    assert len(fig.data) == 1 + 4 + 4
    assert tuple(fig.data[0].y) == race.task("index-append").throughput_windows
    assert [t.name for t in fig.data[1:5]] == ["p50", "p90", "p99", "p100"]
    # one legend per row, beside its row
    assert [t.legend for t in fig.data] == ["legend"] + ["legend2"] * 4 + ["legend3"] * 4
    assert tuple(fig.layout.xaxis.range) == (0.0, 34.0)
    assert fig.layout.yaxis.title.text == "throughput (docs/s)"


def test_timeline_figure_leaves_out_rows_without_data() -> None:
    old = pf.race(aligned=False)
    fig = task_timeline_figure(task_series(race_sides(old), "term"), several_sides=False, x_range=None)
    assert len(fig.data) == 1 and fig.layout.yaxis.title.text == "throughput (ops/s)"
    assert fig.layout.xaxis.title.text == "seconds since the task's measurement start"


def test_telemetry_figure_panels_and_task_spans(race) -> None:
    panels, _ = telemetry_panels(race_sides(race))
    fig = telemetry_figure(panels, several_sides=False, x_range=(0.0, 34.0), spans=task_spans(race))
    assert [a.text for a in fig.layout.annotations][:6] == [
        "Rejections",
        "GC (ms)",
        "Heap (%)",
        "CPU (%)",
        "Disk IO (bytes/s)",
        "Page cache and memory (bytes)",
    ]
    assert len(fig.data) == 8
    # a shaded band per task through all panels, named at the top
    assert [(sh.x0, sh.x1, sh.yref) for sh in fig.layout.shapes] == [
        (2.0, 22.0, "paper"),
        (23.0, 33.0, "paper"),
    ]
    assert [a.text for a in fig.layout.annotations][6:] == ["index-append", "term"]


def test_overview_uses_a_log_axis_for_throughputs_far_apart(race) -> None:
    series = [task_series(race_sides(race), n) for n in ("index-append", "term")]
    fig = overview_figure(series, several_sides=False)
    assert fig.layout.yaxis.type == "log"  # 40,000 docs/s beside 180 ops/s
    assert fig.layout.xaxis2.type == "log"  # the spectrum
    assert [t.name for t in fig.data] == [
        "index-append (docs/s)",
        "index-append (ms)",
        "term (ops/s)",
        "term (ms)",
    ]
    alone = overview_figure(series[1:], several_sides=False)
    assert alone.layout.yaxis.type != "log"


def test_old_race_page_says_what_is_missing() -> None:
    page = render_race_html(pf.race(aligned=False))
    assert "No telemetry was recorded" in page
    assert "seconds since each task's measurement start" in page
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
    sides = comparison_sides(comparison)
    fig = task_timeline_figure(task_series(sides, "term"), several_sides=True, x_range=None)
    throughput = [t for t in fig.data if t.legend == "legend"]
    assert [t.name for t in throughput] == ["tag:setup:a", "tag:setup:b"]
    assert throughput[0].line.color != throughput[1].line.color  # colour says the side
    latency = [t for t in fig.data if t.legend == "legend2"]
    assert [t.line.dash for t in latency[:4]] == ["solid", "dash", "dot", "dashdot"]  # dash says p


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
