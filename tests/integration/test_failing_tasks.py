"""Tasks that fail as Rally 2.13 records them, against the real integ-test node (no ``x-pack-esql``,
no ``x-pack-sql``): the fixture track ``tests/resources/failing-tasks`` has one challenge per cause.

* ``missing-module``: an ES|QL and an SQL task are failed requests naming the module, and the race
  goes on to the next task (it used to end the race); the pre-race check warns under the default
  ``--on-error=continue`` and names the tasks, and refuses under ``abort`` before any request.
* ``failed-admin``: a ``create-index`` and a ``force-merge`` that fail on every request have their
  rows in every report format, in ``results.json``, the results store and the metrics-store
  documents (Rally's ``include_in_reporting or error_rate > 0``).
* ``completed-by-warmup``: a search without time-period in a parallel block with
  ``warmup-time-period`` runs until the block's ``completed-by`` bulk ends (it used to be refused).
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
from pathlib import Path

import harness
import pytest
from elasticsearch import Elasticsearch

from esbench.records import RaceResult
from esbench.reporting.html import render_race_html
from esbench.reporting.summary import render_summary
from esbench.requirements.probe import probe_cluster
from esbench.results.es_export import result_documents
from esbench.results.store import ResultsStore

TRACK = Path(__file__).resolve().parent.parent / "resources" / "failing-tasks"
FORMATS = ("text", "markdown", "csv", "json")


def race(hosts: list[str], challenge: str, *args: str) -> subprocess.CompletedProcess[str]:
    return harness.race(TRACK, hosts, f"--challenge={challenge}", *args, timeout=240)


@pytest.fixture
def node_without_esql(es_hosts: list[str]) -> list[str]:
    modules = probe_cluster(es_hosts).modules
    if {"x-pack-esql", "x-pack-sql"} & modules:
        pytest.fail(f"These tests need a node without x-pack-esql and x-pack-sql; it has {sorted(modules)}.")
    return es_hosts


def stored(tag: str) -> RaceResult:
    races = ResultsStore.open().find(user_tags={"case": tag})
    assert len(races) == 1
    return races[0]


def test_missing_module_is_a_failed_request_and_the_race_goes_on(node_without_esql: list[str]) -> None:
    proc = race(node_without_esql, "missing-module", "--user-tag=case:missing-module")
    assert proc.returncode == 0, proc.stderr
    warnings = [ln for ln in proc.stderr.splitlines() if "lacks modules the track needs" in ln]
    assert len(warnings) == 1 and warnings[0].startswith("[WARNING] ")
    assert "Tasks whose requests will fail: 'esql-by-status', 'sql-count'." in warnings[0]
    result = stored("missing-module")
    assert result.status == "completed"
    # Every task ran, in order; the two module tasks failed on each measured request...
    assert [t.task for t in result.tasks][-4:] == ["esql-by-status", "term-search", "sql-count", "hosts-agg"]
    for name, module in (("esql-by-status", "x-pack-esql"), ("sql-count", "x-pack-sql")):
        task = result.task(name)
        assert task is not None and task.sample_count == task.error_count == 10
        assert f"the cluster lacks the Elasticsearch module '{module}'" in task.error_descriptions[0].reason
        # ... and show their error rate but no throughput (Rally's summary_stats drops a mean of 0).
        rows = [r for r in json.loads(render_summary(result, fmt="json"))["metrics"] if r["task"] == name]
        assert {"metric": "error rate", "task": name, "value": 100.0, "unit": "%"} in rows
        assert not [r for r in rows if "Throughput" in r["metric"]]
    # ... while the others have their numbers.
    for name in ("index-append", "term-search", "hosts-agg"):
        task = result.task(name)
        assert task is not None and task.error_count == 0 and task.sample_count > 0
        assert task.throughput_mean and task.throughput_mean > 0


def test_on_error_abort_refuses_a_missing_module_before_any_request(
    node_without_esql: list[str], es_hosts: list[str]
) -> None:
    es = Elasticsearch([f"http://{h}" for h in es_hosts])
    try:
        es.options(ignore_status=404).indices.delete(index="failing-docs")
        proc = race(node_without_esql, "missing-module", "--on-error=abort")
        assert proc.returncode == 64, proc.stderr
        errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("[ERROR] ")]
        assert len(errors) == 1
        assert "x-pack-esql (operation type 'esql' in task 'esql-by-status')" in errors[0]
        assert "Traceback" not in proc.stderr
        assert not es.indices.exists(index="failing-docs")
    finally:
        es.close()


def test_failed_administrative_tasks_are_in_every_report(
    node_without_esql: list[str], tmp_path: Path
) -> None:
    report = tmp_path / "report.csv"
    proc = race(
        node_without_esql,
        "failed-admin",
        "--user-tag=case:failed-admin",
        "--report-format=csv",
        f"--report-file={report}",
    )
    assert proc.returncode == 0, proc.stderr
    result = stored("failed-admin")
    failed = {"create-broken-index": "400", "force-merge-missing": "404"}
    for name, status in failed.items():
        task = result.task(name)
        assert task is not None and not task.include_in_reporting
        assert task.sample_count == task.error_count == 1 and task.errors_by_type == {status: 1}
    # The race's own report file, and every format rendered from the stored race.
    rows = list(csv.reader(io.StringIO(report.read_text())))
    for name in failed:
        assert ["error rate", name, "100.00", "%"] in rows
        assert any(r[0] == "100th percentile service time" and r[1] == name for r in rows)
    successful_admin = {"create-docs-index", "delete-index"}
    for fmt in FORMATS:
        text = render_summary(result, fmt=fmt)
        for name in failed:
            assert name in text, fmt
        # Administrative tasks that succeeded stay hidden, as in Rally.
        assert not any(f"| {name} " in text or f",{name}," in text for name in successful_admin), fmt
    html = render_race_html(result)
    assert all(name in html for name in failed)
    # results.json, the store and the metrics-store documents keep them too.
    results_json = Path(os.environ["ESBENCH_HOME"]) / "races" / result.race_id / "results.json"
    stored_tasks = json.loads(results_json.read_text())["tasks"]
    errors = {t["task"]: t["error_count"] for t in stored_tasks if t["task"] in failed}
    assert errors == dict.fromkeys(failed, 1)
    exported = {doc["task"] for _, doc in result_documents(result) if doc.get("kind") == "task"}
    assert set(failed) <= exported and not successful_admin & exported


def test_search_without_time_period_ends_with_the_completed_by_task(node_without_esql: list[str]) -> None:
    proc = race(node_without_esql, "completed-by-warmup", "--user-tag=case:completed-by")
    assert proc.returncode == 0, proc.stderr
    assert "does not end by itself" not in proc.stderr
    result = stored("completed-by")
    assert result.status == "completed"
    append, search = result.task("paced-append"), result.task("term-search")
    assert append is not None and search is not None
    # 200 documents in bulks of 10: 20 requests, the first second of them warmup.
    assert append.sample_count + append.warmup_sample_count == 20
    assert search.warmup_sample_count > 0 and search.sample_count > 0 and search.error_count == 0
