"""Tests of the side-by-side benchmark harness (benchmarks/sidebyside): stub, process-tree
measurement, report parsing, tracks, summary. No load loops: the stub gets a handful of requests."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import urllib.request
from pathlib import Path

import jinja2
import jinja2.meta
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

from sidebyside import corpora, report, tools  # noqa: E402
from sidebyside.cases import ALL_TOOLS, Options, build_cases, tool_order  # noqa: E402
from sidebyside.hotpath import parse_collapsed, render_top  # noqa: E402
from sidebyside.nginx_stub import NginxStub, nginx_binary  # noqa: E402
from sidebyside.tools import ToolRun, WrkSpec  # noqa: E402

needs_nginx = pytest.mark.skipif(
    nginx_binary() is None, reason="nginx not installed (apt-get install nginx-light)"
)


def _get(host: str, path: str, *, method: str = "GET", body: bytes | None = None):
    req = urllib.request.Request(f"http://{host}{path}", data=body, method=method)
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.status, dict(r.headers), r.read()


@needs_nginx
def test_stub_answers_like_elasticsearch_and_stops_cleanly():
    stub = NginxStub.start()
    try:
        cases = [
            ("GET", "/", None, lambda d: d["version"]["number"].startswith("8.")),
            (
                "POST",
                "/stub/_search",
                b'{"query":{"match_all":{}}}',
                lambda d: d["hits"]["total"]["value"] > 0,
            ),
            ("POST", "/_bulk", b'{"index":{}}\n{"a":1}\n' * 5000, lambda d: d["errors"] is False),
            ("GET", "/_nodes/stats/jvm", None, lambda d: "gc" in next(iter(d["nodes"].values()))["jvm"]),
            ("GET", "/_nodes/_all", None, lambda d: len(d["nodes"]) == 1),
            ("GET", "/_stats/_all?level=shards", None, lambda d: d["indices"]["stub"]["shards"]["0"][0]),
            ("GET", "/_cluster/health?wait_for_status=green", None, lambda d: d["status"] == "green"),
            ("PUT", "/some-index", b"{}", lambda d: d["acknowledged"] is True),
            ("POST", "/some-index/_refresh", b"", lambda d: d["_shards"]["failed"] == 0),
        ]
        for method, path, body, check in cases:
            status, headers, data = _get(stub.host, path, method=method, body=body)
            assert status == 200, path
            assert headers["X-Elastic-Product"] == "Elasticsearch", path
            assert headers["Content-Type"].startswith("application/json"), path
            assert check(json.loads(data)), path
        admin = stub.admin_requests()
        # The hot paths stay out of the access log; administrative calls are listed.
        assert any(line.startswith("GET /_nodes/_all ") for line in admin)
        assert not any("_search" in line or "_bulk" in line for line in admin)
    finally:
        stub.stop()
    assert stub.process.poll() is not None
    assert not stub.prefix.exists()
    with pytest.raises(OSError):
        _get(stub.host, "/")


def test_treerun_charges_the_whole_tree_and_ends_leftovers(tmp_path):
    # A shell starts a CPU-burning python child (0.3 s of CPU) and an orphan that would sleep ~60 s.
    # The orphan's duration carries a token unique to this test, so the check below looks only at
    # the process this test started, never at other processes of the machine.
    orphan = f"sleep 60.{random.randrange(10**8, 10**9)}"
    burn = "import time\ns=time.process_time()\nwhile time.process_time()-s<0.3: pass\nx=bytearray(64<<20)\n"
    script = tmp_path / "burn.py"
    script.write_text(burn)
    cmd = ["bash", "-c", f"({orphan} &) ; {sys.executable} {script}"]
    result = tmp_path / "r.json"
    r = subprocess.run(
        [sys.executable, str(BENCH / "sidebyside" / "treerun.py"), "--result", str(result), "--linger", "0.5",
         "--interval", "0.02", "--", *cmd],
        timeout=60,
    )  # fmt: skip
    assert r.returncode == 0
    data = json.loads(result.read_text())
    assert data["returncode"] == 0
    assert data["cpu_s"] >= 0.29  # the grandchild's CPU time is included
    assert data["leftovers_killed"] >= 1  # the orphaned sleep was re-parented to treerun and ended
    assert data["processes_seen"] >= 2  # bash exec()s the last command
    assert data["max_single_rss_bytes"] >= 64 << 20
    assert not _processes_running(orphan)


def test_treerun_counts_a_mapped_file_in_rss_but_not_in_anonymous_memory(tmp_path):
    # The child maps 48 MiB of a file and touches every page, and writes 16 MiB of its own memory,
    # then stays busy for 0.5 s of CPU so that the 0.02 s sampling sees it whole.
    data_file = tmp_path / "mapped.bin"
    data_file.write_bytes(b"x" * (48 << 20))
    child = (
        "import mmap, time\n"
        f"f = open({str(data_file)!r}, 'rb')\n"
        "m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)\n"
        "touched = sum(m[i] for i in range(0, len(m), 4096))\n"
        "own = bytearray(16 << 20)\n"
        "own[::4096] = b'y' * len(own[::4096])\n"
        "s = time.process_time()\n"
        "while time.process_time() - s < 0.5: pass\n"
    )
    result = tmp_path / "r.json"
    r = subprocess.run(
        [sys.executable, str(BENCH / "sidebyside" / "treerun.py"), "--result", str(result),
         "--interval", "0.02", "--", sys.executable, "-c", child],
        timeout=60,
    )  # fmt: skip
    assert r.returncode == 0
    data = json.loads(result.read_text())
    assert data["peak_rss_bytes"] >= (48 + 16) << 20
    assert data["peak_anon_bytes"] >= 16 << 20
    assert data["peak_rss_bytes"] - data["peak_anon_bytes"] >= 40 << 20  # the mapped file's pages


def _processes_running(command_line: str) -> list[int]:
    """PIDs whose command line is exactly ``command_line`` (read from /proc; no pgrep needed)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue  # exited meanwhile
            if b" ".join(a for a in argv if a).decode(errors="replace") == command_line:
                found.append(int(entry.name))
    return found


