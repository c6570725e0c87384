"""How long the local load driver takes to start its worker processes (not a test: prints timings).

Run::

    python benchmarks/bench_worker_start.py                                        # this tree
    python benchmarks/bench_worker_start.py --source /path/to/old/tree --source .  # A/B, alternating
    python benchmarks/bench_worker_start.py --workers 2 --workers 8 --repetitions 5
    python benchmarks/bench_worker_start.py --races 4      # later races of one process (sweep, find-max)

Each measurement is a fresh interpreter (``python -P`` with ``PYTHONPATH`` set to the ``--source``
tree) that imports the coordinator, then times ``LocalPool(workers=N).start(N, ...)`` until every
worker has answered ``Ready`` to its ``InitWorker`` (a one-index track, no corpora): the start-up
cost a race pays once, before its first step. A tree whose pool uses multiprocessing's forkserver
pays for starting the server inside that time too, as a race does; with ``--races N`` the later
pools of the same process find it running, as the later races of a sweep or find-max did. Prints
each run and the medians per tree, worker count and first/later race, in ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PROBE = r"""
import json, sys, time
from pathlib import Path
from esbench.driver.coordinator.pools.local import LocalPool
from esbench.driver.transport.client import ClientOptions, ConnectionSettings
from esbench.driver.worker.process import InitWorker, Ready
from esbench.track.model import Index, Track

count = int(sys.argv[1])
track = Track(name="t", root=Path("/nonexistent"), challenges=(),
              indices=(Index(name="idx", body={"settings": {"number_of_shards": 1}}),))
settings = ConnectionSettings.create(["127.0.0.1:9"], ClientOptions())

def init(worker_id):
    return InitWorker(worker_id=worker_id, track=track, corpora=None, registry_blob=None,
                      connection=settings, on_error="abort")

times = []
for _ in range(int(sys.argv[2])):  # races in one process, as a sweep or find-max runs them
    pool = LocalPool(workers=count)
    start = time.perf_counter()
    handles = pool.start(count, init)
    for handle in handles:
        if not handle.conn.poll(60):
            raise SystemExit(f"worker {handle.worker_id} sent nothing within 60 s")
        message = handle.conn.recv()
        assert isinstance(message, Ready) and message.error is None, message
    times.append((time.perf_counter() - start) * 1000)
    pool.stop()
print(json.dumps({"ms": times}))
"""


def measure(source: str, workers: int, races: int) -> list[float]:
    """Milliseconds from ``LocalPool.start`` to the last ``Ready`` of each of ``races`` pools started
    one after another in one fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": source}
    out = subprocess.run(
        [sys.executable, "-P", "-c", _PROBE, str(workers), str(races)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"probe from {source} failed (exit {out.returncode}):\n{out.stderr[-3000:]}")
    return [float(ms) for ms in json.loads(out.stdout.strip().splitlines()[-1])["ms"]]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--source", action="append", help="esbench tree (repeatable; default: this one)")
    parser.add_argument(
        "--workers", action="append", type=int, help="worker processes (repeatable; default 2)"
    )
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument(
        "--races", type=int, default=1, help="pools started one after another in one process (default 1)"
    )
    args = parser.parse_args()
    print("command:", " ".join([Path(sys.executable).name, *sys.argv]))
    sources = [str(Path(s).resolve()) for s in (args.source or [str(ROOT)])]
    counts = args.workers or [2]
    results: dict[tuple[str, int, str], list[float]] = {
        (s, n, which): [] for s in sources for n in counts for which in ("first", "later")
    }
    for rep in range(args.repetitions):
        for n in counts:
            # Rotate the order so that neither tree always runs first.
            for source in sources[rep % len(sources) :] + sources[: rep % len(sources)]:
                times = measure(source, n, args.races)
                results[(source, n, "first")].append(times[0])
                results[(source, n, "later")].extend(times[1:])
                print(f"rep {rep} workers {n} {source}: " + ", ".join(f"{ms:.0f}" for ms in times) + " ms")
    print("\nmedian ms from LocalPool.start to the last Ready (first race of a process; later races):")
    for (source, n, which), values in results.items():
        if not values:
            continue
        median, low, high = statistics.median(values), min(values), max(values)
        print(f"  workers {n:>2} {which:5} {source}: {median:.0f} ms (min {low:.0f}, max {high:.0f})")


if __name__ == "__main__":
    main()
