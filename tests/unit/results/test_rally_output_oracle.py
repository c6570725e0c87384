"""``esbench compare``, ``race --report-file`` and ``list races --format=json`` against Rally 2.13's
own code, run in Rally's venv (``ESBENCH_RALLY_PYTHON``, default /work/venvs/rally/bin/python)
and fed the same races: the Rally-layout race documents esbench writes
(:func:`esbench.results.store_documents.race_document`), which Rally reads as its own.

- ``compare``: Rally's ``ComparisonReporter.report`` (esrally/reporter.py) prints its header block,
  its banner and the table, and appends the table to ``output.path``;
- ``--report-file``: Rally's ``write_single_report`` and OSB 2.4.0's ``write_single_results``
  (osbenchmark/publisher.py) print the report and append it to the file;
- ``list races --format=json``: Rally's ``list_races`` over its ``FileRaceStore`` (esrally/metrics.py),
  with each race's ``race.json`` in ``<root.dir>/races/<id>/``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from racefactory import make_race

from esbench.cli import main
from esbench.console import Console
from esbench.records import RaceResult
from esbench.reporting.formats import ReportFormat
from esbench.results.store import ResultsStore
from esbench.results.store_documents import race_document
from esbench.settings import RaceSettings, ReportSettings

RALLY_PYTHON = Path(os.environ.get("ESBENCH_RALLY_PYTHON", "/work/venvs/rally/bin/python"))
OSB_PYTHON = Path(os.environ.get("ESBENCH_OSB_PYTHON", "/work/venvs/osb/bin/python"))
needs_rally = pytest.mark.skipif(
    not RALLY_PYTHON.is_file(), reason=f"Rally's Python ({RALLY_PYTHON}) missing"
)

#: Runs one request (JSON on stdin) with Rally's (or OSB's) code; prints what it printed.
_ORACLE = r"""
import contextlib, io, json, os, sys
req = json.load(sys.stdin)
out = io.StringIO()
if req["what"] == "write-twice-osb":
    from osbenchmark import publisher
    with contextlib.redirect_stdout(out):
        for _ in range(2):
            publisher.write_single_results(req["file"], "markdown", req["cwd"], "right",
                                           req["headers"], req["rows"], req["rows"])
    print(out.getvalue(), end="")
    sys.exit(0)
from esrally import config, metrics, reporter
from esrally.utils import console

def cfg_of(opts):
    cfg = config.Config()
    for key, value in opts:
        cfg.add(config.Scope.application, key[0], key[1], value)
    return cfg

console.init(quiet=False, assume_tty=True)
with contextlib.redirect_stdout(out):
    if req["what"] == "compare":
        cfg = cfg_of([(("reporting", "output.path"), req["file"]), (("reporting", "format"), "markdown"),
                      (("node", "rally.cwd"), req["cwd"])])
        baseline, contender = (metrics.Race.from_dict(d) for d in req["races"])
        reporter.ComparisonReporter(cfg).report(baseline, contender)
    elif req["what"] == "write-twice":
        for _ in range(2):
            reporter.write_single_report(req["file"], "markdown", req["cwd"], "decimal",
                                         req["headers"], req["rows"], req["rows"])
    elif req["what"] == "list":
        root = req["root"]
        for doc in req["races"]:
            os.makedirs(os.path.join(root, "races", doc["race-id"]))
            with open(os.path.join(root, "races", doc["race-id"], "race.json"), "w") as f:
                json.dump(doc, f)
        cfg = cfg_of([(("system", "list.races.format"), "json"),
                      (("reporting", "datastore.type"), "in-memory"), (("system", "env.name"), "local"),
                      (("node", "root.dir"), root), (("system", "list.max_results"), 100)])
        metrics.list_races(cfg)
print(out.getvalue(), end="")
"""


def _peer(python: Path, request: dict[str, Any], home: Path) -> str:
    # TERM=dumb: Rally's plain console format (no bold or colour codes), as on a file or pipe.
    done = subprocess.run(
        [str(python), "-c", _ORACLE],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        env={**os.environ, "TERM": "dumb", "HOME": str(home)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _table_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("|")]


def _rows(text: str) -> list[list[str]]:
    """The cells of a pipe table's data rows (header and separator left out)."""
    return [[c.strip() for c in line.strip("|").split("|")] for line in _table_lines(text)[2:]]


def _number(cell: str) -> float:
    return float(cell.rstrip("%"))


