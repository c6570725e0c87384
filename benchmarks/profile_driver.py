"""Profile a load driver against the nginx stub and print the top of its hot path.

    python benchmarks/profile_driver.py                              # esbench, search-16, py-spy
    python benchmarks/profile_driver.py --case bulk-4 --top 40
    python benchmarks/profile_driver.py --tool rally                 # where Rally's time goes
    python benchmarks/profile_driver.py --profiler cprofile          # main process only

Starts the stub, runs one race (``esbench race`` or ``esrally race``, the same command line as the
side-by-side benchmark) under py-spy (``record --subprocesses --nonblocking --format raw``; sampling
every process of the tree, worker processes included) or cProfile, then prints samples per process
and the top functions by self and inclusive time, and the esbench functions on the hot path.
py-spy is installed on first use into ``~/.esbench-bench/tools-venv`` (``pip install py-spy``).
cProfile sees only the main process: use it when the driver runs in a single process.
Outputs (raw stacks / pstats) stay in the run dir for flamegraph tools.
"""

from __future__ import annotations

import argparse
import datetime
import pstats
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sidebyside import corpora, tools
from sidebyside.cases import SEARCH_BODY, Options, build_cases
from sidebyside.hotpath import parse_collapsed, render_top
from sidebyside.nginx_stub import NginxStub
from sidebyside.tools import BenchPaths


def ensure_py_spy(paths: BenchPaths) -> Path:
    """The py-spy binary in the tools virtualenv (installed with pip on first use)."""
    binary = paths.tools_venv / "bin" / "py-spy"
    if not binary.exists():
        print(f"installing py-spy into {paths.tools_venv}")
        subprocess.run([sys.executable, "-m", "venv", str(paths.tools_venv)], check=True)
        subprocess.run([str(paths.tools_venv / "bin" / "pip"), "install", "--quiet", "py-spy"], check=True)
    return binary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tool", choices=("esbench", "rally"), default="esbench")
    p.add_argument("--case", choices=("search-1", "search-16", "bulk-4"), default="search-16")
    p.add_argument("--profiler", choices=("py-spy", "cprofile"), default="py-spy")
    p.add_argument("--warmup", type=int, default=2, help="search warmup-time-period, s")
    p.add_argument("--time-period", type=int, default=15, help="search time-period, s")
    p.add_argument("--stub-docs", type=int, default=2_000_000, help="bulk-4 corpus documents")
    p.add_argument("--rate", type=int, default=200, help="py-spy samples per second")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--home", type=Path, default=Path.home() / ".esbench-bench")
    p.add_argument("--out", type=Path, default=None, help="run dir (default HOME/profiles/<timestamp>)")
    a = p.parse_args(argv)

    paths = BenchPaths(home=a.home)
    run_dir = a.out or paths.home / "profiles" / datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    run_dir.mkdir(parents=True, exist_ok=True)
    tools.ensure_apt_tools()
    if a.tool == "rally":
        tools.ensure_rally(paths)
    opts = Options(
        cases=(a.case,), warmup_s=a.warmup, time_period_s=a.time_period, stub_docs=a.stub_docs, home=a.home
    )
    body = run_dir / "search-body.json"
    body.write_bytes(SEARCH_BODY)
    case = build_cases(opts, bodies={"search": body, "bulk": body, "term": body})[0]
    if case.name == "bulk-4":
        corpus = corpora.stub_corpus(paths.cache, a.stub_docs)
        corpora.place(corpus, paths.rally_data if a.tool == "rally" else paths.esbench_data)

    with NginxStub.start() as stub:
        if a.tool == "esbench":
            report = run_dir / "report.json"
            race = tools.esbench_race_command(
                host=stub.host, track_path=case.track_path, params=case.params, report_file=report
            )
            env = tools.esbench_env(paths)
        else:
            report = run_dir / "report.csv"
            race = tools.rally_race_command(
                paths, host=stub.host, track_path=case.track_path, params=case.params, report_file=report
            )
            env = tools.rally_env(paths)
        if a.profiler == "py-spy":
            raw = run_dir / "stacks.txt"
            spy = ensure_py_spy(paths)
            cmd = [str(spy), "record", "--subprocesses", "--nonblocking", "--rate", str(a.rate)]
            cmd += ["--format", "raw", "--output", str(raw), "--", *race]
        else:
            if a.tool == "rally":
                p.error("cProfile works for esbench only (Rally runs in actor processes)")
            prof_file = run_dir / "esbench.pstats"
            cmd = [sys.executable, "-m", "cProfile", "-o", str(prof_file), *race[1:]]
        print("running:", " ".join(cmd))
        rc, usage, log = tools.run_measured(
            cmd, run_dir=run_dir, name="profile", env=env, timeout=case.timeout_s
        )
        print(f"exit code {rc}; CPU {usage.get('cpu_s')} s, wall {usage.get('wall_s')} s; log {log}")
    if a.profiler == "py-spy":
        if not raw.exists():
            print(f"py-spy wrote no stacks; see {log}")
            return 1
        with open(raw) as f:
            print(render_top(parse_collapsed(f), top=a.top, focus="esbench/"))
        print(f"\nraw stacks: {raw} (flamegraph.pl or speedscope can draw them)")
    else:
        if not prof_file.exists():
            print(f"cProfile wrote nothing; see {log}")
            return 1
        stats = pstats.Stats(str(prof_file))
        stats.sort_stats("tottime").print_stats(a.top)
        stats.sort_stats("cumulative").print_stats(a.top)
    return 0 if rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
