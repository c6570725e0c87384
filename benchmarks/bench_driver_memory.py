"""Peak memory of each process of an ``esbench race`` (not a test: prints measurements).

Run::

    python benchmarks/bench_driver_memory.py                                     # this tree, 16 clients
    python benchmarks/bench_driver_memory.py --source /path/to/old/tree --source .  # A/B, alternating
    python benchmarks/bench_driver_memory.py --clients 1

Starts the loopback nginx stub of ``benchmarks/sidebyside/`` and runs the side-by-side ``search-N``
case (``benchmarks/tracks/stub-search``: ``match_all``, ``--clients`` clients, unthrottled) with
``python -m esbench race`` from each ``--source`` tree (``PYTHONPATH`` set to it, a fresh
``ESBENCH_HOME``). Every ``--interval`` seconds it reads, for each process of the race's tree,
``/proc/PID/statm`` (RSS) and ``/proc/PID/smaps_rollup`` (PSS, and private = ``Private_Clean`` +
``Private_Dirty``: what the process alone costs). Prints per process its role (``main``,
``worker``; ``forkserver`` and ``resource_tracker`` in trees from before workers were
plain child processes), its peak RSS / PSS / private MiB, and the peak of
the tree's RSS and PSS sums - the same sums as ``sidebyside/treerun.py`` (the side-by-side table's
"peak RSS MiB" is the peak of that RSS sum). Sampling can miss a spike between two polls.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from sidebyside.nginx_stub import NginxStub  # noqa: E402
from sidebyside.tools import esbench_race_command  # noqa: E402
from sidebyside.treerun import descendants  # noqa: E402

_PAGE = os.sysconf("SC_PAGE_SIZE")
MiB = 2**20


def _smaps(pid: int) -> tuple[int, int, int]:
    """(RSS, PSS, private) bytes of ``pid``; zeros if it is gone."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            rss = int(f.read().split()[1]) * _PAGE
        pss = private = 0
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    pss = int(line.split()[1]) * 1024
                elif line.startswith((b"Private_Clean:", b"Private_Dirty:")):
                    private += int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        return 0, 0, 0
    return rss, pss, private


def _role(pid: int, root: int, parents: dict[int, int]) -> str:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
    except OSError:
        return "?"
    if pid == root:
        return "main"
    if b"resource_tracker" in cmd:
        return "resource_tracker"
    if b"forkserver" in cmd:
        # Workers are forked by the fork server and keep its command line.
        return "worker" if parents.get(pid) != root else "forkserver"
    if b"esbench.driver.worker.child" in cmd:  # a plain child of main (esbench after issue 25)
        return "worker"
    return "worker" if b"spawn_main" in cmd else cmd.decode(errors="replace")[:60]


def _ppid(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
        return int(stat[stat.rfind(b")") + 2 :].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


@dataclass
class Peak:
    """One process's peaks, bytes."""

    role: str
    rss: int = 0
    pss: int = 0
    private: int = 0


@dataclass
class Run:
    """One race: each process's peaks (by PID) and the peaks of the tree's sums, bytes."""

    procs: dict[int, Peak] = field(default_factory=dict)
    rss: int = 0
    pss: int = 0


def measure(source: str, args: argparse.Namespace, host: str) -> Run:
    """One race from ``source``, sampled every ``args.interval`` seconds."""
    home = Path(tempfile.mkdtemp(prefix="esbench-mem-"))
    report = home / "report.json"
    params = {
        "search_clients": args.clients,
        "warmup_time_period": args.warmup,
        "time_period": args.time_period,
    }
    cmd = esbench_race_command(
        host=host,
        track_path=ROOT / "benchmarks" / "tracks" / "stub-search",
        params=params,
        report_file=report,
    )
    env = {**os.environ, "PYTHONPATH": source, "ESBENCH_HOME": str(home)}
    run = Run()
    try:
        main = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        while main.poll() is None:
            pids = [main.pid, *descendants(main.pid)]
            parents = {p: _ppid(p) for p in pids}
            rss_sum = pss_sum = 0
            for pid in pids:
                rss, pss, private = _smaps(pid)
                rss_sum += rss
                pss_sum += pss
                peak = run.procs.setdefault(pid, Peak(role=_role(pid, main.pid, parents)))
                peak.rss, peak.pss, peak.private = (
                    max(peak.rss, rss),
                    max(peak.pss, pss),
                    max(peak.private, private),
                )
            run.rss, run.pss = max(run.rss, rss_sum), max(run.pss, pss_sum)
            time.sleep(args.interval)
        err = main.stderr.read().decode(errors="replace") if main.stderr else ""
        if main.returncode != 0:
            raise SystemExit(f"race from {source} failed (exit {main.returncode}):\n{err[-3000:]}")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--source", action="append", help="esbench tree (repeatable; default: this one)")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--warmup", type=int, default=5, help="warmup-time-period, s")
    parser.add_argument("--time-period", type=int, default=10, help="s")
    parser.add_argument("--repetitions", type=int, default=1)
    parser.add_argument("--interval", type=float, default=0.2, help="sampling interval, s")
    args = parser.parse_args()
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]))
    sources = [str(Path(s).resolve()) for s in (args.source or [str(ROOT)])]
    totals: dict[str, list[tuple[int, int]]] = {s: [] for s in sources}
    with NginxStub.start(workers=1) as stub:
        for rep in range(args.repetitions):
            for source in sources:
                run = measure(source, args, stub.host)
                totals[source].append((run.rss, run.pss))
                print(f"\nrep {rep} {source}: search-{args.clients}, per process (peak MiB):")
                print(f"  {'pid':>8} {'role':18} {'RSS':>7} {'PSS':>7} {'private':>8}")
                for pid, p in sorted(run.procs.items()):
                    print(
                        f"  {pid:>8} {p.role:18} {p.rss / MiB:7.1f} {p.pss / MiB:7.1f} {p.private / MiB:8.1f}"
                    )
                print(
                    f"  tree: peak RSS sum {run.rss / MiB:.1f} MiB, peak PSS sum {run.pss / MiB:.1f} MiB, "
                    f"{len(run.procs)} processes"
                )
    print(f"\nsearch-{args.clients}, median over {args.repetitions} run(s):")
    for source, runs in totals.items():
        rss = statistics.median(r for r, _ in runs) / MiB
        pss = statistics.median(p for _, p in runs) / MiB
        print(f"  {source}: peak tree RSS {rss:.1f} MiB, peak tree PSS {pss:.1f} MiB")


if __name__ == "__main__":
    main()
