"""Tests of vegeta as a side-by-side load driver and of the CPU-per-1,000-requests column
(benchmarks/sidebyside/vegeta.py, cost.py, report.py). The vegeta reports under data/ are captured
from vegeta v12.13.0 (`vegeta report -type=json`): one run against the nginx stub, one against a
closed port (every request failed with "connection refused")."""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(BENCH))

from sidebyside import cost, report, vegeta  # noqa: E402
from sidebyside.cases import ALL_TOOLS, Options, build_cases  # noqa: E402
from sidebyside.nginx_stub import NginxStub, nginx_binary, parse_stub_status  # noqa: E402
from sidebyside.paths import BenchPaths  # noqa: E402
from sidebyside.tools import ToolRun, WrkSpec  # noqa: E402

needs_nginx = pytest.mark.skipif(
    nginx_binary() is None, reason="nginx not installed (apt-get install nginx-light)"
)


def test_parse_vegeta_report_of_a_successful_run():
    v = vegeta.parse_vegeta_report((DATA / "vegeta_report_ok.json").read_text())
    assert v["requests"] == 37461
    assert v["throughput"] == pytest.approx(18723.857992235127)
    assert v["rate"] == pytest.approx(18725.552521768223)
    # time.Duration nanoseconds -> ms
    assert v["latency_p50_ms"] == pytest.approx(0.115639)
    assert v["latency_p90_ms"] == pytest.approx(0.207591)
    assert v["latency_p99_ms"] == pytest.approx(1.614584)
    assert v["latency_mean_ms"] == pytest.approx(0.190855)
    assert v["errors"] == 0


def test_parse_vegeta_report_counts_failed_requests_as_errors():
    v = vegeta.parse_vegeta_report((DATA / "vegeta_report_errors.json").read_text())
    assert v["requests"] == 4951
    assert v["errors"] == 4951  # status code 0: transport error
    assert v["throughput"] == 0.0
    mixed = json.loads((DATA / "vegeta_report_ok.json").read_text())
    mixed["status_codes"] = {"200": 90, "302": 5, "500": 3, "0": 2}
    mixed["requests"] = 100
    assert vegeta.parse_vegeta_report(json.dumps(mixed))["errors"] == 5


def test_parse_vegeta_report_rejects_other_input():
    with pytest.raises(ValueError, match="not a vegeta JSON report"):
        vegeta.parse_vegeta_report("Requests [total, rate] 10, 1.00")
    empty = json.loads((DATA / "vegeta_report_ok.json").read_text()) | {"requests": 0}
    with pytest.raises(ValueError, match="no requests"):
        vegeta.parse_vegeta_report(json.dumps(empty))


def test_parse_build_info_reads_the_module_version():
    text = (DATA / "vegeta_build_info.txt").read_text()
    assert vegeta.parse_build_info(text) == "vegeta v12.13.0 (go1.26.8)"
    assert vegeta.parse_build_info("") == "vegeta ? (go ?)"


def test_attack_is_a_closed_loop_of_n_workers_with_the_wrk_request(tmp_path):
    bodies = {"search": tmp_path / "s.json", "bulk": tmp_path / "b.ndjson", "term": tmp_path / "t.json"}
    (case,) = build_cases(Options(cases=("search-16",), time_period_s=7), bodies=bodies)
    spec = case.wrk
    cmd = vegeta.attack_command(
        Path("/x/vegeta"), host="127.0.0.1:9", spec=spec, targets=tmp_path / "t", output=tmp_path / "o"
    )
    assert cmd[:2] == ["/x/vegeta", "attack"]
    for flag in ("-rate=0", "-workers=16", "-max-workers=16", "-max-connections=16", "-keepalive=true",
                 "-max-body=0", "-duration=7s", f"-body={tmp_path / 's.json'}",
                 "-header=Content-Type: application/json", f"-targets={tmp_path / 't'}"):  # fmt: skip
        assert flag in cmd
    assert vegeta.targets_text("127.0.0.1:9", spec) == "POST http://127.0.0.1:9/stub/_search\n"
    (bulk,) = build_cases(Options(cases=("bulk-4",)), bodies={"search": tmp_path, "bulk": tmp_path / "b",
                                                               "term": tmp_path})  # fmt: skip
    bcmd = vegeta.attack_command(Path("v"), host="h:1", spec=bulk.wrk, targets=tmp_path, output=tmp_path)
    assert "-header=Content-Type: application/x-ndjson" in bcmd and "-workers=4" in bcmd
    assert vegeta.targets_text("h:1", bulk.wrk) == "POST http://h:1/_bulk\n"


