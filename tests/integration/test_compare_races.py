"""End to end: real races against a real node, stored, compared, gated.

Runs ``esbench race`` (the lead's command) three times on ``tests/resources/tracks/compare-tiny``:
two baseline races at the default search target throughput (40 ops/s) and one contender throttled on
purpose to half of it (track param ``search_target_throughput:20``). Then ``esbench compare`` must
exit 3 (and name the term-query throughput) for the contender, 0 for the baseline against its (distinct)
repeat, and warn when a race is compared with itself.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import harness
import pytest
from harness import TRACKS, esbench

#: Left out of the fast loop (tests/run fast): four throttled races and the compare gate, about 30 s.
pytestmark = pytest.mark.slow

TRACK = TRACKS / "compare-tiny"


def race(hosts: list[str], index: str, run: str, tag: str, *, target_throughput: int) -> None:
    result = harness.race(
        TRACK,
        hosts,
        "--pipeline=benchmark-only",
        # 3 s measured (the track's default is 4): three throughput windows a race, each pinned by
        # the throttle, are enough for the medians compared below.
        f"--track-params=index_name:{index},search_target_throughput:{target_throughput},search_time_period:3",
        f"--user-tag=run:{run},role:{tag}",
    )
    assert result.returncode == 0, f"esbench race failed:\n{result.stdout}\n{result.stderr}"


def test_throttled_contender_fails_the_gate_and_a_repeat_passes(es_hosts: list[str], index: str) -> None:
    run = uuid.uuid4().hex[:8]
    race(es_hosts, index, run, "base", target_throughput=40)
    race(es_hosts, index, run, "base", target_throughput=40)
    race(es_hosts, index, run, "slow", target_throughput=20)

    listed = esbench("list", "races", f"--user-tag=run:{run}", "--status=completed", "--format=json")
    assert listed.returncode == 0, listed.stderr
    races = json.loads(listed.stdout)["races"]
    assert len(races) == 3
    assert all(r["track"] == "compare-tiny" for r in races)

    slow = esbench(
        "compare", "--baseline=tag:role:base", "--contender=tag:role:slow", "--fail-on-regression=25"
    )
    assert slow.returncode == 3, slow.stdout + slow.stderr
    assert "term-query: Median Throughput fell" in slow.stdout
    assert "Regression gate: FAILED" in slow.stdout

    as_json = esbench(
        "compare", "--baseline=tag:role:base", "--contender=tag:role:slow", "--report-format=json"
    )
    rows = json.loads(as_json.stdout)["contenders"][0]["rows"]
    median = next(r for r in rows if r["task"] == "term-query" and r["key"] == "throughput.median")
    assert median["baseline"]["values"] and len(median["baseline"]["values"]) == 2
    assert median["diff_pct"] == pytest.approx(-50, abs=10)

    base_ids = [r["race-id"] for r in races if r["user-tags"]["role"] == "base"]
    # A race compared with itself would pass any gate without measuring anything: the user is told.
    same = esbench(
        "compare", f"--baseline={base_ids[0]}", f"--contender={base_ids[0]}", "--fail-on-regression=25"
    )
    assert "is the same race as the baseline" in same.stdout + same.stderr
    # Two throttled baseline races: the search throughput is pinned by the throttle, so judging it
    # (and nothing noisier) must pass.
    rules = Path(os.environ["ESBENCH_HOME"]) / "rules.yml"
    rules.write_text("- task: term-query\n  metric: throughput.median\n  max-relative-change: 25\n")
    repeat = esbench(
        "compare", f"--baseline={base_ids[0]}", f"--contender={base_ids[1]}", f"--thresholds={rules}"
    )
    assert repeat.returncode == 0, repeat.stdout + repeat.stderr

    seed = esbench("compare", "--baseline=tag:role:base", "--contender=tag:role:slow", "--table=seed")
    assert seed.returncode == 0 and "tag:role:base (baseline)" in seed.stdout

    report = esbench("report", base_ids[0])
    assert report.returncode == 0 and "Median Throughput" in report.stdout