def test_treerun_reports_the_exit_code(tmp_path):
    result = tmp_path / "r.json"
    cmd_file = tmp_path / "cmd.json"
    cmd_file.write_text(json.dumps(["bash", "-c", "exit 3"]))
    r = subprocess.run(
        [sys.executable, str(BENCH / "sidebyside" / "treerun.py"), "--result", str(result), "--cmd-file",
         str(cmd_file)],
        timeout=60,
    )  # fmt: skip
    assert r.returncode == 3
    assert json.loads(result.read_text())["returncode"] == 3


WRK_OUTPUT = """Running 10s test @ http://127.0.0.1:47819
  1 threads and 1 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    71.78us  450.77us  15.02ms   97.85%
    Req/Sec    41.54k     5.02k   46.77k    82.00%
  Latency Distribution
     50%   20.00us
     75%   23.00us
     90%    1.50ms
     99%    1.67s
  413248 requests in 10.01s, 172.22MB read
  Non-2xx or 3xx responses: 12
Requests/sec:  41298.86
Transfer/sec:     17.21MB
"""


def test_parse_wrk_output():
    w = tools.parse_wrk_output(WRK_OUTPUT)
    assert w["requests_per_s"] == 41298.86
    assert w["latency_p50_ms"] == pytest.approx(0.020)
    assert w["latency_p90_ms"] == pytest.approx(1.5)
    assert w["latency_p99_ms"] == pytest.approx(1670.0)
    assert w["requests"] == 413248
    assert w["errors"] == 12
    with pytest.raises(ValueError):
        tools.parse_wrk_output("unable to connect to 127.0.0.1:1 Connection refused")