def test_merge_usage_adds_cpu_and_keeps_peaks():
    attack = {"cpu_s": 4.0, "cpu_user_s": 3.0, "cpu_sys_s": 1.0, "wall_s": 10.5, "peak_rss_bytes": 30,
              "peak_pss_bytes": 20, "max_single_rss_bytes": 30, "processes_seen": 1,
              "returncode": 0}  # fmt: skip
    rep = {"cpu_s": 0.5, "cpu_user_s": 0.4, "cpu_sys_s": 0.1, "wall_s": 0.6, "peak_rss_bytes": 50,
           "peak_pss_bytes": 10, "max_single_rss_bytes": 50, "processes_seen": 1}  # fmt: skip
    u = vegeta.merge_usage(attack, rep)
    assert u["cpu_s"] == 4.5 and u["cpu_user_s"] == 3.4 and u["wall_s"] == 11.1
    assert u["peak_rss_bytes"] == 50 and u["peak_pss_bytes"] == 20
    assert u["attack_cpu_s"] == 4.0 and u["report_cpu_s"] == 0.5
    assert u["returncode"] == 0


def test_missing_vegeta_without_install_is_a_clear_error(tmp_path):
    with pytest.raises(RuntimeError, match=r"vegeta is not installed at .*--no-install"):
        vegeta.ensure_vegeta(BenchPaths(home=tmp_path), install=False)


def test_missing_go_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(vegeta, "go_binary", lambda: None)
    with pytest.raises(RuntimeError, match="no Go toolchain"):
        vegeta.ensure_vegeta(BenchPaths(home=tmp_path), install=True)


def test_cpu_per_1k_requests_arithmetic_and_sources():
    assert cost.cpu_s_per_1k_requests(12.0, 400_000) == pytest.approx(0.03)
    assert cost.cpu_s_per_1k_requests(3.0, 1500) == pytest.approx(2.0)  # bulk: requests, not documents
    assert cost.cpu_s_per_1k_requests(None, 10) is None
    assert cost.cpu_s_per_1k_requests(1.0, 0) is None
    assert cost.cost_requests({"tool": 10, "server": 12}) == (12, "server")
    assert cost.cost_requests({"tool": 10}) == (10, "tool")
    assert cost.cost_requests({}) == (None, None)
    assert cost.server_requests(100, 151) == 50
    assert cost.count_mismatch({"tool": 98, "server": 100}) == pytest.approx(0.02)
    assert cost.count_mismatch({"tool": 98}) is None


def test_esbench_requests_sums_measurement_and_warmup_of_all_tasks(tmp_path):
    # esbench's own writer and renderer, so that a change of either file's shape breaks this test.
    from esbench.records import RaceResult, TaskResult
    from esbench.reporting.summary import render_summary
    from esbench.results.files import write_results_file

    def task(name: str, samples: int, warmup: int) -> TaskResult:
        return TaskResult(task=name, operation=name, operation_type="search", throughput_unit="ops/s",
                          throughput_median=1.0, sample_count=samples,
                          warmup_sample_count=warmup)  # fmt: skip

    race = RaceResult(race_id="r-42", timestamp="20260101T000000Z", track="t", challenge="c",
                      tasks=(task("create-index", 1, 0), task("search", 3000, 700)))  # fmt: skip
    report_file = tmp_path / "report.json"
    report_file.write_text(render_summary(race, fmt="json"))
    home = tmp_path / "home"
    write_results_file(race, home / "races" / "r-42" / "results.json")
    assert cost.esbench_requests(report_file, home) == 3701
    assert cost.esbench_requests(report_file, tmp_path / "elsewhere") is None


def test_stub_status_page_parsing():
    page = (
        "Active connections: 1 \nserver accepts handled requests\n 9 9 31 \n"
        "Reading: 0 Writing: 1 Waiting: 0 \n"
    )
    assert parse_stub_status(page) == 31
    with pytest.raises(ValueError):
        parse_stub_status('{"acknowledged":true}')


@needs_nginx
def test_stub_counts_the_requests_a_tool_sends():
    with NginxStub.start() as stub:
        before = stub.requests_served()
        for _ in range(7):
            req = urllib.request.Request(f"http://{stub.host}/stub/_search", data=b"{}", method="POST")
            urllib.request.urlopen(req, timeout=5).read()
        assert cost.server_requests(before, stub.requests_served()) == 7
        # The counter's own path stays out of the administrative calls listed after a run.
        assert not any("stub_status" in line for line in stub.admin_requests())


