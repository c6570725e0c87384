"""What OSB's bound on one operation costs a runner call (esbench/driver/worker/operationbound.py).

    python benchmarks/bench_operation_bound.py [--calls 200000] [--repeats 3]

A workload in OSB's format runs each runner call the connection does not repeat itself inside an
``asyncio.timeout`` scope (OSB 2.4.0 wraps every call in ``asyncio.wait_for``). This calls a runner
that returns at once, in one event loop, with and without the bound, and prints µs per call for each
repeat; the difference is the bound's cost. Figures: docs/performance.md, "OSB's bound on one
operation".
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from esbench.driver.worker.operationbound import bounded_call


async def _runner(es: Any, params: Any) -> None:
    return None


async def _measure(calls: int, repeats: int) -> None:
    params: dict[str, Any] = {}
    for i in range(repeats):
        started = time.perf_counter()
        for _ in range(calls):
            await _runner(None, params)
        plain = (time.perf_counter() - started) / calls * 1e6
        started = time.perf_counter()
        for _ in range(calls):
            await bounded_call(_runner, None, params, 60.0)
        bounded = (time.perf_counter() - started) / calls * 1e6
        extra = bounded - plain
        print(f"repeat {i + 1}: plain {plain:.2f} µs/call, bounded {bounded:.2f} µs/call, +{extra:.2f}")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=200_000)
    p.add_argument("--repeats", type=int, default=3)
    opts = p.parse_args(argv)
    print("command:", shlex.join([sys.executable, "benchmarks/bench_operation_bound.py", *argv]))
    asyncio.run(_measure(opts.calls, opts.repeats))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
