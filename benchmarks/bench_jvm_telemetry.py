"""Cost of Rally's JVM telemetry devices on a provisioned node: race time and the files they leave.

Races ``tests/resources/tracks/compare-tiny`` in test mode on a node esbench provisions (the Maven
integ-test build), once without telemetry and once per device set given (default: each of ``jit``,
``gc``, ``jfr``, ``heapdump`` alone, then all four), each in a fresh esbench home; prints the race's
wall time as ``esbench race`` reports it (provisioning and stopping the node included) and the size
of every file in ``<race dir>/telemetry/node-0/``. The machine's load moves the times; compare
rows of one run only.

Reproduce:
    python benchmarks/bench_jvm_telemetry.py [--version 8.19.0] \
        [--sets none,gc,jit,jfr,heapdump,jit+gc+jfr+heapdump]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRACK = ROOT / "tests" / "resources" / "tracks" / "compare-tiny"


def race(devices: str, version: str) -> tuple[float, dict[str, int]]:
    """(race seconds, file name -> bytes) of one race with ``devices`` (``"none"``: no telemetry)."""
    with tempfile.TemporaryDirectory(prefix="esbench-jvm-telemetry-") as home:
        args = [
            sys.executable,
            "-m",
            "esbench",
            "race",
            f"--track-path={TRACK}",
            "--test-mode",
            "--distribution-repository=maven",
            f"--distribution-version={version}",
        ]
        if devices != "none":
            args.append(f"--telemetry={devices.replace('+', ',')}")
        env = {**os.environ, "ESBENCH_HOME": home, "PYTHONPATH": str(ROOT)}
        env.setdefault("ESBENCH_DIST_CACHE", str(Path.home() / ".cache" / "esbench" / "distributions"))
        done = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            raise SystemExit(f"esbench race {devices} exited {done.returncode}:\n{done.stderr[-2000:]}")
        match = re.search(r"race (\S+) \(([\d.]+) s\); results in (\S+)", done.stderr)
        if match is None:
            raise SystemExit(f"no race line in:\n{done.stderr[-2000:]}")
        files = Path(match.group(3)) / "telemetry" / "node-0"
        sizes = {p.name: p.stat().st_size for p in sorted(files.iterdir())} if files.is_dir() else {}
        return float(match.group(2)), sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default="8.19.0")
    parser.add_argument("--sets", default="none,gc,jit,jfr,heapdump,jit+gc+jfr+heapdump")
    args = parser.parse_args()
    print(f"# python benchmarks/bench_jvm_telemetry.py --version {args.version} --sets {args.sets}")
    print(f"{'devices':<22} {'race s':>7}  files (bytes)")
    for devices in args.sets.split(","):
        seconds, sizes = race(devices, args.version)
        listed = ", ".join(f"{name} {size:,}" for name, size in sizes.items()) or "-"
        print(f"{devices:<22} {seconds:>7.1f}  {listed}", flush=True)


if __name__ == "__main__":
    main()
