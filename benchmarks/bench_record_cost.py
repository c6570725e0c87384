"""Before/after cost of ``TaskRecorder.record`` on the hot path (not a test: prints measurements).

Run (compare this tree with an older commit of esbench extracted elsewhere)::

    git archive f7f82d1 esbench | (mkdir -p /tmp/esbench-before && tar -x -C /tmp/esbench-before)
    python benchmarks/bench_record_cost.py --source /tmp/esbench-before --source .

For each ``--source`` tree a fresh interpreter imports ``esbench`` from it and records the same
synthetic load as the driver's top speed: 37,000 responses per simulated second (16 clients),
latencies of 1-20 ms with a long tail, 1 % failed requests, measurement samples only. It prints the
minimum over ``--repeat`` runs of the CPU time (``time.process_time``) per ``record()`` call (the
loop's own cost, measured alone, subtracted): CPU time and the minimum keep other processes on a
shared machine from inflating the figure;
and, with ``--hour``, after a simulated one-hour task at 1,000 responses/s: the RSS growth (rough:
freed memory of the timing runs is reused), the pickled state size (what a worker sends at the
join point) and the bytes the per-second percentile buckets hold (counted with ``sys.getsizeof``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

_CHILD = r"""
import json, pickle, resource, sys, time
sys.path.insert(0, sys.argv[1])
from esbench.metrics.recorder import TaskRecorder
n, repeat, hour = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"

def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20

cycle = 4096
lat = [0.001 * (1.0008 ** (i * 7 % 4096)) for i in range(cycle)]  # 1 ms .. ~26 ms
for i in range(0, cycle, 500):
    lat[i] = 0.25  # a tail
best = float("inf")
for _ in range(repeat):
    r = TaskRecorder(task="t", operation="o", operation_type="search", origin=0.0)
    record = r.record
    t0 = time.process_time()
    for i in range(n):
        d = lat[i % cycle]
        record(warmup=False, end=i / 37000.0, service_time=d, latency=d, processing_time=d,
               weight=1.0, success=i % 100 != 0, error_type=None if i % 100 else "400")
    per = (time.process_time() - t0) / n
    t1 = time.process_time()
    sink = 0.0
    for i in range(n):
        d = lat[i % cycle]
        sink += i / 37000.0 + d + d + d + (i % 100 != 0)
    loop = (time.process_time() - t1) / n
    best = min(best, per - loop)
out = {"ns_per_record": best * 1e9}
if hour:
    before = rss_mib()
    r = TaskRecorder(task="t", operation="o", operation_type="search", origin=0.0)
    for i in range(3600 * 1000):
        d = lat[i % cycle]
        r.record(warmup=False, end=i / 1000.0, service_time=d, latency=d, processing_time=d)
    out["hour_rss_growth_mib"] = rss_mib() - before
    out["hour_state_bytes"] = len(pickle.dumps(r.state()))
    buckets = getattr(r._measurement, "buckets", None)
    if buckets is not None:  # trees with per-second percentile buckets: their retained bytes
        size = sys.getsizeof(buckets.frozen) + sys.getsizeof(buckets.live)
        for parts in buckets.frozen.values():
            size += sys.getsizeof(parts) + sum(sys.getsizeof(b) for b in parts)
        for d in buckets.live.values():
            size += sys.getsizeof(d)
        out["hour_bucket_bytes"] = size
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--source", action="append", required=True, help="a tree containing esbench/")
    parser.add_argument("--samples", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=2, help="alternate the sources this many times")
    parser.add_argument("--hour", action="store_true", help="also simulate a one-hour task (memory)")
    args = parser.parse_args()
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    print(f"python {sys.version.split()[0]}")
    best: dict[str, dict[str, float]] = {}
    for round_ in range(args.rounds):
        for source in args.source:
            root = str(Path(source).resolve())
            hour = "1" if args.hour and round_ == 0 else "0"
            proc = subprocess.run(
                [sys.executable, "-c", _CHILD, root, str(args.samples), str(args.repeat), hour],
                capture_output=True,
                text=True,
                check=True,
            )
            result = json.loads(proc.stdout)
            entry = best.setdefault(root, {})
            entry["ns_per_record"] = min(entry.get("ns_per_record", float("inf")), result["ns_per_record"])
            for key in ("hour_rss_growth_mib", "hour_state_bytes", "hour_bucket_bytes"):
                if key in result:
                    entry[key] = result[key]
    for root, entry in best.items():
        line = f"{root}: record() {entry['ns_per_record']:,.0f} ns (min of {args.rounds}x{args.repeat} runs)"
        if "hour_rss_growth_mib" in entry:
            line += (
                f"; 1-hour task at 1,000/s: RSS +{entry['hour_rss_growth_mib']:,.1f} MiB, "
                f"pickled state {entry['hour_state_bytes'] / 2**20:,.2f} MiB"
            )
        if "hour_bucket_bytes" in entry:
            line += f", per-second buckets hold {entry['hour_bucket_bytes'] / 2**20:,.2f} MiB"
        print(line)


if __name__ == "__main__":
    main()
