"""Start-up time of the command line: ``esbench --help`` and ``esbench race --help``.

Runs each command N times in a fresh interpreter (like ``hyperfine --runs N``) and prints the
mean, median, min and max wall time, then the cumulative import time of ``esbench.cli`` reported by
``python -X importtime`` and which heavy modules the command imported. ``python -c pass`` is the
floor (the interpreter's own start-up).

Reproduce:
    python benchmarks/bench_cli_startup.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "esbench --help": [sys.executable, "-m", "esbench", "--help"],
    "esbench race --help": [sys.executable, "-m", "esbench", "race", "--help"],
}
HEAVY = (
    "esbench.driver.coordinator.run",
    "elasticsearch",
    "aiohttp",
    "jinja2",
    "jsonschema",
    "hdrh",
    "psutil",
    "ray",
)


def _source_root() -> str:
    """The directory holding the esbench package this interpreter imports (PYTHONPATH or the
    installed one); commands run there, because ``python -m`` puts the working directory first."""
    import esbench

    return os.path.dirname(os.path.dirname(os.path.abspath(esbench.__file__)))


def _wall_times(cmd: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=_source_root()
        )
        times.append(time.perf_counter() - start)
    return times


def _import_profile(cmd: list[str]) -> tuple[float, list[str]]:
    """Cumulative import time of esbench.cli in seconds, and the heavy modules imported."""
    proc = subprocess.run(
        [cmd[0], "-X", "importtime", *cmd[1:]],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=_source_root(),
    )
    cli_us = 0
    loaded = set()
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \|\s*(\S+)", line)
        if not m:
            continue
        loaded.add(m.group(2))
        if m.group(2) == "esbench.cli":
            cli_us = int(m.group(1))
    return cli_us / 1e6, [h for h in HEAVY if h in loaded]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(f"command: python benchmarks/bench_cli_startup.py --runs {args.runs}")
    print(f"esbench from {_source_root()}")
    for label, cmd in COMMANDS.items():
        t = _wall_times(cmd, args.runs)
        line = (
            f"{label:22s} runs {len(t)}  mean {statistics.mean(t):.3f} s  median {statistics.median(t):.3f} s"
            f"  min {min(t):.3f} s  max {max(t):.3f} s"
        )
        if label != "python -c pass":
            cli_s, heavy = _import_profile(cmd)
            line += f"  | import esbench.cli {cli_s:.3f} s; heavy: {', '.join(heavy) or 'none'}"
        print(line)


if __name__ == "__main__":
    main()
