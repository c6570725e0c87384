"""Cost of the HTML report of a long race: render time, file size, time for Chromium to draw it.

Builds a synthetic one-hour race (``--tasks`` tasks of ``--seconds`` s each, every one with
per-second throughput and p50/p90/p99/max latency and service time windows and 2,000-sample
HdrHistograms; ``--series`` telemetry series sampled every second over the whole race, all in
panels), renders it with ``render_race_html``, and, when Chromium is installed, opens it headless
and times until the DOM is dumped (all charts drawn). Prints the figures.

Reproduce:
    python benchmarks/bench_html_report.py [--tasks 6] [--seconds 600] [--series 40]
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1] / "tests" / "unit" / "reporting"))


def _race(tasks: int, seconds: int, series: int):  # type: ignore[no-untyped-def]
    import plotfactory as pf

    from esbench.records import RaceResult

    task_results = tuple(
        pf.task(
            f"task-{i}",
            seed=i,
            start=pf.T0 + i * seconds,
            seconds=seconds,
            operation_type="bulk" if i % 2 == 0 else "search",
            unit="docs/s" if i % 2 == 0 else "ops/s",
            level=40_000 if i % 2 == 0 else 200,
            median_ms=100 if i % 2 == 0 else 5,
        )
        for i in range(tasks)
    )
    base = pf.telemetry(1, pf.T0, tasks * seconds)
    plotted = [s for s in base if s.metric != "indices.segments.count"]
    telemetry = tuple(
        dataclasses.replace(plotted[i % len(plotted)], node=f"node-{i // len(plotted)}")
        for i in range(series)
    )
    return RaceResult(
        race_id="00000000-0000-4000-8000-000000000000",
        timestamp="2026-09-21T14:13:15Z",
        track="synthetic",
        challenge="long",
        tasks=task_results,
        telemetry=telemetry,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=6)
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--series", type=int, default=40)
    args = parser.parse_args()
    from esbench.reporting.html import render_race_html

    race = _race(args.tasks, args.seconds, args.series)
    points = sum(len(t.throughput_windows) * 9 for t in race.tasks) + sum(
        len(s.values) for s in race.telemetry
    )
    start = time.perf_counter()
    page = render_race_html(race)
    render_s = time.perf_counter() - start
    print(f"race: {args.tasks} tasks x {args.seconds} s, {args.series} telemetry series, {points:,} points")
    print(f"render_race_html: {render_s:.2f} s, {len(page) / 1e6:.1f} MB")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("chromium not installed: drawing time not measured")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.html"
        path.write_text(page, encoding="utf-8")
        start = time.perf_counter()
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", path.as_uri()],
            capture_output=True,
            check=True,
            timeout=300,
        )
        print(f"chromium load + draw + dump-dom: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
