"""Soak: does the load driver's memory stay flat over a long unthrottled race? (issue #26)

Runs ``esbench race`` with the ``stub-search`` track (``match_all`` search, no target throughput)
against the loopback nginx stub of ``benchmarks/sidebyside`` (an instant Elasticsearch, so the
driver runs at its own ceiling and every per-request leak shows as fast as it can) for
``--duration`` seconds after ``--warmup`` seconds of warmup. Every ``--interval`` seconds it
samples the resident set size (``/proc/PID/status`` ``VmRSS``, via psutil) of the esbench process and
of each of its descendants (the load-driver workers), and at the end prints:

- the RSS of the whole esbench process tree at the end of warmup, its minimum, maximum and last
  value afterwards, and the least-squares slope in MiB per hour over the samples after warmup (a
  leak shows as a steady positive slope; flat is a slope near 0 with max - min of a few MiB);
- the same per process (main process and workers);
- the requests the stub counted (nginx ``stub_status``) and the race's own counts from
  ``results.json`` (samples, errors), and the 1-minute load average at start and end (the machine
  may be shared).

Samples go to ``samples.csv`` in the run directory (``--out``, default a fresh
``/tmp/esbench-soak-*``), with ``elapsed_s,pid,role,rss_bytes`` rows. The race runs under
``nice`` (``--nice``, default 10) so that other work on a shared machine keeps its share; it is
still unthrottled: the driver sends as fast as the CPU it gets allows.

Reproduce (needs nginx: ``apt-get install -y nginx-light``)::

    python benchmarks/bench_soak.py                       # one hour, 1 client, samples every 10 s
    python benchmarks/bench_soak.py --duration 120 --warmup 30   # a quick check

Sends traffic to 127.0.0.1 only; bounded by ``--duration`` (the race is killed with its process
group 120 s after its time period would have ended); nginx is stopped at the end.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sidebyside.nginx_stub import STATUS_PATH, NginxStub, parse_stub_status  # noqa: E402

TRACK = ROOT / "benchmarks" / "tracks" / "stub-search"
MIB = 1024 * 1024


def _tree_rss(root: psutil.Process) -> list[tuple[int, str, int]]:
    """``(pid, role, rss_bytes)`` of ``root`` and every live descendant; role is ``main`` for the
    esbench process and ``worker`` for its descendants."""
    rows: list[tuple[int, str, int]] = []
    try:
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return rows
    for proc in procs:
        try:
            rss = proc.memory_info().rss
        except psutil.NoSuchProcess:
            continue
        rows.append((proc.pid, "main" if proc.pid == root.pid else "worker", rss))
    return rows


def _slope_per_hour(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of ``(seconds, value)`` points, in value units per hour (0 if < 2 points)."""
    n = len(points)
    if n < 2:
        return 0.0
    mx = sum(t for t, _ in points) / n
    my = sum(v for _, v in points) / n
    den = sum((t - mx) ** 2 for t, _ in points)
    if den == 0:
        return 0.0
    return 3600.0 * sum((t - mx) * (v - my) for t, v in points) / den


def _stub_requests(host: str) -> int:
    with urllib.request.urlopen(f"http://{host}{STATUS_PATH}", timeout=5) as response:
        return parse_stub_status(response.read().decode())


