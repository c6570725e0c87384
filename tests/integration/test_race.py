"""End-to-end races through the real ``esbench`` command against a real Elasticsearch node."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
from harness import esbench, interrupt_at_task, long_race, no_traceback, provision, wait_for_task
from loopback_http import QuietHandler, serving
from telemetry_race import TelemetryRace

from esbench.results.store import ResultsStore


def test_eventdata_test_mode_race_indexes_reports_and_stores(es_hosts, es, tmp_path):
    report_file = tmp_path / "report.json"
    proc = esbench(
        "race",
        "--track=eventdata",
        "--test-mode",
        f"--target-hosts={','.join(es_hosts)}",
        "--user-tag=setup:it",
        "--report-format=json",
        f"--report-file={report_file}",
    )
    assert proc.returncode == 0, proc.stderr
    no_traceback(proc)

    # The -1k corpus really went into Elasticsearch.
    es.indices.refresh(index="eventdata")
    assert es.count(index="eventdata")["count"] == 1000

    report = json.loads(report_file.read_text())
    assert report["race"]["status"] == "completed"
    rows = {(m["metric"], m["task"]): m for m in report["metrics"]}
    assert rows[("Median Throughput", "index-append")]["unit"] == "docs/s"
    stored = ResultsStore.open().find(user_tags={"setup": "it"})
    assert len(stored) == 1
    race = stored[0]
    assert race.track == "eventdata" and race.challenge == "append-no-conflicts"
    assert race.test_mode and race.status == "completed"
    assert race.cluster_version and race.cluster_nodes == len(es_hosts)
    bulk = race.task("index-append")
    assert bulk is not None
    assert bulk.throughput_unit == "docs/s"
    # Test mode has no warmup: all 1,000 documents of the -1k corpus are measured, without errors.
    assert bulk.warmup_sample_count == 0
    assert bulk.total_weight == 1000
    assert bulk.error_count == 0
    assert "50" in bulk.service_time_ms
    # The results file in the race directory holds the same race.
    results_json = Path(os.environ["ESBENCH_HOME"]) / "races" / race.race_id / "results.json"
    assert json.loads(results_json.read_text())["race_id"] == race.race_id


def test_search_challenge_report_has_rally_rows(es_hosts):
    proc = esbench(
        "race",
        "--track=eventdata",
        "--test-mode",
        "--challenge=append-and-search",
        f"--target-hosts={','.join(es_hosts)}",
    )
    assert proc.returncode == 0, proc.stderr
    for row in ("Median Throughput", "50th percentile latency", "50th percentile service time", "error rate"):
        assert row in proc.stdout
    assert "term-country" in proc.stdout
    assert "[SUCCESS]" in proc.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--challenge=no-such-challenge"], "has no challenge 'no-such-challenge'"),
        (["--track-params=bulk_sise:10"], "bulk_size"),
        (["--include-tasks=type:"], "--include-tasks"),
    ],
)
def test_bad_input_is_a_clear_error(es_hosts, args, expected):
    proc = esbench("race", "--track=eventdata", "--test-mode", f"--target-hosts={es_hosts[0]}", *args)
    assert proc.returncode == 64
    assert expected in proc.stderr
    assert proc.stderr.startswith("[ERROR]") or "[ERROR]" in proc.stderr
    no_traceback(proc)


def test_invalid_json_track_names_file_and_line(tmp_path, es_hosts):
    track = tmp_path / "broken"
    track.mkdir()
    (track / "track.json").write_text(
        '{\n  "version": 2,\n  "schedule": [\n    {"operation": "refresh",}\n  ]\n}\n'
    )
    proc = esbench("race", f"--track-path={track}", f"--target-hosts={es_hosts[0]}")
    assert proc.returncode == 64
    assert "track.json" in proc.stderr and "line 4" in proc.stderr
    no_traceback(proc)


def test_unreachable_host_is_a_clear_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound but not listening: connections are refused
        proc = esbench("race", "--track=eventdata", "--test-mode", f"--target-hosts=127.0.0.1:{port}")
    assert proc.returncode == 64
    assert f"Cannot reach Elasticsearch at 127.0.0.1:{port}" in proc.stderr
    # One message, not one log line per connection attempt, and no empty race left behind.
    assert "elastic_transport" not in proc.stderr
    races = Path(os.environ["ESBENCH_HOME"]) / "races"
    assert not races.exists() or not any(races.iterdir())
    no_traceback(proc)


class _Unauthorized(QuietHandler):
    def do_GET(self) -> None:
        body = b'{"error":{"type":"security_exception","reason":"missing credentials"},"status":401}'
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("X-Elastic-Product", "Elasticsearch")
        self.send_header("WWW-Authenticate", 'Basic realm="security"')
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_401_names_the_credential_options():
    # A stand-in for a secured cluster: the claim under test is esbench's error handling of a 401.
    with serving(_Unauthorized) as host:
        proc = esbench(
            "race",
            "--track=eventdata",
            "--test-mode",
            f"--target-hosts={host}",
            "--client-options=basic_auth_user:'alice',basic_auth_password:'s3cret-pw'",
        )
    assert proc.returncode == 64
    assert "HTTP 401" in proc.stderr and "ESBENCH_PASSWORD" in proc.stderr
    assert "s3cret-pw" not in proc.stderr + proc.stdout
    no_traceback(proc)


def test_ctrl_c_stores_what_was_measured(es_hosts):
    proc = long_race(es_hosts, "--user-tag=case:ctrl-c")
    interrupt_at_task(proc, "term-query")
    assert proc.returncode == 130
    races = ResultsStore.open().find(user_tags={"case": "ctrl-c"})
    assert len(races) == 1
    race = races[0]
    assert race.status == "interrupted"
    # The bulk task finished before the interrupt; its results are kept.
    bulk = race.task("index-append")
    assert bulk is not None and bulk.error_count == 0 and bulk.sample_count > 0


@pytest.mark.slow
def test_node_going_away_keeps_results(tmp_path):
    from esbench.provision import ProvisionSettings

    cluster = provision(
        tmp_path / "own-node", ProvisionSettings(car="defaults", distribution_repository="maven")
    )
    try:
        proc = long_race(list(cluster.hosts), "--user-tag=case:node-gone", "--on-error=abort")
        try:
            wait_for_task(proc, "term-query")
            cluster.stop()
            proc.wait(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
    finally:
        cluster.stop()
    assert proc.returncode == 64
    races = ResultsStore.open().find(user_tags={"case": "node-gone"})
    assert len(races) == 1
    race = races[0]
    assert race.status == "failed"
    assert race.error
    bulk = race.task("index-append")
    assert bulk is not None and bulk.error_count == 0 and bulk.total_weight == 1000


@pytest.mark.slow
def test_race_without_target_hosts_provisions_a_node_and_stops_it(
    telemetry_race: TelemetryRace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's main job: no --target-hosts means Rally's from-distribution pipeline. The race
    is the session's test-mode race without --target-hosts (tests/integration/telemetry_race.py,
    which the telemetry tests read too); the ``auto`` distribution repository has its own tests in
    test_distribution_repository.py."""
    monkeypatch.setenv("ESBENCH_HOME", str(telemetry_race.home))
    assert "Provisioning Elasticsearch" in telemetry_race.stderr
    assert "Stopping the cluster" in telemetry_race.stderr
    race = ResultsStore.open().find(user_tags={"case": telemetry_race.case})[0]
    assert race.pipeline == "from-distribution" and race.car == "defaults"
    assert race.distribution_version == race.cluster_version
    assert race.task("index-append").total_weight == 1000
    # Nothing is left running: the node's logs were copied into the race directory and the
    # installation is gone.
    from esbench.provision.cluster import running_installations

    assert running_installations() == []
    assert (Path(os.environ["ESBENCH_HOME"]) / "races" / race.race_id / "logs").is_dir()
