"""Network faults between esbench and a real node, injected by Toxiproxy (issue #26).

Every race runs through the real ``esbench race`` command against a Toxiproxy proxy in front of the
session's Elasticsearch node. For each fault the stored race, ``results.json`` and the JSON report
must agree, and no process of the race may be left when it has exited.

Faults and what must hold:

* latency +20 ms (downstream): p50 latency and service time 20 ms (± 1 ms) above a run without it
  (a pair of races that noise puts outside ± 1 ms is run again, up to 3 pairs);
* a bandwidth limit on bulk requests (upstream): the bulk's throughput falls, no error;
* ``reset_peer``, ``timeout`` and the proxy disabled, each for a few seconds, one after the other
  in one throttled search task: the failed requests are counted with their reason, the race
  completes and the throughput of the windows after each fault is the schedule's again.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from harness import esbench_popen
from quiet import until_quiet
from toxiproxy import Proxy, Toxiproxy, toxiproxy_server

from esbench.results.store import ResultsStore

#: Measured against the clock: tests/run runs these alone, after the other tests.
pytestmark = pytest.mark.timing

TARGET = 50  # ops/s of the throttled search task


@pytest.fixture(scope="module")
def toxi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Toxiproxy]:
    with toxiproxy_server(tmp_path_factory.mktemp("toxiproxy") / "toxiproxy.log") as server:
        yield server


@pytest.fixture
def proxy(toxi: Toxiproxy, es_hosts: list[str], request: pytest.FixtureRequest) -> Iterator[Proxy]:
    p = toxi.proxy(request.node.name.replace("[", "-").replace("]", ""), es_hosts[0])
    try:
        yield p
    finally:
        toxi.call("DELETE", f"/proxies/{p.name}")


def write_track(
    root: Path, *, search_s: int = 0, search_target: float = TARGET, bulk_target: float = 0
) -> Path:
    """A track on index ``faults``: a throttled match_all search (``search_s`` seconds at
    ``search_target`` ops/s after 1 s of warmup) and/or a throttled bulk (``bulk_target``
    requests/s of 100 documents of ~1 KB, 4 s after 1 s of warmup)."""
    root.mkdir(parents=True, exist_ok=True)
    docs = 4000
    with open(root / "docs.json", "w") as fh:
        for i in range(docs):
            fh.write(json.dumps({"n": i, "message": f"document {i} " + "x" * 1000}) + "\n")
    schedule: list[dict[str, Any]] = [
        {"operation": {"operation-type": "delete-index"}},
        {
            "operation": {
                "operation-type": "create-index",
                "settings": {"index.number_of_shards": 1, "index.number_of_replicas": 0},
            }
        },
    ]
    if bulk_target:
        schedule.append(
            {
                "name": "bulk",
                "operation": {"operation-type": "bulk", "bulk-size": 100},
                "warmup-time-period": 1,
                "time-period": 4,
                "target-throughput": bulk_target,
            }
        )
    if search_s:
        schedule.append(
            {
                "name": "q",
                "operation": {
                    "operation-type": "search",
                    "index": "faults",
                    "body": {"query": {"match_all": {}}},
                },
                "warmup-time-period": 1,
                "time-period": search_s,
                "target-throughput": search_target,
            }
        )
    track = {
        "version": 2,
        "indices": [{"name": "faults"}],
        "corpora": [
            {
                "name": "faults",
                "documents": [
                    {
                        "source-file": "docs.json",
                        "document-count": docs,
                        "uncompressed-bytes": (root / "docs.json").stat().st_size,
                        "target-index": "faults",
                    }
                ],
            }
        ],
        "schedule": schedule,
    }
    (root / "track.json").write_text(json.dumps(track))
    return root


def start_race(track: Path, host: str, report: Path, *extra: str) -> subprocess.Popen[str]:
    return esbench_popen(
        "race",
        "--pipeline=benchmark-only",
        f"--track-path={track}",
        f"--target-hosts={host}",
        "--report-format=json",
        f"--report-file={report}",
        *extra,
        new_session=True,
    )


def session_processes(pgid: int) -> list[str]:
    """The live processes of process group ``pgid`` (zombies are dead, waiting for their parent)."""
    found = []
    for p in psutil.process_iter(["status", "cmdline", "name", "ppid"]):
        try:
            if os.getpgid(p.pid) == pgid and p.info["status"] != psutil.STATUS_ZOMBIE:
                found.append(
                    f"{p.pid} {p.info['name']} ({p.info['status']}, parent {p.info['ppid']}): "
                    + " ".join(p.info["cmdline"] or [])
                )
        except (ProcessLookupError, psutil.Error):
            continue
    return found


def finish(proc: subprocess.Popen[str], timeout: float = 120) -> tuple[str, str]:
    """Wait for the race; assert it succeeded and left no process of its session behind."""
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err, err
    # A worker still on its way out (exiting, not yet a zombie) gets a moment.
    deadline = time.monotonic() + 10
    while (left := session_processes(proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"processes left by the race: {left}"
    return out, err


def agree(report_file: Path, task: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The task's results from results.json after checking that the stored race, results.json and
    the JSON report say the same; returns ``(task results, report rows by metric)``."""
    report = json.loads(report_file.read_text())
    race_id = report["race"]["race_id"]
    assert report["race"]["status"] == "completed"
    results = json.loads((Path(os.environ["ESBENCH_HOME"]) / "races" / race_id / "results.json").read_text())
    assert results["status"] == "completed"
    (from_file,) = [t for t in results["tasks"] if t["task"] == task]
    with ResultsStore.open() as store:
        stored = store.get(race_id).task(task)
    assert stored is not None
    for name in ("sample_count", "error_count", "errors_by_type", "throughput_median", "throughput_windows"):
        stored_value = getattr(stored, name)
        file_value = from_file[name]
        if isinstance(stored_value, tuple):
            stored_value = list(stored_value)
        assert stored_value == file_value, name
    assert stored.service_time_ms["50"] == from_file["service_time_ms"]["50"]
    rows = {m["metric"]: m for m in report["metrics"] if m.get("task") == task}
    assert rows["Median Throughput"]["value"] == pytest.approx(from_file["throughput_median"], rel=1e-3)
    assert rows["50th percentile service time"]["value"] == pytest.approx(
        from_file["service_time_ms"]["50"], rel=1e-3
    )
    assert rows["50th percentile latency"]["value"] == pytest.approx(from_file["latency_ms"]["50"], rel=1e-3)
    error_rate = 100.0 * from_file["error_count"] / from_file["sample_count"]
    assert rows["error rate"]["value"] == pytest.approx(error_rate, abs=0.01)
    return from_file, rows