def test_parse_rally_csv(tmp_path):
    f = tmp_path / "r.csv"
    f.write_text(
        "Metric,Task,Value,Unit\n"
        "Cumulative indexing time of primary shards,,0.0,min\n"
        "Median Throughput,search,2102.10,ops/s\n"
        "50th percentile service time,search,0.2284,ms\n"
        "90th percentile service time,search,0.34,ms\n"
        "error rate,search,0.00,%\n"
        "Median Throughput,other,1.0,ops/s\n"
    )
    metrics, units = tools.metrics_from_rows(tools.parse_rally_report(f), ["search"])
    assert metrics == {
        "search": {
            "throughput": 2102.10,
            "service_time_p50_ms": 0.2284,
            "service_time_p90_ms": 0.34,
            "error_rate_pct": 0.0,
        }
    }
    assert units == {"search": "ops/s"}
    bad = tmp_path / "bad.csv"
    bad.write_text("| Metric | Task |\n")
    with pytest.raises(ValueError):
        tools.parse_rally_report(bad)


def test_parse_esbench_json_report_as_rendered_by_esbench(tmp_path):
    # The real renderer, so that a change of esbench's JSON report shape breaks this test.
    from esbench.records import RaceResult, TaskResult
    from esbench.reporting.summary import render_summary

    task = TaskResult(
        task="index-append",
        operation="index-append",
        operation_type="bulk",
        throughput_unit="docs/s",
        throughput_min=900.0,
        throughput_mean=1000.0,
        throughput_median=1001.5,
        throughput_max=1100.0,
        latency_ms={"50": 4.5, "90": 9.0, "100": 12.0},
        service_time_ms={"50": 4.25, "90": 8.5, "100": 11.0},
        sample_count=50,
    )
    race = RaceResult(
        race_id="r1", timestamp="20260101T000000Z", track="stub-bulk", challenge="bulk", tasks=(task,)
    )
    f = tmp_path / "report.json"
    f.write_text(render_summary(race, fmt="json"))
    metrics, units = tools.metrics_from_rows(tools.parse_esbench_report(f), ["index-append"])
    assert metrics["index-append"]["throughput"] == 1001.5
    assert metrics["index-append"]["service_time_p50_ms"] == 4.25
    assert metrics["index-append"]["service_time_p90_ms"] == 8.5
    assert metrics["index-append"]["latency_p50_ms"] == 4.5
    assert metrics["index-append"]["error_rate_pct"] == 0.0
    assert units == {"index-append": "docs/s"}


def test_race_commands_use_the_agreed_flags(tmp_path):
    paths = tools.BenchPaths(home=tmp_path)
    params = {"search_clients": 16, "time_period": 20}
    es = tools.esbench_race_command(
        host="127.0.0.1:9", track_path=tmp_path, params=params, report_file=tmp_path / "r"
    )
    # -P: the checkout on PYTHONPATH (the one side_by_side.py lives in) is what runs, never the
    # working directory's.
    assert es[1:5] == ["-P", "-m", "esbench", "race"]
    expected = [
        "--pipeline=benchmark-only",
        "--offline",
        "--target-hosts=127.0.0.1:9",
        "--report-format=json",
        f"--track-path={tmp_path}",
        f"--report-file={tmp_path / 'r'}",
        "--track-params=search_clients:16,time_period:20",
    ]
    for flag in expected:
        assert flag in es
    rally = tools.rally_race_command(
        paths, host="127.0.0.1:9", track_path=tmp_path, params=params, report_file=tmp_path / "r"
    )
    assert "--report-format=csv" in rally and "--offline" in rally
    # Rally's --kill-running-processes SIGKILLs any python process mentioning esrally: never used.
    assert not any("kill-running" in a for a in rally)
    assert "local.dataset.cache = " + str(paths.rally_data) in tools.rally_ini_text(paths)


def _template_vars(track_dir: Path) -> set[str]:
    env = jinja2.Environment()
    names: set[str] = set()
    for f in track_dir.glob("*.json"):
        names |= jinja2.meta.find_undeclared_variables(env.parse(f.read_text()))
    return names


