"""Run one command and measure its whole process tree: CPU seconds, peak memory, wall time.

Used by the side-by-side benchmark to charge each load driver for everything it starts (Rally forks
actor processes, esbench forks worker processes). Runs as its own small process::

    python benchmarks/treerun.py --result OUT.json [--timeout S] [--linger S] [--interval S] -- CMD ARGS...
    python benchmarks/treerun.py --result OUT.json --cmd-file CMD.json   # JSON list of arguments

``--cmd-file`` keeps the command out of this process's own command line: Rally refuses to start while
any other ``python*`` process has "esrally" anywhere in its command line (esrally
``utils/process.py``: ``is_rally_process``), and would count this wrapper as one.

How it measures:

- CPU: the process makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``, Linux >= 3.4),
  so descendants that daemonize or lose their parent are re-parented to it instead of to init. It reaps
  every descendant, so ``getrusage(RUSAGE_CHILDREN)`` at the end holds the user + system CPU seconds of
  the whole tree (the kernel adds a reaped child's own and its reaped children's times to its parent).
  Its own polling is not included.
- Memory: every ``--interval`` seconds it walks ``/proc`` for its descendants and sums their resident
  set (``statm``) and their proportional set (``smaps_rollup`` ``Pss``; shared copy-on-write pages of
  forked workers counted once overall) and their anonymous memory (``smaps_rollup`` ``Anonymous``:
  what the processes allocated, without mapped files such as a memory-mapped corpus, whose pages
  are page cache); the peaks of the three sums are reported. Sampling can miss a short spike
  between two polls.
- Leftovers: when the command exits, remaining descendants get ``--linger`` seconds to end on their
  own, then SIGTERM, then SIGKILL; the count is reported. ``--timeout`` bounds the whole run the same
  way. SIGTERM/SIGINT to this process end the tree too, so a caller never leaves processes behind.

Result JSON: ``{"returncode": int | null, "timed_out": bool, "wall_s", "cpu_user_s", "cpu_sys_s",
"cpu_s", "peak_rss_bytes", "peak_pss_bytes", "peak_anon_bytes", "max_single_rss_bytes",
"processes_seen", "leftovers_killed"}`` (returncode null if it was killed by a signal we sent).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
_PAGE = os.sysconf("SC_PAGE_SIZE")


def set_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants; False if the kernel refused."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants(root: int) -> list[int]:
    """PIDs of all live descendants of ``root`` (from the ppid field of ``/proc/PID/stat``)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # Field 2 (comm) may contain spaces and parentheses: split after the last ')'.
        rest = stat[stat.rfind(b")") + 2 :].split()
        children.setdefault(int(rest[1]), []).append(int(entry.name))
    out: list[int] = []
    stack = list(children.get(root, ()))
    while stack:
        pid = stack.pop()
        out.append(pid)
        stack.extend(children.get(pid, ()))
    return out


def memory(pid: int) -> tuple[int, int, int]:
    """(RSS, PSS, anonymous) bytes of ``pid``; (0, 0, 0) if it is gone. PSS falls back to RSS,
    anonymous to 0 (``smaps_rollup`` ``Anonymous``: the process's own memory, not mapped files
    such as a memory-mapped corpus whose pages are page cache)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            rss = int(f.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0, 0, 0
    pss, anon = rss, 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    pss = int(line.split()[1]) * 1024
                elif line.startswith(b"Anonymous:"):
                    anon = int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return rss, pss, anon


def _signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


class _Stop(Exception):
    pass


def run(cmd: list[str], *, timeout: float, linger: float, interval: float) -> dict[str, object]:
    """Run ``cmd`` as a measured tree and return the result dict described in the module docstring."""
    set_subreaper()
    me = os.getpid()
    start = time.monotonic()
    main = subprocess.Popen(cmd)  # inherits stdin/stdout/stderr from the caller's redirection
    main_status: int | None = None
    timed_out = False
    leftovers_killed = 0
    peak_rss = peak_pss = peak_anon = max_single = 0
    seen: set[int] = set()
    main_exit_at: float | None = None
    kill_stage = 0  # 0 none, 1 SIGTERM sent, 2 SIGKILL sent
    kill_stage_at = 0.0

    def on_signal(signum: int, frame: object) -> None:
        raise _Stop

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    stop_requested = False
    while True:
        try:
            # Reap everything that ended; our main child's status is kept.
            while True:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    pid = -1
                if pid <= 0:
                    break
                if pid == main.pid:
                    main_status = os.waitstatus_to_exitcode(status)
                    main.returncode = main_status  # keep Popen from reaping it again
                    main_exit_at = time.monotonic()
            tree = descendants(me)
            rss_sum = pss_sum = anon_sum = 0
            for pid in tree:
                rss, pss, anon = memory(pid)
                rss_sum += rss
                pss_sum += pss
                anon_sum += anon
                max_single = max(max_single, rss)
            seen.update(tree)
            peak_rss = max(peak_rss, rss_sum)
            peak_pss = max(peak_pss, pss_sum)
            peak_anon = max(peak_anon, anon_sum)
            if not tree and main_exit_at is not None:
                break
            now = time.monotonic()
            ending = (
                stop_requested
                or (now - start > timeout)
                or (main_exit_at is not None and now - main_exit_at > linger)
            )
            if ending:
                if now - start > timeout and main_exit_at is None:
                    timed_out = True
                if kill_stage == 0:
                    if main_exit_at is not None:
                        leftovers_killed = len(tree)
                    _signal_all(tree, signal.SIGTERM)
                    kill_stage, kill_stage_at = 1, now
                elif kill_stage == 1 and now - kill_stage_at > 5.0:
                    _signal_all(tree, signal.SIGKILL)
                    kill_stage, kill_stage_at = 2, now
                elif kill_stage == 2 and now - kill_stage_at > 5.0:
                    _signal_all(tree, signal.SIGKILL)
                    kill_stage_at = now
            time.sleep(interval if kill_stage == 0 else 0.05)
        except _Stop:
            stop_requested = True
    wall = (main_exit_at or time.monotonic()) - start
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "returncode": None if (stop_requested or timed_out) else main_status,
        "timed_out": timed_out,
        "interrupted": stop_requested,
        "wall_s": round(wall, 3),
        "cpu_user_s": round(ru.ru_utime, 3),
        "cpu_sys_s": round(ru.ru_stime, 3),
        "cpu_s": round(ru.ru_utime + ru.ru_stime, 3),
        "peak_rss_bytes": peak_rss,
        "peak_pss_bytes": peak_pss,
        "peak_anon_bytes": peak_anon,
        "max_single_rss_bytes": max(max_single, ru.ru_maxrss * 1024),
        "processes_seen": len(seen),
        "leftovers_killed": leftovers_killed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--result", type=Path, required=True, help="where to write the result JSON")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds before the tree is killed")
    parser.add_argument(
        "--linger", type=float, default=15.0, help="seconds leftovers may outlive the command"
    )
    parser.add_argument("--interval", type=float, default=0.2, help="memory polling interval in seconds")
    parser.add_argument("--cmd-file", type=Path, help="JSON file holding the command as a list of strings")
    parser.add_argument("cmd", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if args.cmd_file is not None:
        cmd = [str(a) for a in json.loads(args.cmd_file.read_text())]
    if not cmd:
        parser.error("no command given")
    result = run(cmd, timeout=args.timeout, linger=args.linger, interval=args.interval)
    args.result.write_text(json.dumps(result, indent=2) + "\n")
    rc = result["returncode"]
    return rc if isinstance(rc, int) and rc >= 0 else 1


if __name__ == "__main__":
    sys.exit(main())