def search_total(host: str) -> int:
    with urllib.request.urlopen(f"http://{host}/faults/_stats/search", timeout=5) as r:
        total = json.load(r)["_all"]["total"]
    return int(total.get("search", {}).get("query_total", 0))  # no "search" while the index is new


def delete_index(host: str) -> None:
    request = urllib.request.Request(f"http://{host}/faults?ignore_unavailable=true", method="DELETE")
    with urllib.request.urlopen(request, timeout=30):
        pass


def wait_for_searches(host: str, proc: subprocess.Popen[str], timeout: float = 60) -> None:
    """Return once the race's search task is sending (the node counts its queries). The test
    deletes the index before the race, so counts from an earlier race are gone."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        try:
            if search_total(host) > 0:
                return
        except OSError:
            pass  # the index does not exist yet
        time.sleep(0.1)
    raise AssertionError(f"the race sent no search within {timeout} s")


def test_latency_toxic_adds_its_delay_to_latency_and_service_time(proxy, tmp_path):
    # 10 ops/s: a request every 100 ms, so +20 ms never makes the client fall behind its schedule
    # (latency would then include the wait, as it must).
    track = write_track(tmp_path / "track", search_s=3, search_target=10)
    pairs = itertools.count()

    def measure() -> dict[str, tuple[float, float]]:
        """p50 (latency, service time) of a race without and one with the toxic."""
        pair = next(pairs)
        p50 = {}
        for label in ("plain", "toxic"):
            report = tmp_path / f"{label}-{pair}.json"
            if label == "toxic":
                proxy.add_toxic("delay", "latency", {"latency": 20, "jitter": 0})
            finish(start_race(track, proxy.listen, report))
            if label == "toxic":
                proxy.remove_toxic("delay")
            result, _ = agree(report, "q")
            assert result["error_count"] == 0
            p50[label] = (result["latency_ms"]["50"], result["service_time_ms"]["50"])
        return p50

    def always(p50: dict[str, tuple[float, float]]) -> None:
        # No response through the toxic can take less than its delay.
        assert min(p50["toxic"]) >= 20.0, p50

    def when_quiet(p50: dict[str, tuple[float, float]]) -> None:
        # Another process taking the CPU for a moment can move a p50 by a millisecond.
        assert p50["toxic"][0] - p50["plain"][0] == pytest.approx(20.0, abs=1.0), p50
        assert p50["toxic"][1] - p50["plain"][1] == pytest.approx(20.0, abs=1.0), p50

    until_quiet(measure, always, when_quiet)


def test_bandwidth_limit_on_bulk_lowers_throughput_without_errors(proxy, tmp_path):
    # 10 bulks/s of 100 documents of ~1 KB: ~1 MB/s asked for; the toxic lets 100 KB/s through.
    track = write_track(tmp_path / "track", bulk_target=10)
    results = {}
    for label in ("plain", "toxic"):
        report = tmp_path / f"{label}.json"
        if label == "toxic":
            proxy.add_toxic("narrow", "bandwidth", {"rate": 100}, stream="upstream")
        finish(start_race(track, proxy.listen, report))
        result, _ = agree(report, "bulk")
        assert result["error_count"] == 0 and result["errors_by_type"] == {}
        assert result["item_errors_by_status"] == {}
        results[label] = result
    plain, toxic = results["plain"], results["toxic"]
    assert plain["throughput_median"] > 0.8 * 1000, plain["throughput_windows"]
    assert toxic["throughput_median"] < 0.2 * plain["throughput_median"], toxic["throughput_windows"]
    # What the driver sent per second fits through the limit (toxiproxy's KB is 1,000 bytes).
    sent_per_s = toxic["bytes_sent"] / toxic["duration_s"]
    assert sent_per_s < 1.1 * 100_000, sent_per_s


FAULTS = {
    # name: (the reason the failed requests carry, the error type they are counted under, seconds on)
    "reset_peer": ("Connection reset by peer", "connection", 3.0),
    "timeout": ("timed out", "timeout", 3.0),
    "disabled": ("Connection refused", "connection", 5.0),
}
#: Seconds between the end of one fault and the start of the next (or the end of the task): the
#: client catches up in the first, and at least two whole windows start a second after the fault.
RECOVERY_S = 4.5


def switch(proxy: Proxy, fault: str, on: bool) -> None:
    """Turn ``fault`` (a key of :data:`FAULTS`) on or off on ``proxy``."""
    if fault == "disabled":
        proxy.set_enabled(not on)
    elif on:
        proxy.add_toxic("fault", fault, {"timeout": 0})
    else:
        proxy.remove_toxic("fault")


def test_faults_mid_race_are_counted_and_the_race_goes_on(proxy, es_hosts, tmp_path):
    """``reset_peer``, ``timeout`` and the proxy disabled, one after the other in ONE race (a race per
    fault cost 16 s each): each fault's failed requests are counted with its reason, and the
    schedule's throughput is back between the faults and after the last one."""
    fault_s = sum(on_s for *_, on_s in FAULTS.values())
    # 2 measured seconds before the first fault, then each fault and its recovery.
    track = write_track(tmp_path / "track", search_s=int(2 + fault_s + RECOVERY_S * len(FAULTS) + 1))
    report = tmp_path / "report.json"
    delete_index(es_hosts[0])
    # The timeout fault holds requests forever: a 0.5 s client timeout turns them into errors (the
    # other faults fail at once whatever the timeout).
    proc = start_race(track, proxy.listen, report, "--client-options=timeout:0.5")
    wait_for_searches(es_hosts[0], proc)
    time.sleep(3.0)  # warmup (1 s) and two measured seconds before the first fault
    spans: list[tuple[float, float]] = []
    for fault, (*_, on_s) in FAULTS.items():
        if spans:
            time.sleep(max(0.0, spans[-1][1] + RECOVERY_S - time.time()))
        started = time.time()
        switch(proxy, fault, on=True)
        time.sleep(on_s)
        switch(proxy, fault, on=False)
        spans.append((started, time.time()))
    finish(proc)
    result, _ = agree(report, "q")
    # Failed requests counted, with their reason; every error of the task is one of them.
    for fault, (reason, kind, _) in FAULTS.items():
        assert result["errors_by_type"].get(kind, 0) > 0, (fault, result)
        assert [d for d in result["error_descriptions"] if reason in d["reason"]], (
            fault,
            result["error_descriptions"],
        )
    assert sum(d["count"] for d in result["error_descriptions"]) == result["error_count"]
    assert result["error_count"] < result["sample_count"]
    # Requests succeeded outside the faults' seconds: the windows before the first fault, and the
    # last two whole windows starting a second or more after each fault (before the next one), are
    # the schedule's throughput (the client caught up before them).
    windows = result["throughput_windows"]
    start = result["start_epoch"]
    before = [w for i, w in enumerate(windows) if start + i + 1 <= spans[0][0]]
    assert before, (windows, start, spans)
    for value in before:
        assert value == pytest.approx(TARGET, rel=0.1), windows
    for k, (_, ended) in enumerate(spans):
        until = spans[k + 1][0] if k + 1 < len(spans) else float("inf")
        after = [w for i, w in enumerate(windows) if start + i >= ended + 1.0 and start + i + 1 <= until]
        assert len(after) >= 2, (k, windows, start, spans)
        for value in after[-2:]:
            assert value == pytest.approx(TARGET, rel=0.1), (k, windows)
