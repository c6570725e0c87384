"""CPU seconds per 1,000 requests of a load driver: what one run cost it, per unit of work.

The CPU figure is the tool's whole process tree over its whole run (``treerun.py``: start-up, warmup,
measurement, report). The request count must cover the same interval, so it is taken, in order:

1. ``server``: on the stub cases, nginx's request counter (``stub_status``) read just before and just
   after the tool's run: every request the tool sent during its run, warmup and administrative calls
   (a few dozen for esbench and Rally) included;
2. ``tool``: the tool's own count: esbench's measurement + warmup samples of all tasks
   (``results.json``, ``sample_count + warmup_sample_count``), wrk's "N requests in" line, vegeta's
   report ``requests``. Rally reports no request count: on the node case its cell stays empty.

Bulk requests count as one request each, whatever their number of documents.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

#: Order in which request counts are preferred (see the module docstring).
SOURCES: tuple[str, ...] = ("server", "tool")

#: Tool and server counts of one run may differ by this fraction before a warning (esbench's and
#: Rally's administrative calls, wrk's requests still in flight at the end).
MISMATCH_LIMIT = 0.02


def server_requests(before: int, after: int) -> int:
    """Requests served between two readings of nginx's counter; the second reading counts itself
    (``requests_served`` includes the request that reads it), the first falls before the window."""
    return max(0, after - before - 1)


def cost_requests(requests: Mapping[str, int]) -> tuple[int | None, str | None]:
    """``(count, source)``: the first source of :data:`SOURCES` present in ``requests``, else
    ``(None, None)``."""
    for source in SOURCES:
        if requests.get(source):
            return int(requests[source]), source
    return None, None


def cpu_s_per_1k_requests(cpu_s: float | None, requests: int | None) -> float | None:
    """CPU seconds per 1,000 requests (``cpu_s / requests * 1000``); None without CPU or requests."""
    if cpu_s is None or not requests:
        return None
    return cpu_s / requests * 1000.0


def count_mismatch(requests: Mapping[str, int]) -> float | None:
    """Relative difference ``|tool - server| / server`` when both counts exist, else None."""
    tool, server = requests.get("tool"), requests.get("server")
    if not tool or not server:
        return None
    return abs(tool - server) / server


def esbench_requests(report_file: Path, esbench_home: Path) -> int | None:
    """All requests an esbench race sent, from its ``results.json``: the sum over its tasks of
    ``sample_count + warmup_sample_count`` (``esbench/records/task.py``, ``TaskResult``).

    The race is found through the ``race.race_id`` of the ``--report-format=json`` report file, under
    ``ESBENCH_HOME/races/<race_id>/results.json`` (``esbench/home.py``). None when either file is
    missing or has no such fields.
    """
    try:
        race_id = json.loads(report_file.read_text())["race"]["race_id"]
        results = json.loads((esbench_home / "races" / race_id / "results.json").read_text())
        return sum(int(t["sample_count"]) + int(t.get("warmup_sample_count", 0)) for t in results["tasks"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
