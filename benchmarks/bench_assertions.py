"""Per-request cost of ``--enable-assertions`` (not a test: prints measurements).

Run: ``python benchmarks/bench_assertions.py [--calls 200000] [--repeats 5]``

Calls a runner that returns a detailed search result (no network) N times in one event loop, three
ways: the runner as a task without assertions gets it (the flag off, or a task without any: the
same object, nothing wrapped), wrapped with one assertion (``hits == 3``), and wrapped with three.
Prints the best of the repeats in µs per call and the difference to the plain runner: the cost a
request pays for its task's assertions, beside a search's service time of 1 ms or more.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from esbench.driver.worker.runners.asserting import asserting_runner
from esbench.driver.worker.runners.base import Runner, RunnerResult
from esbench.track.model import Operation, Task

RESULT = RunnerResult(meta={"hits": 3, "hits_relation": "eq", "timed_out": False, "took": 1})


class Detailed(Runner):
    name = "search"

    async def __call__(self, es: Any, params: Any) -> RunnerResult:
        return RESULT


def task(assertions: list[dict[str, object]] | None) -> Task:
    params: dict[str, object] = {"detailed-results": True}
    if assertions is not None:
        params["assertions"] = assertions
    return Task(name="t", operation=Operation(name="t", operation_type="search", params=params))


async def per_call_us(runner: Runner, calls: int) -> float:
    params: dict[str, object] = {}
    start = time.perf_counter()
    for _ in range(calls):
        await runner(None, params)  # type: ignore[arg-type]
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    one = [{"property": "hits", "condition": "==", "value": 3}]
    three = [
        *one,
        {"property": "timed_out", "condition": "==", "value": False},
        {"property": "took", "condition": "<", "value": 60000},
    ]
    inner = Detailed()
    cases = {
        "no assertions (runner unchanged)": asserting_runner(inner, task(None)),
        "1 assertion": asserting_runner(inner, task(one)),
        "3 assertions": asserting_runner(inner, task(three)),
    }
    assert cases["no assertions (runner unchanged)"] is inner
    best = {
        name: min(asyncio.run(per_call_us(r, args.calls)) for _ in range(args.repeats))
        for name, r in cases.items()
    }
    base = best["no assertions (runner unchanged)"]
    print(f"python benchmarks/bench_assertions.py --calls {args.calls} --repeats {args.repeats}")
    for name, us in best.items():
        print(f"{name:34s} {us:6.2f} µs/call  (+{us - base:.2f} µs)")


if __name__ == "__main__":
    main()
