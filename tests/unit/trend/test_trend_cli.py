"""``esbench trend`` on a results store of synthetic races: formats, verdict, exit codes."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from trendraces import history, race, task

from esbench.cli import main
from esbench.results.store import ResultsStore


def _store(path: Path, races: list) -> Path:
    with ResultsStore.open(path) as store:
        for r in races:
            store.save(r)
    return path


def _step(up: bool, tags: dict[str, str] | None = None) -> list:
    rng = random.Random(1)
    low = [rng.gauss(10.0, 0.1) for _ in range(10)]
    high = [rng.gauss(12.0, 0.1) for _ in range(5)]
    return history(low + high if up else high + low, tags=tags)


def _trend(db: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["trend", f"--results-db={db}", *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def db(tmp_path: Path) -> Path:
    races = _step(True, {"job": "up"}) + [
        r.__class__(
            **{**r.__dict__, "race_id": r.race_id.replace("0000", "1111", 1), "user_tags": {"job": "down"}}
        )
        for r in _step(False)
    ]
    return _store(tmp_path / "results.db", races)


def test_fail_on_change_exit_codes(db: Path) -> None:
    code, out, _ = _trend(db, "--user-tag=job:up", "--metric=latency-p50", "--fail-on-change")
    assert code == 3
    assert "Trend verdict: REGRESSION (1 task whose newest races start one):" in out
    assert "[search] Latency p50 rose" in out and "at race 11" in out
    # Throughput falls at the same race: also a regression.
    assert _trend(db, "--user-tag=job:up", "--metric=throughput-median", "--fail-on-change")[0] == 3
    # Without the flag: shown, exit 0.
    code, out, _ = _trend(db, "--user-tag=job:up", "--metric=latency-p50")
    assert code == 0 and "Trend verdict: REGRESSION" in out
    # An improvement (latency falls, throughput rises) passes.
    for metric in ("latency-p50", "throughput-median"):
        code, out, _ = _trend(db, "--user-tag=job:down", f"--metric={metric}", "--fail-on-change")
        assert code == 0 and "improvement" in out and "Trend verdict: no regression" in out
    # Only the regressed races: no change left, the gate passes.
    assert _trend(db, "--user-tag=job:up", "--limit=5", "--metric=latency-p50", "--fail-on-change")[0] == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--user-tag=job:nothing"], "No completed stored race matches user tag job=nothing"),
        (["--track=other"], "No completed stored race matches track 'other'"),
        (["--metric=latency-p5x"], "Unknown --metric 'latency-p5x'"),
        (["--task=nope"], "No selected race ran the task(s) 'nope' (--task)"),
        (["--source=metrics-store"], "needs --metrics-store=URL"),
    ],
)
def test_bad_input_exits_64(db: Path, args: list[str], message: str) -> None:
    code, _, err = _trend(db, "--fail-on-change", *args)
    assert code == 64
    assert message in err


def test_an_empty_store_is_a_user_error(tmp_path: Path) -> None:
    code, _, err = _trend(_store(tmp_path / "empty.db", []))
    assert code == 64 and "No completed race is stored" in err


def test_formats(db: Path, tmp_path: Path) -> None:
    args = ("--user-tag=job:up", "--metric=latency-p50")
    code, out, err = _trend(db, *args, "--report-format=json")
    rows = json.loads(out)
    assert code == 0 and len(rows) == 15
    assert list(rows[0]) == ["race", "race_id", "race_timestamp", "task", "latency_p50", "unit", "change"]
    assert [r["race"] for r in rows if r["change"]] == [11]
    assert rows[10]["change"].startswith("regression +") and rows[10]["unit"] == "ms"
    assert "Trend verdict: REGRESSION" in err  # json stays parseable: the verdict goes to stderr
    code, out, err = _trend(db, *args, "--report-format=csv")
    table = list(csv.reader(io.StringIO(out)))
    assert table[0][4] == "Latency p50" and len(table) == 16 and "Trend verdict" in err
    code, out, _ = _trend(db, *args, "--report-format=markdown")
    assert out.startswith("|   Race |") and "| regression +" in out and "Trend verdict" in out
    target = tmp_path / "out" / "trend.csv"
    code, out, err = _trend(db, *args, "--report-format=csv", f"--report-file={target}")
    assert code == 0 and out == "" and target.read_text().startswith("Race,") and "Wrote the report" in err


def test_html_page(db: Path, tmp_path: Path) -> None:
    page = tmp_path / "trend.html"
    code, _, err = _trend(
        db, "--user-tag=job:up", "--metric=latency-p50", "--report-format=html", f"--report-file={page}"
    )
    assert code == 0 and "Trend verdict: REGRESSION" in err
    text = page.read_text()
    # Self-contained: plotly.js inlined once, one chart's figure as JSON, nothing fetched.
    assert text.count('id="plotly-gz"') == 1 and text.count('class="chart-data"') == 1
    assert "<script src" not in text
    assert "esbench trend: Latency p50 of user tag job=up" in text
    assert "regression +" in text and "<td class='regression'>" in text


def test_only_completed_races_of_the_challenge_count(tmp_path: Path) -> None:
    races = [race(n, task(latency_p50=10.0 + (n % 2) * 0.01)) for n in range(12)]
    races += [
        race(20, task(latency_p50=50.0), status="failed"),
        race(21, task(latency_p50=50.0), challenge="x"),
    ]
    db = _store(tmp_path / "r.db", races)
    code, out, _ = _trend(db, "--challenge=c", "--metric=latency-p50", "--report-format=json")
    assert code == 0 and len(json.loads(out)) == 12