@pytest.mark.parametrize("case_name", ["search-1", "search-16", "bulk-4", "node"])
def test_case_tracks_accept_the_case_params(tmp_path, case_name):
    # Rally and esbench reject track params the track does not use, so each must be referenced.
    bodies = {k: tmp_path / k for k in ("search", "bulk", "term")}
    (case,) = build_cases(Options(cases=(case_name,), node_docs=1234, stub_docs=5678), bodies=bodies)
    assert set(case.params) <= _template_vars(case.track_path)
    from esbench.track import load_track

    track = load_track(path=case.track_path, params=case.params)
    challenge = track.challenges[0]
    names = [t.name for t in challenge.schedule]
    assert set(case.tasks) <= set(names)
    if case_name == "search-16":
        (search,) = [t for t in challenge.schedule if t.name == "search"]
        assert search.clients == 16 and search.time_period == case.params["time_period"]
    if case_name in ("bulk-4", "node"):
        (docs,) = track.corpora[0].documents
        assert docs.document_count == case.params["document_count"]
        assert str(case.params["document_count"]) in docs.source_file


def test_tool_order_rotates_so_each_tool_goes_first():
    firsts = {tool_order(ALL_TOOLS, rep, 0)[0] for rep in range(len(ALL_TOOLS))}
    assert firsts == set(ALL_TOOLS)
    assert sorted(tool_order(ALL_TOOLS, 1, 1)) == sorted(ALL_TOOLS)


def test_wrk_lua_reads_the_body_file(tmp_path):
    spec = WrkSpec(task="search", connections=1, threads=1, duration_s=1, path="/stub/_search",
                   body_file=tmp_path / "b.json")  # fmt: skip
    lua = tools.wrk_lua(spec)
    assert 'wrk.method = "POST"' in lua
    assert 'wrk.path = "/stub/_search"' in lua
    assert json.dumps(str(tmp_path / "b.json")) in lua


def test_stub_corpus_is_deterministic_json_and_placed_by_hard_link(tmp_path):
    c = corpora.stub_corpus(tmp_path / "cache", 1500, log=lambda _: None)
    lines = c.path.read_bytes().splitlines()
    assert len(lines) == 1500
    assert all(isinstance(json.loads(line), dict) for line in lines)
    again = corpora.stub_corpus(tmp_path / "cache2", 1500, log=lambda _: None)
    assert again.path.read_bytes() == c.path.read_bytes()
    placed = corpora.place(c, tmp_path / "rally-data")
    assert placed == tmp_path / "rally-data" / "stub-docs" / "stub-docs-1500.json"
    assert placed.read_bytes() == c.path.read_bytes()
    body = corpora.bulk_body(c, index="stub", docs=10).splitlines()
    assert len(body) == 20
    assert json.loads(body[0]) == {"index": {"_index": "stub"}}
    assert body[1] == lines[0]


def _run(tool: str, rep: int, throughput: float, p50: float, ok: bool = True, others: float = 0.3) -> ToolRun:
    return ToolRun(
        tool=tool, case="search-1", rep=rep, ok=ok, error=None if ok else "boom",
        metrics={"search": {"throughput": throughput, "service_time_p50_ms": p50}} if ok else {},
        units={"search": "ops/s"} if ok else {},
        usage={"cpu_s": 10.0 + rep, "wall_s": 30.0, "peak_rss_bytes": 100 << 20, "peak_pss_bytes": 50 << 20,
               "processes_seen": 3},
        target_cpu_s=5.0,
        other_cpu_s=others,
    )  # fmt: skip


