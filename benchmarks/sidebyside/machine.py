"""How busy the machine was besides the measured tool and its target server (Linux /proc).

The project's machines are shared while engineers work, and a load average cannot tell the
benchmark's own load from anyone else's. So the harness snapshots every process's CPU time
(``/proc/PID/stat``: utime + stime) before and after each run, and adds up the growth of all
processes except the harness and the target server (nginx or Elasticsearch); the measured tool's
processes have ended by then. This is a lower bound: a process that starts and ends within the run
is missed. Children's times (``cutime``) are not used: a process reaping a child that ran for minutes
before the run would charge all of it to the run. (The machine-wide busy time of ``/proc/stat`` is
tick-sampled and disagreed with per-process times by up to 0.2 cores here, too much to subtract one
from the other.)
"""

from __future__ import annotations

import os

_TICK = os.sysconf("SC_CLK_TCK")

#: pid -> (start time in ticks since boot, utime + stime in ticks)
Snapshot = dict[int, tuple[int, int]]


def _stat_fields(pid: int | str) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            # Field 2 (comm) may hold spaces and parentheses: split after the last ')'.
            return f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def cpu_snapshot() -> Snapshot:
    """CPU ticks of every process now (see the module docstring)."""
    snap: Snapshot = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        rest = _stat_fields(entry.name)
        if rest is None or len(rest) < 20:
            continue
        # After comm: state=0, ppid=1, ... utime=11, stime=12, starttime=19.
        snap[int(entry.name)] = (int(rest[19]), int(rest[11]) + int(rest[12]))
    return snap


def other_cpu_seconds(before: Snapshot, after: Snapshot, *, exclude: set[int]) -> float:
    """CPU seconds used between two snapshots by processes not in ``exclude``.

    A pid present in both with the same start time counts its growth; a process started in between
    (pid new, or reused with a new start time) counts in full.
    """
    ticks = 0
    for pid, (start, total) in after.items():
        if pid in exclude:
            continue
        prev = before.get(pid)
        ticks += total - prev[1] if prev is not None and prev[0] == start else total
    return ticks / _TICK


def process_cpu_seconds(pids: list[int]) -> float:
    """Sum of user + system CPU seconds of ``pids`` (all their threads); gone processes count 0."""
    total = 0
    for pid in pids:
        rest = _stat_fields(pid)
        if rest is not None and len(rest) > 12:
            total += int(rest[11]) + int(rest[12])  # fields 14 and 15: utime, stime
    return total / _TICK


def group_pids(pgid: int) -> list[int]:
    """PIDs of the processes in process group ``pgid`` (nginx master and workers)."""
    out = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if os.getpgid(int(entry.name)) == pgid:
                    out.append(int(entry.name))
            except OSError:
                continue
    return out


def listening_pids(port: int) -> list[int]:
    """PIDs of the processes holding a listening TCP socket on ``port`` (the Elasticsearch node)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    cols = line.split()
                    if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(cols[9])
        except (OSError, StopIteration):
            continue
    if not inodes:
        return []
    wanted = {f"socket:[{i}]" for i in inodes}
    pids = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            for fd in os.scandir(f"/proc/{entry.name}/fd"):
                if os.readlink(fd.path) in wanted:
                    pids.append(int(entry.name))
                    break
        except OSError:
            continue
    return pids