def _summary(label: str, series: list[tuple[float, float]], warmup: float) -> str:
    after = [(t, v) for t, v in series if t >= warmup]
    if not after:
        return f"  {label}: no samples after warmup"
    values = [v for _, v in after]
    at_warmup = after[0][1]
    return (
        f"  {label}: at end of warmup {at_warmup / MIB:.1f} MiB; after warmup min {min(values) / MIB:.1f}, "
        f"max {max(values) / MIB:.1f}, last {values[-1] / MIB:.1f} MiB "
        f"(max - min {(max(values) - min(values)) / MIB:.1f} MiB); slope "
        f"{_slope_per_hour(after) / MIB:+.2f} MiB/h ({_slope_per_hour(after) / 3600:+.0f} B per second of "
        f"task) over {len(after)} samples"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=int, default=3600, help="measured time-period, s (default 3600)")
    parser.add_argument("--warmup", type=int, default=120, help="warmup-time-period, s (default 120)")
    parser.add_argument("--interval", type=float, default=10.0, help="RSS sample interval, s (default 10)")
    parser.add_argument("--clients", type=int, default=1, help="search clients (default 1)")
    parser.add_argument("--nice", type=int, default=10, help="niceness of the race (default 10)")
    parser.add_argument("--out", type=Path, default=None, help="run directory (default /tmp/esbench-soak-*)")
    args = parser.parse_args()

    out = args.out or Path(tempfile.mkdtemp(prefix="esbench-soak-", dir="/tmp"))
    out.mkdir(parents=True, exist_ok=True)
    home = out / "home"
    report = out / "report.json"
    with NginxStub.start() as stub:
        cmd = [
            "nice",
            f"-n{args.nice}",
            sys.executable,
            "-m",
            "esbench",
            "race",
            "--pipeline=benchmark-only",
            "--offline",
            f"--target-hosts={stub.host}",
            f"--track-path={TRACK}",
            f"--track-params=search_clients:{args.clients},warmup_time_period:{args.warmup},"
            f"time_period:{args.duration}",
            "--report-format=json",
            f"--report-file={report}",
        ]
        shown = " ".join(["python", *cmd[3:]]).replace(str(ROOT) + "/", "")
        print(f"$ {' '.join(sys.argv)}\n  runs: {shown}\n  run dir: {out}", flush=True)
        env = {**os.environ, "ESBENCH_HOME": str(home), "PYTHONPATH": str(ROOT)}
        load_start = os.getloadavg()[0]
        requests_before = _stub_requests(stub.host)
        started = time.monotonic()
        hard_limit = args.warmup + args.duration + 120
        with open(out / "race.log", "wb") as log:
            race = subprocess.Popen(
                cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        root = psutil.Process(race.pid)
        series_total: list[tuple[float, float]] = []
        series_by_role: dict[str, list[tuple[float, float]]] = {"main": [], "workers": []}
        with open(out / "samples.csv", "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(["elapsed_s", "pid", "role", "rss_bytes"])
            try:
                while race.poll() is None:
                    elapsed = time.monotonic() - started
                    if elapsed > hard_limit:
                        raise SystemExit(
                            f"the race ran past {hard_limit} s; killed (log: {out / 'race.log'})"
                        )
                    rows = _tree_rss(root)  # nice execs in place: root is esbench
                    for pid, role, rss in rows:
                        writer.writerow([f"{elapsed:.1f}", pid, role, rss])
                    fh.flush()
                    if rows:
                        series_total.append((elapsed, float(sum(r[2] for r in rows))))
                        series_by_role["main"].append(
                            (elapsed, float(sum(r[2] for r in rows if r[1] == "main")))
                        )
                        series_by_role["workers"].append(
                            (elapsed, float(sum(r[2] for r in rows if r[1] == "worker")))
                        )
                    time.sleep(args.interval)
            finally:
                if race.poll() is None:
                    os.killpg(race.pid, signal.SIGKILL)
                    race.wait()
        requests = _stub_requests(stub.host) - requests_before - 1
    load_end = os.getloadavg()[0]
    if race.returncode != 0:
        raise SystemExit(f"esbench race failed ({race.returncode}); log: {out / 'race.log'}")
    race_id = json.loads(report.read_text())["race"]["race_id"]
    results = json.loads((home / "races" / race_id / "results.json").read_text())
    task = results["tasks"][0]
    # Warmup ends after start-up (imports, track loading, workers forked): take the sample
    # nearest to the end of warmup as measured from the first sample with workers.
    first_worker = next((t for t, v in series_by_role["workers"] if v > 0), 0.0)
    warmup_end = first_worker + args.warmup
    shape = f"{args.clients} client(s), nice {args.nice}"
    print(f"\nsoak of {args.duration} s after {args.warmup} s warmup, {shape}")
    print(_summary("esbench process tree", series_total, warmup_end))
    print(_summary("main process", series_by_role["main"], warmup_end))
    print(_summary("worker processes", series_by_role["workers"], warmup_end))
    print(
        f"  requests counted by the stub: {requests:,}; race: {task.get('sample_count', 0):,} measured + "
        f"{task.get('warmup_sample_count', 0):,} warmup samples, {task.get('error_count', 0)} errors, "
        f"median throughput {task.get('throughput_median', 0):,.0f} ops/s"
    )
    print(f"  load average (1 min) at start {load_start:.2f}, at end {load_end:.2f}; {os.cpu_count()} cores")
    print(f"  samples: {out / 'samples.csv'}")


if __name__ == "__main__":
    main()
