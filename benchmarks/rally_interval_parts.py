"""Rally's short-task throughput interval taken apart, from the sample times Rally wrote down (issue 38).

    python benchmarks/rally_interval_parts.py ROUND.rally.samples [...]

Reads the JSON lines ``benchmarks/rally_sample_log`` makes Rally 2.13 write (one file per race,
``RALLY_SAMPLE_LOG=1 benchmarks/short_task_interleaved.sh`` makes them) and, per task, splits the
interval of Rally's ``ThroughputCalculator`` (esrally/driver/driver.py; docs/metrics.md):

    interval = (last request's processing start - first request's processing start)
               + first request's time_period
    time_period = (processing start - client start)        "lag"
                  + (request start - processing start)     "pre-send": the runner and the client
                                                           before the request goes out
                  + service time                           request start to response end

"first" and "last" are by processing start over all the task's samples, warmup ones included;
Rally's ``request_start`` is the client's ``on_request_start`` trace, before a new connection is
opened, so a connect is inside the service time. Also printed: how far apart the clients started
(``total_start``). Prints per task the median over the files of each part in ms and the command.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

PARTS = ("interval", "start spread", "lag", "pre-send", "service", "client spread")


def _processing_start(s: dict[str, Any]) -> float:
    """The sample's processing start in its process's ``perf_counter`` (s)."""
    return float(s["absolute_time"] - s["wall_minus_perf"])


def _client_start(s: dict[str, Any]) -> float:
    """Its client's ``total_start``, ``perf_counter`` s: response end less ``time_period``."""
    return float(s["request_start"] + s["service_time"] - s["time_period"])


def _parts(samples: list[dict[str, Any]]) -> dict[str, float]:
    """One task's interval and its parts, in ms."""
    first = min(samples, key=lambda s: s["absolute_time"])
    last = max(samples, key=lambda s: s["absolute_time"])
    client_starts = {s["client"]: _client_start(s) for s in samples}
    ms = 1000.0
    return {
        "interval": (last["absolute_time"] - first["absolute_time"] + first["time_period"]) * ms,
        "start spread": (last["absolute_time"] - first["absolute_time"]) * ms,
        "lag": (_processing_start(first) - _client_start(first)) * ms,
        "pre-send": (first["request_start"] - _processing_start(first)) * ms,
        "service": first["service_time"] * ms,
        "client spread": (max(client_starts.values()) - min(client_starts.values())) * ms,
    }


def main() -> None:
    if len(sys.argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        raise SystemExit(64)
    per_task: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for path in map(Path, sys.argv[1:]):
        by_task: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                sample = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SystemExit(
                    f"{path}:{n}: not a JSON line ({exc.msg}); is this a rally_sample_log file?"
                ) from None
            by_task[sample["task"]].append(sample)
        for task, samples in by_task.items():
            for part, value in _parts(samples).items():
                per_task[task][part].append(value)
    print(f"Rally's interval and its parts, median over {len(sys.argv) - 1} races, ms")
    print(f"{'task':34}" + "".join(f"{p:>14}" for p in PARTS))
    for task, parts in per_task.items():
        print(f"{task:34}" + "".join(f"{statistics.median(parts[p]):>14.2f}" for p in PARTS))
    print("command: python " + " ".join(sys.argv))


if __name__ == "__main__":
    main()
