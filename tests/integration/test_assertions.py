"""``--enable-assertions`` against a real node: a false assertion ends the race with Rally's text and
exit 64 after storing what was measured; without the flag the same track passes; true assertions
pass. Rally 2.13 printed, for the first track here on the same kind of node, "Cannot run task
[count-all]: Expected [hits] to be > [3] but was [3]." with exit 64 (docs/tracks.md, "Assertions")."""

from __future__ import annotations

import json
from pathlib import Path

import harness
import pytest

from esbench.results.store import ResultsStore


def asserting_track(tmp_path: Path, index: str, assertions: list[dict], *, detailed: bool = True) -> Path:
    """Three documents, then a search of them with ``assertions``, then a refresh after it."""
    track = tmp_path / "track"
    track.mkdir()
    (track / "documents.json").write_text("".join(json.dumps({"n": i}) + "\n" for i in (1, 2, 3)))
    search = {"name": "count-all", "operation-type": "search", "body": {"query": {"match_all": {}}}}
    if detailed:
        search["detailed-results"] = True
    search["assertions"] = assertions
    spec = {
        "version": 2,
        "indices": [{"name": index}],
        "corpora": [
            {
                "name": "three",
                "documents": [{"source-file": "documents.json", "document-count": 3, "target-index": index}],
            }
        ],
        "schedule": [
            {"operation": {"operation-type": "delete-index"}},
            {"operation": {"operation-type": "create-index"}},
            {"operation": {"name": "load", "operation-type": "bulk", "bulk-size": 3}},
            {"operation": {"operation-type": "refresh"}},
            {"operation": search, "iterations": 4, "warmup-iterations": 0},
            {"operation": {"name": "after", "operation-type": "refresh"}},
        ],
    }
    (track / "track.json").write_text(json.dumps(spec))
    return track


HITS_ABOVE_3 = [
    {"property": "hits", "condition": "==", "value": 3},
    {"property": "hits", "condition": ">", "value": 3},
]


def test_a_false_assertion_ends_the_race_naming_property_condition_and_value(es_hosts, tmp_path, index):
    track = asserting_track(tmp_path, index, HITS_ABOVE_3)
    proc = harness.race(track, es_hosts, "--enable-assertions", "--user-tag=case:false-assertion")
    harness.no_traceback(proc)
    assert proc.returncode == 64, proc.stdout + proc.stderr
    rally_text = "Expected [hits] to be > [3] but was [3]."
    assert f"Task 'count-all' failed an assertion (--enable-assertions): {rally_text}" in proc.stderr
    # What was measured before the failure is stored, with the reason, and the race log says it too.
    (race,) = ResultsStore.open().find(user_tags={"case": "false-assertion"})
    assert race.status == "failed" and rally_text in (race.error or "")
    load = race.task("load")
    assert load is not None and load.total_weight == 3
    assert race.task("after") is None  # the race ended at count-all
    log = Path(race_log_path(proc))
    assert rally_text in log.read_text()


def race_log_path(proc) -> str:
    return proc.stderr.rsplit("the race log is ", 1)[1].strip().rstrip(".")


def test_the_same_track_passes_without_the_flag(es_hosts, tmp_path, index):
    track = asserting_track(tmp_path, index, HITS_ABOVE_3)
    result = harness.results(harness.ok(harness.race(track, es_hosts)))
    assert result["status"] == "completed"
    assert {t["task"] for t in result["tasks"]} >= {"count-all", "after"}


def test_true_assertions_pass(es_hosts, tmp_path, index):
    assertions = [
        {"property": "hits", "condition": "==", "value": 3},
        {"property": "hits", "condition": ">=", "value": 3},
        {"property": "hits_relation", "condition": "==", "value": "eq"},
        {"property": "timed_out", "condition": "==", "value": False},
        {"property": "took", "condition": "<", "value": 60000},
    ]
    track = asserting_track(tmp_path, index, assertions)
    result = harness.results(harness.ok(harness.race(track, es_hosts, "--enable-assertions")))
    assert result["status"] == "completed"
    count = next(t for t in result["tasks"] if t["task"] == "count-all")
    assert count["sample_count"] == 4 and count["error_count"] == 0


@pytest.mark.parametrize(
    ("assertions", "detailed", "message"),
    [
        (
            HITS_ABOVE_3,
            False,
            r"The property \[detailed-results\] must be \[true\] if assertions are defined",
        ),
        (
            [{"property": "hits", "condition": "!=", "value": 3}],
            True,
            r"assertions\[0\]\.condition is str '!='",
        ),
    ],
)
def test_a_search_that_cannot_be_checked_is_refused_before_the_first_request(
    es_hosts, tmp_path, index, es, assertions, detailed, message
):
    import re

    track = asserting_track(tmp_path, index, assertions, detailed=detailed)
    proc = harness.race(track, es_hosts, "--enable-assertions")
    harness.no_traceback(proc)
    assert proc.returncode == 64
    assert re.search(message, proc.stderr), proc.stderr
    assert not es.indices.exists(index=index)  # refused before delete-index/create-index ran
