"""Hot-path cost and memory of ``TaskRecorder.record`` (not a test: prints measurements).

Run: ``python benchmarks/bench_recorder.py [--samples 10000000]``

Records N samples with realistic, varying timings (0.1 ms .. 2 s, 1 % errors, 10 % warmup, 1,000
samples per simulated second so that the throughput windows grow too) and prints the mean ns per
``record()`` call and the process RSS before and after. RSS must not grow with N: the histograms are
preallocated and the throughput windows grow with simulated seconds (N / 1000 floats), not requests.
"""

from __future__ import annotations

import argparse
import pickle
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from esbench.metrics.recorder import RecorderState, TaskRecorder


def rss_mib() -> float:
    """Current resident set size in MiB (Linux /proc; falls back to the peak RSS)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--per-second", type=int, default=1000, help="samples per simulated second")
    args = parser.parse_args()
    n = args.samples

    # Precomputed value cycle so that the loop measures record(), not random number generation.
    cycle = 4096
    durations = [0.0001 * (1.0017 ** (i * 7 % 4096)) for i in range(cycle)]  # 0.1 ms .. ~110 ms
    durations[17] = 2.0

    rss_start = rss_mib()
    recorder = TaskRecorder(task="bench", operation="bench", operation_type="search", origin=0.0)
    record = recorder.record
    warmup_n = n // 10
    per_second = args.per_second
    print(f"command: {' '.join([sys.executable, *sys.argv])}")
    rss_before = rss_mib()
    t0 = time.perf_counter()
    for i in range(n):
        d = durations[i % cycle]
        record(
            warmup=i < warmup_n,
            end=i / per_second,
            service_time=d,
            latency=d * 1.1,
            processing_time=d * 1.05,
            weight=1.0,
            success=i % 100 != 0,
            error_type=None if i % 100 else "500",
        )
        if i == 1000:
            rss_early = rss_mib()
    elapsed = time.perf_counter() - t0
    rss_after = rss_mib()

    t1 = time.perf_counter()
    state = recorder.state()
    encode_ms = (time.perf_counter() - t1) * 1000
    blob = pickle.dumps(state)
    t2 = time.perf_counter()
    merged = RecorderState.merge([state, state])
    merge_ms = (time.perf_counter() - t2) * 1000
    assert merged.sample_count == 2 * state.sample_count

    # The loop itself (modulo, list index, float maths) costs something too: measure it alone.
    t3 = time.perf_counter()
    sink = 0.0
    for i in range(min(n, 2_000_000)):
        d = durations[i % cycle]
        sink += (i < warmup_n) + i / per_second + d * 1.1 + d * 1.05 + (i % 100 != 0)
    loop_ns = (time.perf_counter() - t3) / min(n, 2_000_000) * 1e9

    print(f"python {sys.version.split()[0]}")
    print(f"samples recorded:        {n:,} ({state.warmup_sample_count:,} warmup)")
    print(f"record():                {elapsed / n * 1e9:,.0f} ns/record incl. loop", end="")
    print(f" ({loop_ns:,.0f} ns loop alone)")
    print(f"RSS at start / recorder created / after 1k / after all: {rss_start:,.1f} / ", end="")
    print(f"{rss_before:,.1f} / {rss_early:,.1f} / {rss_after:,.1f} MiB")
    print(f"throughput windows:      {len(state.windows):,} measurement,", end="")
    print(f" {len(state.warmup_windows):,} warmup")
    print(f"state(): {encode_ms:,.1f} ms; pickled state: {len(blob):,} bytes; merge of 2: {merge_ms:,.1f} ms")
    print(f"overflow (measurement):  {state.overflow_count}; errors: {state.error_count:,}")


if __name__ == "__main__":
    main()
