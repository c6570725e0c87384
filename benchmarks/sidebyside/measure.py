"""One measured tool run: the :class:`ToolRun` record and :func:`run_measured`, which runs a command
under ``treerun.py`` so that the tool is charged for its whole process tree."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TREERUN = Path(__file__).resolve().parent / "treerun.py"


@dataclass(frozen=True, kw_only=True)
class ToolRun:
    """One measured run of one tool on one case.

    Attributes:
        tool: ``esbench``, ``rally``, ``wrk`` or ``vegeta``.
        case: case name (``search-1``...).
        rep: repetition index (0-based).
        ok: the tool exited 0 and its report had the expected rows.
        error: why not, else None.
        metrics: ``{task: {metric: value}}`` with metric names from :data:`ROW_NAMES` (throughput in the
            task's unit: ops/s or docs/s; times in ms; error rate in %).
        units: ``{task: throughput unit}``.
        usage: the treerun result (``cpu_s``, ``peak_rss_bytes``, ``peak_pss_bytes``, ``wall_s``...).
        loadavg_before: 1-minute load average when the run started.
        target_cpu_s: CPU seconds of the target server (nginx or Elasticsearch) during the run.
        other_cpu_s: CPU seconds of all other processes during the run (see ``machine``), or None.
        command: the tool's command line.
        log: the file holding the tool's stdout and stderr.
        requests: requests the run sent, by source (see ``cost.py``): ``"tool"`` (the tool's own count:
            esbench's measurement + warmup samples of all tasks, wrk's and vegeta's completed requests)
            and ``"server"`` (the nginx stub's request counter over the run, administrative calls
            included); either may be missing.
    """

    tool: str
    case: str
    rep: int
    ok: bool
    error: str | None
    metrics: dict[str, dict[str, float]] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    loadavg_before: float = 0.0
    target_cpu_s: float | None = None
    other_cpu_s: float | None = None
    command: tuple[str, ...] = ()
    log: str = ""
    requests: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "case": self.case,
            "rep": self.rep,
            "ok": self.ok,
            "error": self.error,
            "metrics": self.metrics,
            "units": self.units,
            "usage": self.usage,
            "loadavg_before": self.loadavg_before,
            "target_cpu_s": self.target_cpu_s,
            "other_cpu_s": self.other_cpu_s,
            "command": list(self.command),
            "log": self.log,
            "requests": self.requests,
        }


def run_measured(
    cmd: Sequence[str],
    *,
    run_dir: Path,
    name: str,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 3600.0,
    linger: float = 15.0,
) -> tuple[int | None, dict[str, Any], Path]:
    """Run ``cmd`` under ``treerun.py``; return ``(returncode, usage, log_path)``.

    The command is passed in a file (``NAME.cmd.json``) so that no process of ours has "esrally" in
    its command line (Rally refuses to start beside such a process). The tree runs in its own
    session: Ctrl-C reaches only this process, which then stops the tree (SIGTERM to treerun, which
    ends all descendants) before re-raising.
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    cmd_file = run_dir / f"{name}.cmd.json"
    usage_file = run_dir / f"{name}.usage.json"
    log_path = run_dir / f"{name}.log"
    cmd_file.write_text(json.dumps(list(cmd)))
    usage_file.unlink(missing_ok=True)
    wrapper = [
        sys.executable,
        str(TREERUN),
        "--result",
        str(usage_file),
        "--timeout",
        str(timeout),
        "--linger",
        str(linger),
        "--cmd-file",
        str(cmd_file),
    ]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            wrapper,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,
        )
        try:
            # treerun enforces ``timeout`` itself; the margin covers its kill sequence.
            proc.wait(timeout + 60)
        except BaseException:
            _stop_wrapper(proc)
            raise
    usage = json.loads(usage_file.read_text()) if usage_file.exists() else {}
    return usage.get("returncode"), usage, log_path


def _stop_wrapper(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        # treerun did not manage: kill its session (the tool is in it unless it called setsid).
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def run_tool(
    tool: str,
    cmd: Sequence[str],
    *,
    case: str,
    rep: int,
    run_dir: Path,
    timeout: float,
    env: Mapping[str, str] | None = None,
) -> tuple[int | None, dict[str, Any], Path]:
    """:func:`run_measured` for one tool run named ``CASE.TOOL.REP``; returns ``(returncode, base,
    log_path)`` where ``base`` holds the :class:`ToolRun` fields every outcome shares (tool, case, rep,
    usage, the 1-minute load average before the run, command, log)."""
    load = os.getloadavg()[0]
    rc, usage, log = run_measured(cmd, run_dir=run_dir, name=f"{case}.{tool}.{rep}", env=env, timeout=timeout)
    base = {
        "tool": tool,
        "case": case,
        "rep": rep,
        "usage": usage,
        "loadavg_before": load,
        "command": tuple(cmd),
        "log": str(log),
    }
    return rc, base, log
