"""The Ray load driver against the local one on this machine (not a test: prints measurements).

Run: ``python benchmarks/bench_ray_driver.py [--clients 6] [--time-period 10] [--repetitions 3]
[--target nginx|stub]``

Starts a loopback Elasticsearch stub and a two-node Ray cluster on loopback addresses
(``tests/ray_cluster.py``: 127.0.0.3 with 2 CPUs, 127.0.0.2 with 1 CPU), then races the same
``match_all`` search task
(``--clients`` clients, warmup 2 s, ``--time-period`` s, unthrottled) with ``--load-driver=local``
and ``--load-driver=ray``, alternating, both with 3 workers (the Ray cluster's CPU count). Prints
each run's ops/s and p50/p90 service time, the medians per backend, the Ray overhead in % and the
load average before and after (the machine is shared: a busy run shows there). Stops the Ray
cluster (``ray stop --force``) and the stub at the end.

Targets: ``nginx`` (default; the nginx stub of ``benchmarks/sidebyside/``, which answers at once, so
the load driver is the bottleneck and its overhead shows in ops/s) or ``stub`` (the driver tests'
``StubProcess``, a Python process answering after 1 ms; it serves ~1,000 requests/s, so both
backends meet the same ceiling and the figures show latency overhead only).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [
    str(ROOT),
    str(ROOT / "tests"),
    str(ROOT / "tests" / "unit" / "driver"),
    str(ROOT / "benchmarks"),
]

from driver_helpers import StubProcess, challenge, op, task, track  # noqa: E402
from ray_cluster import RayCluster  # noqa: E402
from sidebyside.nginx_stub import NginxStub  # noqa: E402

from esbench.driver.coordinator.run import DriverSettings, run_challenge, tasks_of  # noqa: E402
from esbench.driver.transport.client import ClientOptions  # noqa: E402

WORKERS = 3


def race(
    stub: StubProcess | NginxStub, settings: DriverSettings, clients: int, time_period: float
) -> tuple[float, float, float]:
    """One race: (median ops/s, p50 service time ms, p90 service time ms)."""
    search = task(
        op("search", index="idx", body={"query": {"match_all": {}}}),
        clients=clients,
        warmup_time_period=2,
        time_period=time_period,
    )
    outcome = run_challenge(
        track=track(),
        challenge=challenge(search),
        hosts=[stub.host],
        client_options=ClientOptions(timeout=10),
        settings=settings,
        corpora=None,
    )
    if outcome.status != "completed":
        raise SystemExit(f"race failed: {outcome.error}")
    result = tasks_of(outcome)[search.name]
    return result.throughput_median, float(result.service_time_ms["50"]), float(result.service_time_ms["90"])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--time-period", type=float, default=10.0)
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--target", choices=("nginx", "stub"), default="nginx")
    args = parser.parse_args()
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    load_before = os.getloadavg()
    cluster = RayCluster()
    runs: dict[str, list[tuple[float, float, float]]] = {"local": [], "ray": []}
    try:
        cluster.start()
        backends = {
            "local": DriverSettings(workers=WORKERS, task_pause_s=0),
            "ray": DriverSettings(load_driver="ray", ray_address=cluster.address, task_pause_s=0),
        }
        with NginxStub.start() if args.target == "nginx" else StubProcess(delay=0.001) as stub:
            for rep in range(args.repetitions):
                for name, settings in backends.items():
                    ops, p50, p90 = race(stub, settings, args.clients, args.time_period)
                    runs[name].append((ops, p50, p90))
                    print(
                        f"run {rep + 1} {name:5}: {ops:8.1f} ops/s  p50 {p50:6.3f} ms  p90 {p90:6.3f} ms",
                        flush=True,
                    )
    finally:
        cluster.stop()
    load_after = os.getloadavg()
    medians = {
        name: tuple(statistics.median(r[i] for r in values) for i in range(3))
        for name, values in runs.items()
    }
    for name, (ops, p50, p90) in medians.items():
        print(f"median {name:5}: {ops:8.1f} ops/s  p50 {p50:6.3f} ms  p90 {p90:6.3f} ms")
    local, ray = medians["local"], medians["ray"]
    ops_change = 100 * (ray[0] / local[0] - 1)
    p50_change = 100 * (ray[1] / local[1] - 1)
    print(f"ray vs local: ops/s {ops_change:+.1f} %, p50 service time {p50_change:+.1f} %")
    print(f"load average (1/5/15 min) before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")
    print(f"load average (1/5/15 min) after:  {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    print(f"cpus: {os.cpu_count()}")


if __name__ == "__main__":
    main()