@pytest.fixture
def pair(isolated_home: Path) -> tuple[RaceResult, RaceResult]:
    baseline = make_race(seed=1, tags={"setup": "1node", "lap": "3"}, timestamp="2026-01-01T00:00:00Z")
    contender = dataclasses.replace(
        make_race(seed=2, slowdown=1.25, tags={"setup": "3nodes"}, timestamp="2026-01-02T03:04:05Z"),
        car="defaults,4gheap",
    )
    with ResultsStore.open() as store:
        store.save(baseline)
        store.save(contender)
    return baseline, contender


@needs_rally
def test_compare_of_two_races_prints_rallys_header_and_appends_its_table(
    pair: tuple[RaceResult, RaceResult], tmp_path: Path
) -> None:
    baseline, contender = pair
    rally_file, ours_file = tmp_path / "rally" / "cmp.md", tmp_path / "ours" / "cmp.md"
    request = {
        "what": "compare",
        "file": str(rally_file),
        "cwd": str(tmp_path),
        "races": [race_document(r, "local") for r in pair],
    }
    rally = [_peer(RALLY_PYTHON, request, tmp_path) for _ in range(2)]
    ours = [
        _run(
            "compare",
            f"--baseline={baseline.race_id}",
            f"--contender={contender.race_id}",
            f"--report-file={ours_file}",
        )
        for _ in range(2)
    ]
    assert all(code == 0 for code, _, _ in ours)
    out = ours[0][1]
    # The header block: Rally's lines up to its banner, ours up to the table (esbench has no banner).
    rally_header = rally[0][: rally[0].index("\n---")].splitlines()
    our_header = out[: out.index("\n|")].rstrip("\n").splitlines()
    assert our_header == rally_header
    assert rally_header[:3] == ["", "Comparing baseline", f"  Race ID: {baseline.race_id}"]
    assert "  Race timestamp: 2026-01-02 03:04:05" in our_header and "  Car: defaults+4gheap" in our_header
    assert "  User tags: lap=3, setup=1node" in our_header
    # Printed, and appended to the file without the header: after two runs the file holds the table
    # twice, as Rally's does.
    rally_table = rally[0][rally[0].index("\n|") + 1 :]  # the table, and print()'s newline
    assert rally_file.read_text() == rally_table[:-1] * 2
    table = out[out.index("\n|") + 1 :]
    assert ours_file.read_text() == table * 2 and ours[1][1] == out
    assert "Comparing baseline" not in ours_file.read_text()
    # The same rows in the same order with the same values (esbench prints its own number format:
    # 2 decimals for rates, signed diffs; Rally prints tabulate's 6 significant digits).
    ours_rows, rally_rows = _rows(out), _rows(rally[0])
    assert [r[:2] for r in ours_rows if r[1]] == [r[:2] for r in rally_rows if r[1]]
    for o, r in zip((r for r in ours_rows if r[1]), (r for r in rally_rows if r[1]), strict=True):
        assert _number(o[2]) == pytest.approx(_number(r[2]), abs=0.006), o
        assert _number(o[3]) == pytest.approx(_number(r[3]), abs=0.006), o
        assert _number(o[6]) == pytest.approx(_number(r[6]), abs=0.006), o  # Diff %
    # Rally's compare names the per-shard rows "across primary shard" (its summary: "shards").
    assert {r[0] for r in ours_rows if not r[1]} == {
        re.sub(r"primary shard$", "primary shards", r[0]) for r in rally_rows if not r[1]
    }


def test_compare_of_groups_keeps_esbenchs_side_lines(isolated_home: Path) -> None:
    with ResultsStore.open() as store:
        for i in range(2):
            store.save(make_race(seed=30 + i, tags={"setup": "a"}))
            store.save(make_race(seed=40 + i, tags={"setup": "b"}))
    code, out, _ = _run("compare", "--baseline=tag:setup:a", "--contender=tag:setup:b")
    assert code == 0 and out.startswith("Baseline: tag:setup:a (2 races of track compare-tiny")
    assert "Comparing baseline" not in out


def test_compare_results_file_appends_under_osbs_spelling(
    pair: tuple[RaceResult, RaceResult], tmp_path: Path
) -> None:
    baseline, contender = pair
    target = tmp_path / "results.csv"
    outs = []
    for _ in range(2):
        code, out, err = _run(
            "compare", "-b", baseline.race_id, "-c", contender.race_id, "--results-format=csv",
            f"--results-file={target}",
        )  # fmt: skip
        assert code == 0 and f"Appended the report to {target}" in err
        outs.append(out)
    assert outs[0].startswith("Metric,Task,Baseline,") and target.read_text() == outs[0] * 2