def test_summary_medians_ratios_and_failed_tools(tmp_path):
    bodies = {k: tmp_path / k for k in ("search", "bulk", "term")}
    cases = build_cases(Options(cases=("search-1",)), bodies=bodies)
    runs = [
        _run("rally", 0, 2000.0, 0.5),
        _run("rally", 1, 2200.0, 0.4),
        _run("rally", 2, 9999.0, 0.1, ok=False),
        _run("rally", 3, 2100.0, 0.45, others=15.0),  # 0.5 cores of other load over 30 s
        _run("wrk", 0, 30000.0, 0.02),
        ToolRun(tool="esbench", case="search-1", rep=0, ok=False, error="esbench exited 64"),
    ]
    s = report.summarize(cases, runs, ALL_TOOLS)
    thr = next(r for r in s["rows"] if r["metric"] == "throughput")
    assert thr["rally"] == 2100.0  # median of the successful runs only
    assert thr["n"] == {"esbench": 0, "rally": 3, "wrk": 1, "vegeta": 0}
    assert thr["spread"]["rally"] == [2000.0, 2200.0]
    assert thr["rally/wrk"] == pytest.approx(0.07)
    assert thr["esbench"] is None and thr["esbench/rally"] is None
    assert thr["unit"] == "ops/s"
    res = {r["tool"]: r for r in s["resources"]}
    assert res["rally"]["runs_ok"] == 3 and res["rally"]["runs"] == 4
    assert res["rally"]["cpu_s"] == 11.0  # reps 0, 1, 3
    assert res["esbench"]["runs_ok"] == 0 and res["esbench"]["cpu_s"] is None
    assert any("esbench / rep 0: esbench exited 64" in w for w in s["warnings"])
    assert any("rep 2: boom" in w for w in s["warnings"])
    assert [w for w in s["warnings"] if "shared the CPU" in w] == [
        "1 of 6 runs shared the CPU with other processes (besides the tool and the server) using more than "
        "0.25 cores on average (max 0.50 cores): their numbers are lower than on an idle machine."
    ]
    assert res["rally"]["server_cpu_s"] == 5.0
    h, rows = report.metric_table(s)
    assert rows[0][h.index("esbench")] == "-"
    assert rows[0][h.index("Rally/wrk")] == "0.07x"
    md = report.pipe_table(h, rows)
    assert md.splitlines()[0].startswith("| case")


_P10 = 'process 10:"python -m esbench race --x=1;y"'
_P11 = 'process 11:"python worker"'
RAW = (
    f"{_P10};{_P11};run (esbench/driver/worker.py:10);"
    "send (esbench/driver/transport/http.py:20);write (asyncio/selector_events.py:5) 30\n"
    f"{_P10};{_P11};run (esbench/driver/worker.py:10);record (esbench/metrics/recorder.py:7) 10\n"
    f"{_P10};main (esbench/cli/race.py:3) 60\n"
)


def test_hotpath_aggregates_collapsed_stacks():
    prof = parse_collapsed(RAW.splitlines())
    assert prof.total == 100
    assert prof.processes["11 python worker"] == 40
    assert prof.processes["10 python -m esbench race --x=1;y"] == 60
    assert prof.self_samples["write (asyncio/selector_events.py)"] == 30
    assert prof.inclusive["run (esbench/driver/worker.py)"] == 40
    assert prof.self_lines["main (esbench/cli/race.py:3)"] == 60
    text = render_top(prof, top=5)
    assert "60.0%  main (esbench/cli/race.py)" in text
    assert "inclusive in files matching 'esbench/'" in text


def test_machine_cpu_accounting_counts_live_and_new_processes():
    from sidebyside import machine

    before = machine.cpu_snapshot()
    child = subprocess.Popen(
        [sys.executable, "-c", "import time\ns=time.process_time()\nwhile time.process_time()-s<0.3: pass\n"
         "input()"],
        stdin=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    try:
        while machine.process_cpu_seconds([child.pid]) < 0.3:  # bounded by the child's 0.3 s of CPU
            assert child.poll() is None
        after = machine.cpu_snapshot()
        assert machine.group_pids(child.pid) == [child.pid]
        everyone = machine.other_cpu_seconds(before, after, exclude=set())
        others = machine.other_cpu_seconds(before, after, exclude={child.pid})
        assert everyone - others >= 0.29  # the new process counts in full, unless excluded
    finally:
        child.communicate(b"\n", timeout=60)
    assert machine.process_cpu_seconds([child.pid]) == 0.0  # reaped: gone
    assert machine.process_cpu_seconds([os.getpid()]) > 0.0


@needs_nginx
def test_machine_finds_the_server_listening_on_a_port():
    from sidebyside import machine

    with NginxStub.start() as stub:
        pids = machine.listening_pids(stub.port)
        assert stub.process.pid in pids or set(pids) & set(machine.group_pids(stub.process.pid))
    assert machine.listening_pids(stub.port) == []
