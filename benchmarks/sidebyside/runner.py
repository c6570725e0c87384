"""Runs the side-by-side benchmark: tools, corpora, stub and node phases, summary files."""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import platform
import shlex
import signal
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sidebyside import corpora, cost, machine, report, tools, vegeta
from sidebyside.cases import SEARCH_BODY, TERM_BODY, Case, Options, build_cases, tool_order
from sidebyside.nginx_stub import NginxStub
from sidebyside.node import node_version, real_node
from sidebyside.tools import BenchPaths, ToolRun

Log = Callable[[str], None]


def machine_info() -> dict[str, Any]:
    """``nproc``, memory (``free -h`` total), CPU model (/proc/cpuinfo), kernel, load average."""
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    r = subprocess.run(["free", "-h"], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if line.startswith("Mem:"):
            mem = line.split()[1]
    return {
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "memory": mem,
        "kernel": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "loadavg_start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def _sigterm_to_interrupt() -> None:
    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def _run_tool(
    tool: str,
    case: Case,
    rep: int,
    host: str,
    paths: BenchPaths,
    run_dir: Path,
    log: Log,
    target_pids: Callable[[], list[int]],
    served: Callable[[], int] | None = None,
) -> ToolRun:
    """One measured run of ``tool``; ``served`` reads the stub's request counter (None: no counter)."""
    snap0 = machine.cpu_snapshot()
    target0 = machine.process_cpu_seconds(pids := target_pids())
    served0 = served() if served else None
    if tool == "wrk":
        assert case.wrk is not None
        result = tools.run_wrk(case=case.name, rep=rep, host=host, spec=case.wrk, run_dir=run_dir)
    elif tool == "vegeta":
        assert case.wrk is not None
        result = vegeta.run_vegeta(paths, case=case.name, rep=rep, host=host, spec=case.wrk, run_dir=run_dir)
    else:
        fn = tools.run_esbench if tool == "esbench" else tools.run_rally
        result = fn(
            paths,
            case=case.name,
            rep=rep,
            host=host,
            track_path=case.track_path,
            params=case.params,
            tasks=case.tasks,
            run_dir=run_dir,
            timeout=case.timeout_s,
        )
    target_cpu = machine.process_cpu_seconds(pids) - target0
    if served is not None and served0 is not None:
        counts = {**result.requests, "server": cost.server_requests(served0, served())}
        result = dataclasses.replace(result, requests=counts)
    if result.usage:
        exclude = {os.getpid(), *pids}
        others = machine.other_cpu_seconds(snap0, machine.cpu_snapshot(), exclude=exclude)
        result = dataclasses.replace(result, target_cpu_s=round(target_cpu, 2), other_cpu_s=round(others, 2))
    if result.ok:
        shown = ", ".join(
            f"{t}.{k}={v:,.2f}"
            for t, m in result.metrics.items()
            for k, v in m.items()
            if k != "error_rate_pct"
        )
        u = result.usage
        n, _ = cost.cost_requests(result.requests)
        per_1k = cost.cpu_s_per_1k_requests(u.get("cpu_s"), n)
        log(
            f"  {case.name} rep {rep} {tool:8s} ok: {shown}; CPU {u.get('cpu_s', 0):.1f} s"
            + (f" = {per_1k:.3f} s per 1,000 of {n:,} requests" if per_1k is not None else "")
            + ", "
            f"peak RSS {u.get('peak_rss_bytes', 0) / 2**20:.0f} MiB, wall {u.get('wall_s', 0):.1f} s; "
            f"server CPU {result.target_cpu_s} s, other processes {result.other_cpu_s} s"
        )
    else:
        first = (result.error or "").strip().splitlines()[:1]
        log(f"  {case.name} rep {rep} {tool:8s} FAILED: {first[0] if first else '?'}")
    return result


def _race_tools(opts: Options) -> tuple[str, ...]:
    return tuple(t for t in opts.tools if t in ("esbench", "rally"))


def run_benchmark(opts: Options, *, argv: Sequence[str], log: Log = print) -> dict[str, Any]:
    """Run everything ``opts`` selects and write ``summary.json`` / ``summary.md`` into the run dir.

    Returns the document written to ``summary.json`` (machine, versions, command, settings, cases,
    summary, runs). A Ctrl-C stops the running tool, nginx and the node, and still writes the summary
    of the runs done so far (``"interrupted": true``), then re-raises KeyboardInterrupt.
    """
    _sigterm_to_interrupt()
    paths = BenchPaths(home=opts.home)
    started = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    run_dir = opts.out or (paths.home / "runs" / started)
    run_dir.mkdir(parents=True, exist_ok=True)
    log(f"side-by-side benchmark; logs and reports in {run_dir}")

    versions: dict[str, str] = {"esbench": tools.esbench_version()}
    needs_stub = any(c in opts.cases for c in ("search-1", "search-16", "bulk-4"))
    if needs_stub or "wrk" in opts.tools:
        versions.update(tools.ensure_apt_tools(install=opts.install, log=log))
    if "vegeta" in opts.tools and needs_stub:
        versions["vegeta"] = vegeta.ensure_vegeta(paths, install=opts.install, log=log)
    if "rally" in opts.tools:
        versions["rally"] = tools.ensure_rally(paths, install=opts.install, log=log)

    bodies = {
        "search": run_dir / "search-body.json",
        "term": run_dir / "term-body.json",
        "bulk": run_dir / "bulk-body.ndjson",
    }
    bodies["search"].write_bytes(SEARCH_BODY)
    bodies["term"].write_bytes(TERM_BODY)
    cases = build_cases(opts, bodies=bodies)

    if any(c.name == "bulk-4" for c in cases):
        stub_corpus = corpora.stub_corpus(paths.cache, opts.stub_docs, log=log)
        corpora.place(stub_corpus, paths.rally_data)
        corpora.place(stub_corpus, paths.esbench_data)
        bodies["bulk"].write_bytes(corpora.bulk_body(stub_corpus, index="stub", docs=opts.bulk_size))
    if any(c.name == "node" for c in cases):
        event_corpus = corpora.eventdata_corpus(paths.cache, opts.node_docs, log=log)
        corpora.place(event_corpus, paths.rally_data)
        corpora.place(event_corpus, paths.esbench_data)

    doc: dict[str, Any] = {
        "started": started,
        "machine": machine_info(),
        "versions": versions,
        "command": " ".join(shlex.quote(a) for a in ["python", *argv]),
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(opts).items()},
        "cases": [{"name": c.name, "description": c.description, "params": c.params} for c in cases],
        "interrupted": False,
        "run_dir": str(run_dir),
    }
    runs: list[ToolRun] = []
    try:
        stub_cases = [c for c in cases if c.target == "stub"]
        if stub_cases:
            with NginxStub.start(port=opts.port, workers=opts.nginx_workers) as stub:
                log(f"nginx stub on {stub.host} (prefix {stub.prefix})")
                pgid = stub.process.pid

                def nginx_pids() -> list[int]:
                    return machine.group_pids(pgid)

                for rep in range(opts.repetitions):
                    for i, case in enumerate(stub_cases):
                        for tool in tool_order(opts.tools, rep, i):
                            runs.append(
                                _run_tool(
                                    tool,
                                    case,
                                    rep,
                                    stub.host,
                                    paths,
                                    run_dir,
                                    log,
                                    nginx_pids,
                                    stub.requests_served,
                                )
                            )
                            tools.wait_quiet(opts.pause_s)
                (run_dir / "nginx-admin-requests.txt").write_text("\n".join(stub.admin_requests()) + "\n")
        node_cases = [c for c in cases if c.target == "node"]
        if node_cases:
            case = node_cases[0]
            with real_node(
                version=opts.node_version, car=opts.node_car, race_dir=run_dir / "node", hosts=opts.node_hosts
            ) as host:
                versions["elasticsearch (node case)"] = node_version(host)
                log(f"Elasticsearch {versions['elasticsearch (node case)']} node on {host}")
                port = int(host.rsplit(":", 1)[1])

                def node_pids() -> list[int]:
                    return machine.listening_pids(port)

                race_tools = _race_tools(opts)
                warmers = race_tools
                for i in range(opts.node_warmup_runs if warmers else 0):
                    # A fresh JVM indexes and searches slower for its first minute: whichever tool ran
                    # first would be penalised. This run warms the node and is left out of the summary.
                    tool = warmers[i % len(warmers)]
                    log(f"  node warm-up run {i + 1} with {tool} (not measured)")
                    warm = _run_tool(tool, case, -1 - i, host, paths, run_dir, log, node_pids)
                    doc.setdefault("warmup_runs", []).append(warm.to_dict())
                for rep in range(opts.repetitions):
                    for tool in tool_order(race_tools, rep, 0):
                        runs.append(_run_tool(tool, case, rep, host, paths, run_dir, log, node_pids))
                        tools.wait_quiet(opts.pause_s)
                    if "wrk" in opts.tools:
                        # After a race tool: the index exists and holds the corpus.
                        runs.append(_run_tool("wrk", case, rep, host, paths, run_dir, log, node_pids))
                        tools.wait_quiet(opts.pause_s)
    except KeyboardInterrupt:
        doc["interrupted"] = True
        log("interrupted: stopped the running tool, nginx and the node; writing the partial summary")
        raise
    finally:
        doc["machine"]["loadavg_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
        doc["summary"] = report.summarize(cases, runs, opts.tools)
        doc["runs"] = [r.to_dict() for r in runs]
        (run_dir / "summary.json").write_text(json.dumps(doc, indent=2) + "\n")
        md = report.render_markdown(doc)
        (run_dir / "summary.md").write_text(md)
        log("")
        log(md)
        log(f"written: {run_dir / 'summary.json'} and {run_dir / 'summary.md'}")
    return doc
