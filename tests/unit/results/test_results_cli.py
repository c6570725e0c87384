"""The results commands through click: list races, compare (formats, gate, thresholds), report, delete."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from racefactory import make_race

from esbench.cli import main
from esbench.cli._tags import parse_tag_filter, parse_user_tags
from esbench.exceptions import UserError
from esbench.records import RaceResult
from esbench.results.store import ResultsStore


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def races(isolated_home: Path) -> dict[str, RaceResult]:
    """Three baseline races (1node), three 25 % slower ones (3nodes), one failed, one other track."""
    out: dict[str, RaceResult] = {}
    for i in range(3):
        out[f"base{i}"] = make_race(seed=i, tags={"setup": "1node"}, timestamp=f"2026-01-0{i + 1}T00:00:00Z")
        out[f"slow{i}"] = make_race(
            seed=10 + i, slowdown=1.25, tags={"setup": "3nodes"}, timestamp=f"2026-01-1{i}T00:00:00Z"
        )
    out["failed"] = make_race(
        seed=20, status="failed", tasks=("index-append",), timestamp="2026-02-01T00:00:00Z"
    )
    out["other"] = make_race(
        seed=21, track="other", tags={"setup": "other"}, timestamp="2026-02-02T00:00:00Z"
    )
    with ResultsStore.open() as store:
        for race in out.values():
            store.save(race)
    return out


def test_parse_tag_filter() -> None:
    assert parse_tag_filter(["setup:3nodes, env:ci", "url:http://x:1"]) == {
        "setup": ("3nodes",),
        "env": ("ci",),
        "url": ("http://x:1",),
    }
    # The same key twice is either value (a race has one value per key), not the last one given.
    assert parse_tag_filter(["setup:a", "setup:b,setup:a"]) == {"setup": ("a", "b")}
    with pytest.raises(UserError, match="entry 'novalue' has no ':'"):
        parse_tag_filter(["novalue"])


def _ids(out: str) -> list[str]:
    return [d["race-id"] for d in json.loads(out)["races"]]


def test_list_races_text_has_rallys_columns(races: dict[str, RaceResult]) -> None:
    code, out, _ = run("list", "races", "--limit=0")
    assert code == 0
    assert out.index(races["other"].race_id) < out.index(races["base0"].race_id)  # newest first
    header = out.splitlines()[3]
    # Rally 2.13's columns (esrally/metrics.py, list_races), in its order.
    assert re.split(r"\s{2,}", header.strip()) == [
        "Race ID",
        "Race Timestamp",
        "Track",
        "Challenge",
        "Car",
        "ES Version",
        "Revision",
        "Rally Version",
        "Track Revision",
        "Team Revision",
        "User Tags",
    ]
    row = next(line for line in out.splitlines() if line.startswith(races["base0"].race_id))
    # Rally's timestamp format and user tags as key=value.
    assert "20260101T000000Z" in row and row.rstrip().endswith("setup=1node")


def test_list_races_json_has_rallys_keys(races: dict[str, RaceResult]) -> None:
    code, out, _ = run("list", "races", "--user-tag=setup:3nodes", "--format=json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == ["races"]
    assert _ids(out) == [races[f"slow{i}"].race_id for i in (2, 1, 0)]
    first = data["races"][0]
    assert first["user-tags"] == {"setup": "3nodes"} and first["track-params"]["bulk_size"] == 500
    assert first["race-timestamp"] == "20260112T000000Z"
    assert first["cluster"]["distribution-version"] == races["slow2"].cluster_version
    assert {"rally-version", "environment", "pipeline", "car", "track"} <= set(first)


def test_list_races_filters(races: dict[str, RaceResult]) -> None:
    code, out, _ = run("list", "races", "--limit=2", "--format=json")
    assert len(_ids(out)) == 2
    assert _ids(run("list", "races", "--track=other", "--format=json")[1]) == [races["other"].race_id]
    assert _ids(run("list", "races", "--status=failed", "--format=json")[1]) == [races["failed"].race_id]
    code, out, _ = run("list", "races", "--user-tag=setup:none")
    assert code == 0 and "No recent races found" in out
    # Both sides of a comparison at once: a repeated key is either value; other keys still narrow.
    code, out, _ = run("list", "races", "--user-tag=setup:1node", "--user-tag=setup:3nodes", "--format=json")
    assert set(_ids(out)) == {races[f"{side}{i}"].race_id for side in ("base", "slow") for i in range(3)}
    code, out, _ = run(
        "list", "races", "--user-tags=setup:1node,setup:other", "--track=other", "--format=json"
    )
    assert _ids(out) == [races["other"].race_id]
    # Rally's dates: yyyyMMdd, both days included.
    code, out, _ = run("list", "races", "--from-date=20260102", "--to-date=20260110", "--format=json")
    assert _ids(out) == [races["slow0"].race_id, races["base2"].race_id, races["base1"].race_id]
    # The limit counts the races that pass every filter.
    code, out, _ = run("list", "races", "--to-date=20260103", "--limit=1", "--format=json")
    assert _ids(out) == [races["base2"].race_id]
    code, out, _ = run("list", "races", f"--challenge={races['base0'].challenge}x", "--format=json")
    assert _ids(out) == []
    code, _, err = run("list", "races", "--from-date=2026-01-02")
    assert code == 64 and "--from-date" in err and "yyyyMMdd" in err


def test_list_races_benchmark_name(isolated_home: Path) -> None:
    named = make_race(seed=1, tags={"name": "nightly"}, timestamp="2026-01-01T00:00:00Z")
    benchmark = make_race(seed=2, tags={"benchmark-name": "nightly"}, timestamp="2026-01-02T00:00:00Z")
    other = make_race(seed=3, tags={"name": "weekly"}, timestamp="2026-01-03T00:00:00Z")
    with ResultsStore.open() as store:
        for race in (named, benchmark, other):
            store.save(race)
    code, out, _ = run("list", "races", "--benchmark-name=nightly", "--format=json")
    assert code == 0 and _ids(out) == [benchmark.race_id, named.race_id]


def test_list_races_empty_store(isolated_home: Path) -> None:
    code, out, err = run("list", "races")
    # Rally's and OSB's words, on stdout after a blank line (esrally/metrics.py list_races).
    assert code == 0 and out == "\nNo recent races found.\n" and err == ""
    code, out, _ = run("list", "races", "--format=json")
    assert json.loads(out) == {"races": []}


def test_environment_needs_the_metrics_store(races: dict[str, RaceResult]) -> None:
    for args in (("list", "races"), ("report", races["base0"].race_id)):
        code, _, err = run(*args, "--environment=nightly")
        assert code == 64 and "--source=metrics-store" in err, err


def test_metrics_store_source_needs_a_metrics_store(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ESBENCH_METRICS_STORE", raising=False)
    for args in (("list", "races"), ("report", "abc"), ("compare", "--baseline=a", "--contender=b")):
        code, _, err = run(*args, "--source=metrics-store")
        assert code == 64 and "--source=metrics-store needs --metrics-store=URL" in err, err


def test_compare_single_races_text(races: dict[str, RaceResult]) -> None:
    code, out, _ = run(
        "compare", f"--baseline={races['base0'].race_id[:10]}", f"--contender={races['slow0'].race_id}"
    )
    assert code == 0
    assert "| Median Throughput | index-append |" in " ".join(out.split()).replace("| ", "| ").replace(
        "  ", " "
    )
    assert "Baseline RSD" not in out  # one race per side: no statistics columns
    assert "\x1b[" not in out  # not a TTY


def test_compare_tags_seed_table_and_statistics(races: dict[str, RaceResult]) -> None:
    code, out, _ = run(
        "compare", "--baseline=tag:setup:1node", "--contender=tag:setup:3nodes", "--table=seed"
    )
    assert code == 0
    assert "Median Throughput" in out and "P99 latency (ms)" in out
    assert "tag:setup:1node (baseline)" in out and "merged HDR histograms" in out
    code, out, _ = run("compare", "--baseline=tag:setup:1node", "--contender=tag:setup:3nodes")
    assert "Significant" in out and "Welch's t-test" in out and "| yes |" in " ".join(out.split())


def test_gate_exit_3_on_slower_and_0_on_repeat(races: dict[str, RaceResult]) -> None:
    code, out, _ = run(
        "compare", "--baseline=tag:setup:1node", "--contender=tag:setup:3nodes", "--fail-on-regression=10"
    )
    assert code == 3
    assert "Regression gate: FAILED" in out
    assert "index-append: Median Throughput fell" in out and "term-query: 99th percentile latency rose" in out
    base = races["base0"].race_id
    code, out, _ = run("compare", f"--baseline={base}", f"--contender={base}", "--fail-on-regression=10")
    assert code == 0 and "Regression gate: passed." in out
    assert "[WARNING] The contender (" + base[:8] + ") is the same race as the baseline" in out


def test_gate_with_report_file_and_csv_prints_verdict_to_stderr(
    races: dict[str, RaceResult], tmp_path: Path
) -> None:
    report = tmp_path / "out" / "cmp.csv"
    code, out, err = run(
        "compare",
        "--baseline=tag:setup:1node",
        "--contender=tag:setup:3nodes",
        "--report-format=csv",
        f"--report-file={report}",
        "--fail-on-regression=10",
        "--color",
    )
    # Printed and appended to the file, as Rally's write_single_report does; the csv carries no
    # verdict, so it goes to stderr.
    assert code == 3 and out.startswith("Metric,Task,")
    assert "Regression gate: FAILED" in err and f"Appended the report to {report}" in err
    text = report.read_text()
    assert "\x1b[" not in text and text == out
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][:7] == ["Metric", "Task", "Baseline", "Contender", "Diff", "Unit", "Diff %"]


@pytest.mark.parametrize("fmt", ["text", "markdown", "csv", "json"])
def test_compare_all_formats_several_contenders(races: dict[str, RaceResult], fmt: str) -> None:
    code, out, _ = run(
        "compare",
        "--baseline=tag:setup:1node",
        "--contender=tag:setup:3nodes",
        f"--contender={races['base1'].race_id}",
        f"--report-format={fmt}",
    )
    assert code == 0
    if fmt == "json":
        data = json.loads(out)
        assert [c["label"] for c in data["contenders"]] == ["tag:setup:3nodes", races["base1"].race_id[:8]]
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(out)))
        assert rows[0][-1] == "Contender race(s)" and len({r[-1] for r in rows[1:]}) == 2
    else:
        assert "Contender 1 of 2" in out and "Contender 2 of 2" in out
        assert ("### " in out) == (fmt == "markdown")


def test_compare_color_flag(races: dict[str, RaceResult]) -> None:
    _, colored, _ = run("compare", "--baseline=tag:setup:1node", "--contender=tag:setup:3nodes", "--color")
    assert "\x1b[31m" in colored
    _, plain, _ = run("compare", "--baseline=tag:setup:1node", "--contender=tag:setup:3nodes", "--no-color")
    assert "\x1b[" not in plain


def test_compare_different_track_and_failed_race_warn(races: dict[str, RaceResult]) -> None:
    code, out, _ = run("compare", f"--baseline={races['base0'].race_id}", "--contender=tag:setup:other")
    assert (
        code == 0
        and "[WARNING] The baseline ran track compare-tiny but the contender (tag:setup:other) ran other"
        in out
    )
    code, out, _ = run(
        "compare",
        f"--baseline={races['base0'].race_id}",
        f"--contender={races['failed'].race_id}",
        "--fail-on-regression=50",
    )
    # A contender that did not complete is not a regression: the gate could not judge (exit 4).
    assert code == 4 and "Regression gate: FAILED, not measured on both sides" in out
    allowed, out_allowed, _ = run(
        "compare",
        f"--baseline={races['base0'].race_id}",
        f"--contender={races['failed'].race_id}",
        "--fail-on-regression=50",
        "--allow-missing",
    )
    assert allowed == 0 and "allowed by --allow-missing" in out_allowed
    assert f"contender race {races['failed'].race_id} ({races['failed'].race_id[:8]}) failed: boom" in out
    assert "Tasks only in the baseline" in out and "term-query: no result in the contender" in out


def test_compare_unknown_and_ambiguous_refs(races: dict[str, RaceResult], isolated_home: Path) -> None:
    code, _, err = run("compare", "--baseline=tag:setup:1nod", "--contender=tag:setup:3nodes")
    assert code == 64 and "Close matches: tag:setup:1node" in err and "Traceback" not in err
    code, _, err = run("compare", "--baseline=zzzz", "--contender=tag:setup:3nodes")
    assert code == 64 and "No race with id or id prefix 'zzzz'" in err
    # Padding is ignored as resolve() ignores it: still a tag side, labelled as such.
    code, out, _ = run("compare", "--baseline= tag:setup:1node ", "--contender=tag:setup:3nodes")
    assert code == 0 and "Baseline: tag:setup:1node (3 races" in out
    with ResultsStore.open() as store:
        store.save(dataclasses.replace(races["base0"], race_id="dup-1"))
        store.save(dataclasses.replace(races["base0"], race_id="dup-2"))
    code, _, err = run("compare", "--baseline=dup", "--contender=tag:setup:3nodes")
    assert code == 64 and "ambiguous" in err and "dup-1" in err and "dup-2" in err


def test_compare_thresholds_file(races: dict[str, RaceResult], tmp_path: Path) -> None:
    lenient = tmp_path / "lenient.yml"
    lenient.write_text(
        "- metric: throughput.median\n  max-relative-change: 50\n- metric: '*.tail'\n  ignore: true\n"
    )
    code, out, _ = run(
        "compare", "--baseline=tag:setup:1node", "--contender=tag:setup:3nodes", f"--thresholds={lenient}"
    )
    assert code == 0 and "Regression gate: passed." in out
    strict = tmp_path / "strict.yml"
    strict.write_text(
        "thresholds:\n  - task: term-query\n    metric: latency.p50\n    max-absolute-change: 0.5\n"
    )
    code, out, _ = run(
        "compare", "--baseline=tag:setup:1node", "--contender=tag:setup:3nodes", f"--thresholds={strict}"
    )
    assert code == 3 and "term-query: 50th percentile latency rose" in out and "strict.yml entry 1" in out
    bad = tmp_path / "bad.yml"
    bad.write_text("- task: bulk\n  metric: latency.p99\n  max-relative-change: lots\n")
    code, _, err = run(
        "compare", "--baseline=tag:setup:1node", "--contender=tag:setup:3nodes", f"--thresholds={bad}"
    )
    assert code == 64 and "bad.yml, entry 1 (task 'bulk', metric 'latency.p99')" in err
    # An empty (e.g. all commented out) file still gives a verdict, and says why it cannot fail.
    empty = tmp_path / "empty.yml"
    empty.write_text("# - metric: throughput.median\n#   max-relative-change: 5\n")
    code, out, err = run(
        "compare", "--baseline=tag:setup:1node", "--contender=tag:setup:3nodes", f"--thresholds={empty}"
    )
    assert code == 0 and "Regression gate: passed." in out
    assert f"The thresholds file {empty} has no entries: the regression gate has no rules" in err


def test_compare_bad_fail_on_regression(races: dict[str, RaceResult]) -> None:
    code, _, err = run(
        "compare", "--baseline=tag:setup:1node", "--contender=tag:setup:3nodes", "--fail-on-regression=-5"
    )
    assert code == 64 and "--fail-on-regression" in err


def test_report_rerenders_summary(races: dict[str, RaceResult], tmp_path: Path) -> None:
    code, out, _ = run("report", races["base0"].race_id[:8])
    assert code == 0 and races["base0"].race_id in out and "Median Throughput" in out
    target = tmp_path / "r.json"
    code, _, _ = run("report", "tag:setup:other", "--report-format=json", f"--report-file={target}")
    assert code == 0 and json.loads(target.read_text())["race"]["race_id"] == races["other"].race_id
    code, _, err = run("report", "tag:setup:1node")
    assert code == 64 and "matches 3 races" in err


def test_delete_race(races: dict[str, RaceResult]) -> None:
    code, out, _ = run("delete", "race", races["other"].race_id)
    assert code == 0 and f"Deleted race {races['other'].race_id}" in out
    code, _, err = run("report", races["other"].race_id)
    assert code == 64 and "No race with id" in err


def test_corrupt_store_is_a_clean_error(isolated_home: Path) -> None:
    (isolated_home / "results.db").write_bytes(b"garbage" * 1000)
    code, _, err = run("list", "races")
    assert code == 64 and "not a readable esbench results store" in err and "Traceback" not in err
    assert (isolated_home / "results.db").read_bytes() == b"garbage" * 1000


def test_export_needs_a_metrics_store(races: dict[str, RaceResult], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ESBENCH_METRICS_STORE", raising=False)
    code, _, err = run("export", "tag:setup:1node")
    assert code == 64 and "--metrics-store=URL" in err
    code, _, err = run("export", "tag:setup:1node", "--metrics-store=ftp://u:secret@h")
    assert code == 64 and "secret" not in err and "http://" in err


def test_parse_user_tags_for_a_race() -> None:
    assert parse_user_tags("setup:3nodes, disk:raid0") == {"setup": "3nodes", "disk": "raid0"}
    assert parse_user_tags("url:http://x:1") == {"url": "http://x:1"}
    with pytest.raises(UserError, match="'setup' more than one value"):
        parse_user_tags("setup:a,setup:b")