def _run(tool: str, rep: int, cpu_s: float, requests: dict[str, int], ok: bool = True) -> ToolRun:
    return ToolRun(
        tool=tool, case="search-1", rep=rep, ok=ok, error=None if ok else "boom",
        metrics={"search": {"throughput": 1000.0 * (rep + 1), "service_time_p50_ms": 0.1}} if ok else {},
        units={"search": "ops/s"} if ok else {},
        usage={"cpu_s": cpu_s, "wall_s": 10.0, "peak_rss_bytes": 1 << 20, "peak_pss_bytes": 1 << 20},
        requests=requests,
    )  # fmt: skip


def test_summary_reports_cpu_per_1k_requests_and_vegeta_ratios(tmp_path):
    bodies = {k: tmp_path / k for k in ("search", "bulk", "term")}
    cases = build_cases(Options(cases=("search-1",)), bodies=bodies)
    runs = [
        _run("esbench", 0, 10.0, {"tool": 99_000, "server": 100_000}),
        _run("esbench", 1, 12.0, {"tool": 100_000, "server": 100_000}),
        _run("esbench", 2, 50.0, {"server": 1}, ok=False),  # failed: left out of the medians
        _run("vegeta", 0, 4.0, {"tool": 200_000, "server": 160_000}),  # 25 % apart: a warning
        _run("rally", 0, 30.0, {}),  # no count anywhere
    ]
    s = report.summarize(cases, runs, ALL_TOOLS)
    res = {r["tool"]: r for r in s["resources"]}
    # esbench: 10 s / 100,000 and 12 s / 100,000 requests -> 0.1 and 0.12 s per 1,000; median 0.11.
    assert res["esbench"]["cpu_s_per_1k_requests"] == pytest.approx(0.11)
    assert res["esbench"]["requests"] == 100_000 and res["esbench"]["requests_source"] == ["server"]
    assert res["vegeta"]["cpu_s_per_1k_requests"] == pytest.approx(0.025)
    assert res["rally"]["cpu_s_per_1k_requests"] is None and res["rally"]["requests"] is None
    mismatch = [w for w in s["warnings"] if "apart" in w]
    assert mismatch == [
        "search-1 / vegeta / rep 0: the tool counted 200,000 requests, the stub 160,000 (25.0 % apart)"
    ]
    thr = next(r for r in s["rows"] if r["metric"] == "throughput")
    assert thr["vegeta"] == 1000.0 and thr["esbench"] == 1500.0
    assert thr["esbench/vegeta"] == pytest.approx(1.5)
    h, rows = report.resource_table(s)
    by_tool = {r[h.index("tool")]: r for r in rows}
    assert by_tool["esbench"][h.index("CPU s / 1k req")] == "0.110"
    assert by_tool["Rally"][h.index("CPU s / 1k req")] == "-"
    mh, mrows = report.metric_table(s)
    assert mh[4:8] == ["esbench", "Rally", "wrk", "vegeta"] and "esbench/vegeta" in mh
    assert mrows[0][mh.index("esbench/vegeta")] == "1.50x"


def _vegeta_paths() -> BenchPaths:
    paths = BenchPaths(home=Options().home)
    if not vegeta.vegeta_binary(paths).exists() and vegeta.go_binary() is None:
        pytest.skip("vegeta is not installed and there is no Go toolchain to install it (https://go.dev/dl/)")
    return paths


@needs_nginx
def test_vegeta_run_against_the_stub_is_counted_by_both_sides(tmp_path):
    # One worker for one second: bounded, a few thousand requests to the loopback stub.
    paths = _vegeta_paths()
    version = vegeta.ensure_vegeta(paths, install=True, log=lambda _: None)
    assert version.startswith(f"vegeta {vegeta.VERSION}")
    body = tmp_path / "b.json"
    body.write_bytes(b'{"query":{"match_all":{}}}')
    spec = WrkSpec(
        task="search", connections=1, threads=1, duration_s=1, path="/stub/_search", body_file=body
    )
    with NginxStub.start() as stub:
        before = stub.requests_served()
        run = vegeta.run_vegeta(paths, case="t", rep=0, host=stub.host, spec=spec, run_dir=tmp_path)
        served = cost.server_requests(before, stub.requests_served())
    assert run.ok, run.error
    assert run.requests["tool"] == served > 0
    m = run.metrics["search"]
    assert m["error_rate_pct"] == 0.0
    assert 0 < m["service_time_p50_ms"] <= m["service_time_p90_ms"]
    assert m["throughput"] == pytest.approx(served, rel=0.2)  # ~1 s of requests
    assert run.usage["cpu_s"] == pytest.approx(
        run.usage["attack_cpu_s"] + run.usage["report_cpu_s"], abs=0.01
    )
    assert not (tmp_path / "t.vegeta.0.results.gob").exists()
