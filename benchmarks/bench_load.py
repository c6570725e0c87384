"""Documents per second that ``esbench load`` sends with seed 002's Loadgen template.

Runs ``esbench load`` on ``examples/loadgen-bulk/loadgen.yml`` (bulks of 5,000 nginx-log
documents built from ``$[[...]]`` variables, 4 clients), and with ``--format dsl`` (or ``both``) on
the same load written in Loadgen's DSL (``examples/loadgen-bulk/loadgen.dsl``, run with
``-run``: the two must send at the same speed), against the loopback nginx stub of
``benchmarks/sidebyside`` (an instant Elasticsearch: the figure is esbench's own ceiling on this
machine, template expansion and HTTP included), with and without ``--compress``. Prints the
median and mean throughput of the measured period, the documents sent per second of wall time,
and the load average around each run (other processes share the CPU).

Reproduce (needs nginx: ``apt-get install -y nginx-light``):
    python benchmarks/bench_load.py [--duration 30] [--warmup 5] [--clients 4] [--bulk 5000]
        [--no-compress-only] [--format yaml|dsl|both]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sidebyside.nginx_stub import NginxStub  # noqa: E402

EXAMPLE = ROOT / "examples" / "loadgen-bulk"


def _config(workdir: Path, host: str, bulk: int) -> Path:
    text = (EXAMPLE / "loadgen.yml").read_text()
    text = text.replace("http://127.0.0.1:9200", f"http://{host}")
    text = re.sub(r"body_repeat_times: \d+", f"body_repeat_times: {bulk}", text)
    for name in ("nginx.log", "dict"):
        (workdir / name).symlink_to(EXAMPLE / name)
    path = workdir / "loadgen.yml"
    path.write_text(text)
    dsl = (EXAMPLE / "loadgen.dsl").read_text().replace("http://127.0.0.1:9200", f"http://{host}")
    (workdir / "loadgen.dsl").write_text(re.sub(r"body_repeat_times: \d+", f"body_repeat_times: {bulk}", dsl))
    return path


def _run(cmd: list[str], home: Path) -> dict[str, float]:
    env = {**os.environ, "ESBENCH_HOME": str(home), "PYTHONPATH": str(ROOT)}
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"esbench load failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    races = sorted((home / "races").glob("*/results.json"), key=lambda p: p.stat().st_mtime)
    result = json.loads(races[-1].read_text())
    # The measured task: Loadgen's warm-up round (no runner.no_warm in the file) is a hidden task.
    task = next(t for t in result["tasks"] if t.get("include_in_reporting", True))
    return {
        "median": task["throughput_median"],
        "mean": task["throughput_mean"],
        "docs": task["total_weight"],
        "task_s": task["duration_s"],
        "wall_s": wall,
        "errors": task["error_count"],
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
    }


def expansion_rate(config: Path, bulks: int = 40, base: Path | None = None) -> float:
    """Documents per CPU-second of template expansion alone (one client's param source, in this
    process; CPU time, so other processes on the machine hardly change it)."""
    from esbench.adhoc.loadgen import load_config
    from esbench.adhoc.track import LoadShape, build_track
    from esbench.driver.worker.params.base import operation_params
    from esbench.driver.worker.params.template_source import TemplatedRequestParamSource

    cfg = load_config(config, base=base)
    track = build_track(
        name="bench",
        challenge="c",
        root=config.parent,
        streams=cfg.streams,
        shape=LoadShape(),
        description="",
    )
    task = track.default_challenge.tasks()[0]
    client = TemplatedRequestParamSource(track, operation_params(task)).partition(0, 1)
    docs = 0
    started = time.process_time()
    for _ in range(bulks):
        docs += next(iter(client.params().values())).bulk_size
    return docs / (time.process_time() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--bulk", type=int, default=5000)
    parser.add_argument("--no-compress-only", action="store_true", help="skip the --compress run")
    parser.add_argument("--format", choices=("yaml", "dsl", "both"), default="yaml", help="which file to run")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="esbench-bench-load-") as tmp, NginxStub.start() as stub:
        work = Path(tmp)
        config = _config(work, stub.host, args.bulk)
        variants = [[]] if args.no_compress_only else [[], ["--compress"]]
        formats = ["yaml", "dsl"] if args.format == "both" else [args.format]
        dsl = work / "loadgen.dsl"
        for fmt in formats:
            rate = expansion_rate(config) if fmt == "yaml" else expansion_rate(dsl, base=config)
            print(
                f"{fmt}: template expansion alone: {rate:,.0f} docs per CPU-second ({args.bulk}-doc bodies)"
            )
        print(f"nginx stub at {stub.host}; {os.cpu_count()} cores; template: {EXAMPLE / 'loadgen.yml'}")
        for fmt in formats:
            source = (
                ["--config", str(config)] if fmt == "yaml" else ["--config", str(config), "-run", str(dsl)]
            )
            for extra in variants:
                options = [
                    "-c",
                    str(args.clients),
                    "-d",
                    str(args.duration),
                    "--warmup",
                    str(args.warmup),
                    *extra,
                ]
                cmd = [
                    sys.executable,
                    "-c",
                    "from esbench.cli import main; main()",
                    "load",
                    *source,
                    *options,
                    "--report-format",
                    "json",
                    "--report-file",
                    str(work / "report.json"),
                    "-q",
                ]
                shown = "esbench load " + ("--config loadgen.yml " if fmt == "yaml" else "-run loadgen.dsl ")
                r = _run(cmd, work / "home")
                print(f"\n$ {shown}{' '.join(options)}")
                print(
                    f"  median {r['median']:,.0f} docs/s, mean {r['mean']:,.0f} docs/s over the measured "
                    f"{args.duration:g} s; {r['docs']:,.0f} measured docs; errors {r['errors']:.0f}"
                )
                print(f"  load average (1 min) before {r['load_before']:.2f}, after {r['load_after']:.2f}")


if __name__ == "__main__":
    main()