def test_compare_json_file_holds_one_document(pair: tuple[RaceResult, RaceResult], tmp_path: Path) -> None:
    baseline, contender = pair
    target = tmp_path / "cmp.json"
    for _ in range(2):
        code, out, _ = _run(
            "compare", f"--baseline={baseline.race_id}", f"--contender={contender.race_id}",
            "--report-format=json", f"--report-file={target}",
        )  # fmt: skip
        assert code == 0
    assert json.loads(target.read_text()) == json.loads(out)


_HEADERS = ["Metric", "Task", "Value", "Unit"]
_ROWS = [["Median Throughput", "index", 1000.5, "docs/s"], ["error rate", "index", "0.00", "%"]]


@needs_rally
@pytest.mark.parametrize("peer", ["rally", "osb"])
def test_peers_print_and_append_the_report(peer: str, tmp_path: Path) -> None:
    """What esbench follows: both peers print the report and append it to the file."""
    python = RALLY_PYTHON if peer == "rally" else OSB_PYTHON
    if not python.is_file():
        pytest.skip(f"{peer}'s Python ({python}) missing")
    target = tmp_path / "sub" / "report.md"
    what = "write-twice" if peer == "rally" else "write-twice-osb"
    printed = _peer(python, {"what": what, "file": str(target), "cwd": str(tmp_path),
                             "headers": _HEADERS, "rows": _ROWS}, tmp_path)  # fmt: skip
    text = target.read_text()
    once = text[: len(text) // 2]
    assert text == once * 2 and once.startswith("|") and "Median Throughput" in once
    assert printed == (once + "\n") * 2  # print() of the table, each time


def test_race_report_file_is_printed_and_appended(
    isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from esbench.racecontrol.store import store_and_report

    target = tmp_path / "sub" / "report.md"
    settings = RaceSettings(report=ReportSettings(fmt=ReportFormat.MARKDOWN, file=target))
    printed = []
    for seed in (1, 2):
        race = make_race(seed=seed)
        race_dir = isolated_home / "races" / race.race_id
        race_dir.mkdir(parents=True)
        store_and_report(race, race_dir, settings, Console(sys.stderr))
        captured = capsys.readouterr()
        assert f"Report appended to {target}" in captured.err
        printed.append(captured.out)
    # print() adds its newline on the console, as Rally's print_internal does; the file gets the report.
    assert printed[0] != printed[1] and target.read_text() == printed[0][:-1] + printed[1][:-1]


@needs_rally
def test_list_races_json_is_rallys_file_store_listing(isolated_home: Path, tmp_path: Path) -> None:
    (isolated_home / "esbench.ini").write_text("[system]\nenv.name = nightly\n")
    recorded = dataclasses.replace(
        make_race(seed=3, tags={"lap": "3"}, timestamp="2026-01-03T00:00:00Z"), environment="ci"
    )
    older = make_race(seed=4, timestamp="2026-01-01T00:00:00Z", track="other")  # no environment recorded
    with ResultsStore.open() as store:
        store.save(recorded)
        store.save(older)
    code, out, _ = _run("list", "races", "--format=json")
    assert code == 0
    ours = json.loads(out)

    def rally_doc(race: RaceResult, environment: str) -> dict[str, Any]:
        # What Rally's race.json would hold for this race: esbench lists its own version as the tool's.
        doc = race_document(race, environment)
        doc["rally-version"] = race.esbench_version
        doc["user-tags"] = dict(race.user_tags)  # as stored
        return doc

    docs = [rally_doc(recorded, "ci"), rally_doc(older, "nightly")]
    printed = _peer(RALLY_PYTHON, {"what": "list", "root": str(tmp_path / "rally"), "races": docs}, tmp_path)
    rally = json.loads(printed[printed.index("{") :])
    assert ours == rally
    first = ours["races"][0]
    assert first["environment"] == "ci" and ours["races"][1]["environment"] == "nightly"
    assert first["user-tags"] == {"lap": "3"}  # as stored (the results store keeps tag values as text)
    assert first["results"]["op_metrics"][0]["task"] == "index-append"
    assert list(first)[:11] == [
        "rally-version", "rally-revision", "environment", "race-id", "race-timestamp", "pipeline",
        "user-tags", "track", "car", "cluster", "results",
    ]  # fmt: skip
