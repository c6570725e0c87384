"""What keeping per-request samples for the metrics store costs the load driver (issue 40).

    python benchmarks/bench_store_samples.py                       # 5 rounds, 10 s measurement each
    python benchmarks/bench_store_samples.py --rounds 3 --time-period 5

Two measurements:

1. Races, side by side: search-16 (the side-by-side benchmark's ``stub-search`` track, 16 clients,
   match_all) against the nginx stub, once without a metrics store and once with
   ``--metrics-store`` pointing at the same stub (it acknowledges the templates and bulk requests,
   so the samples are built and sent but nothing stores them). The two configurations alternate
   within each round (AB, BA, AB...), and the ratio with/without is taken per round: timing on a
   shared machine moves by 2x with load, a ratio of neighbours much less. Prints each round's median
   throughput (ops/s), the ratios and their median.
   Each race's CPU time (user + system of the race's process tree, from ``getrusage`` of the
   children) per request is printed as well: less moved by other work on the machine than
   throughput, and it includes what the store costs after the measurement (building and sending the
   documents).
2. The hot path alone: ``TaskRecorder.record`` without and with samples kept
   (``esbench.metrics.samples.keep_samples``), µs per request (the recorder in use: C if built).
3. The writer's hot path: building one request's three documents
   (``esbench.results.store_metric_documents.sample_documents``) in Rally's and OSB's layout, µs
   per request (``--documents-only`` measures this alone, without nginx).

Needs nginx (``apt-get install nginx-light``). Sends traffic to 127.0.0.1 only; the stub is stopped at
the end. Figures: docs/performance.md, "Per-request samples for the metrics store".
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from sidebyside.nginx_stub import NginxStub  # noqa: E402


def _race(host: str, *, clients: int, warmup: int, period: int, store: bool, home: Path) -> dict:
    params = f"search_clients:{clients},warmup_time_period:{warmup},time_period:{period}"
    cmd = [
        sys.executable,
        "-P",
        "-m",
        "esbench",
        "race",
        "--pipeline=benchmark-only",
        "--offline",
        f"--target-hosts={host}",
        f"--track-path={HERE / 'tracks' / 'stub-search'}",
        f"--track-params={params}",
        "--quiet",
        "--report-format=json",
        f"--report-file={home / 'r.json'}",
    ]
    if store:
        cmd.append(f"--metrics-store=http://{host}")
    env = {**os.environ, "ESBENCH_HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("ESBENCH_METRICS_STORE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        cmd, env=env, capture_output=True, text=True, timeout=period * 10 + 120, check=False
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"race failed ({shlex.join(cmd)}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    (result,) = home.glob("races/*/results.json")
    data = json.loads(result.read_text())
    result.parent.rename(home / f"done-{data['race_id']}")
    task = data["tasks"][0]
    samples = task["sample_count"] + task["warmup_sample_count"]
    return {"median": task["throughput_median"], "samples": samples, "cpu_us": cpu_s / samples * 1e6}


def _hot_path(n: int = 200_000) -> tuple[float, float]:
    from esbench.metrics.recorder import TaskRecorder
    from esbench.metrics.samples import keep_samples

    def run(keeping: bool) -> float:
        recorder = TaskRecorder(task="t", operation="o", operation_type="search", origin=0.0)
        if keeping:
            keep_samples(recorder)
        record = recorder.record
        kwargs = {"warmup": False, "service_time": 0.0004, "latency": 0.0004, "processing_time": 0.0005}
        ends = [i * 1e-5 for i in range(n)]

        def loop() -> None:
            for end in ends:
                record(end=end, **kwargs)

        return min(timeit.repeat(loop, number=1, repeat=3)) / n * 1e6

    return run(False), run(True)


def _documents(n: int = 100_000) -> dict[str, float]:
    """µs per request to build its ``latency``/``service_time``/``processing_time`` documents, per
    layout (best of 3; one failed request in 100, half of them warmup)."""
    from array import array

    from esbench.records import RaceResult
    from esbench.records.samples import FAILED, WARMUP, RequestSamples
    from esbench.results.store_documents import context
    from esbench.results.store_layout import LAYOUTS
    from esbench.results.store_metric_documents import sample_documents

    race = RaceResult(
        race_id="bench", timestamp="2026-11-28T12:00:00Z", track="t", challenge="c",
        user_tags={"setup": "bench"}, track_params={"clients": 16},
    )  # fmt: skip
    samples = RequestSamples(
        task="search",
        operation="search",
        operation_type="search",
        task_start_epoch=1_000.0,
        start_epoch=array("d", (1_000.0 + i * 1e-4 for i in range(n))),
        latency_ms=array("d", (1.5 + (i % 7) * 0.1 for i in range(n))),
        service_time_ms=array("d", (1.4 + (i % 5) * 0.1 for i in range(n))),
        processing_time_ms=array("d", (1.6 + (i % 3) * 0.1 for i in range(n))),
        flags=array("B", ((WARMUP if i < n // 2 else 0) | (FAILED if i % 100 == 0 else 0) for i in range(n))),
        error_types={i: "500" for i in range(0, n, 100)},
    )
    out = {}
    for name, layout in LAYOUTS.items():
        ctx = context(race, "bench", layout)
        best = min(timeit.repeat(lambda ctx=ctx: list(sample_documents(ctx, samples)), number=1, repeat=3))
        out[name.value] = best / n * 1e6
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--warmup", type=int, default=2, help="warmup-time-period, s")
    p.add_argument("--time-period", type=int, default=10, help="time-period, s")
    p.add_argument("--documents-only", action="store_true", help="measure building the documents only (3.)")
    opts = p.parse_args(argv)
    print("command:", shlex.join([sys.executable, "benchmarks/bench_store_samples.py", *argv]))
    for layout, us in _documents().items():
        print(f"documents ({layout} layout): {us:.3f} µs/request (3 documents)")
    if opts.documents_only:
        return 0
    plain_us, wrapped_us = _hot_path()
    print(
        f"hot path: record {plain_us:.3f} µs/request, keeping samples {wrapped_us:.3f} µs/request "
        f"(+{wrapped_us - plain_us:.3f} µs)"
    )
    ratios = []
    cpu_ratios = []
    with NginxStub.start() as stub, tempfile.TemporaryDirectory(prefix="esbench-store-bench-") as tmp:
        print(
            f"nginx stub on {stub.host}; search-{opts.clients}, warmup {opts.warmup} s, "
            f"time-period {opts.time_period} s"
        )
        print(
            f"{'round':>5} {'without (ops/s)':>16} {'with (ops/s)':>13} {'ratio':>6} {'requests kept':>14} "
            f"{'CPU µs/req without':>19} {'with':>6} {'ratio':>6}"
        )
        for i in range(opts.rounds):
            got = {}
            for store in (False, True) if i % 2 == 0 else (True, False):
                home = Path(tmp) / f"{i}-{int(store)}"
                home.mkdir()
                got[store] = _race(
                    stub.host,
                    clients=opts.clients,
                    warmup=opts.warmup,
                    period=opts.time_period,
                    store=store,
                    home=home,
                )
            ratio = got[True]["median"] / got[False]["median"]
            ratios.append(ratio)
            cpu_ratio = got[True]["cpu_us"] / got[False]["cpu_us"]
            cpu_ratios.append(cpu_ratio)
            print(
                f"{i + 1:>5} {got[False]['median']:>16,.0f} {got[True]['median']:>13,.0f} {ratio:>6.3f} "
                f"{got[True]['samples']:>14,} {got[False]['cpu_us']:>19.2f} {got[True]['cpu_us']:>6.2f} "
                f"{cpu_ratio:>6.3f}"
            )
    print(
        f"median ratio with/without the metrics store: {statistics.median(ratios):.3f} "
        f"(min {min(ratios):.3f}, max {max(ratios):.3f}; target >= 0.95)"
    )
    print(
        f"median CPU per request with/without: {statistics.median(cpu_ratios):.3f} "
        f"(min {min(cpu_ratios):.3f}, max {max(cpu_ratios):.3f}; includes writing the documents)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
