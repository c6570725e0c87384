"""The three load tools of the side-by-side benchmark: esbench, Rally and wrk.

Each run goes through :func:`run_measured` (``treerun.py`` in its own session), so every tool is
charged for its whole process tree, and returns a :class:`ToolRun` with the metrics parsed from the
tool's own report:

- esbench: ``esbench race ... --report-format=json --report-file=F``; rows
  ``{"metric", "task", "value", "unit"}`` (``esbench/reporting/summary.py``, ``render_summary``).
- Rally: ``esrally race ... --report-format=csv --report-file=F``; rows ``Metric,Task,Value,Unit``.
- wrk: ``wrk --latency`` text output (``Requests/sec``, the latency distribution).
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TREERUN = Path(__file__).resolve().parent / "treerun.py"
REPO_ROOT = Path(__file__).resolve().parents[2]

#: Report rows the benchmark reads, keyed by our metric name.
ROW_NAMES: dict[str, str] = {
    "throughput": "Median Throughput",
    "service_time_p50_ms": "50th percentile service time",
    "service_time_p90_ms": "90th percentile service time",
    "latency_p50_ms": "50th percentile latency",
    "error_rate_pct": "error rate",
}


@dataclass(frozen=True, kw_only=True)
class BenchPaths:
    """Where the benchmark keeps its state (default ``~/.esbench-bench``).

    Attributes:
        home: the root.
        rally_venv: Rally's own virtualenv (``pip install esrally``).
        rally_home: ``RALLY_HOME`` for the Rally runs (its ``.rally/rally.ini`` and data dir).
        esbench_home: ``ESBENCH_HOME`` for the esbench runs (corpora placed under ``corpora/``).
        cache: generated corpus files shared by both tools.
        tools_venv: a virtualenv for helper tools (py-spy).
    """

    home: Path

    @property
    def rally_venv(self) -> Path:
        return self.home / "rally-venv"

    @property
    def rally_bin(self) -> Path:
        return self.rally_venv / "bin" / "esrally"

    @property
    def rally_home(self) -> Path:
        return self.home / "rally-home"

    @property
    def rally_data(self) -> Path:
        return self.rally_home / ".rally" / "benchmarks" / "data"

    @property
    def esbench_home(self) -> Path:
        return self.home / "esbench-home"

    @property
    def esbench_data(self) -> Path:
        return self.esbench_home / "corpora"

    @property
    def cache(self) -> Path:
        return self.home / "corpora"

    @property
    def tools_venv(self) -> Path:
        return self.home / "tools-venv"


@dataclass(frozen=True, kw_only=True)
class ToolRun:
    """One measured run of one tool on one case.

    Attributes:
        tool: ``esbench``, ``rally`` or ``wrk``.
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
        }


# ---------------------------------------------------------------------------------------------
# Running a command as a measured process tree


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


# ---------------------------------------------------------------------------------------------
# Report parsing


def _number(value: Any) -> float | None:
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).strip())
    except ValueError:
        return None


def metrics_from_rows(
    rows: Sequence[tuple[str, str, Any, str]], tasks: Sequence[str]
) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """``(metrics, units)`` for ``tasks`` from Rally-style ``(metric, task, value, unit)`` rows."""
    by_name = {v: k for k, v in ROW_NAMES.items()}
    metrics: dict[str, dict[str, float]] = {t: {} for t in tasks}
    units: dict[str, str] = {}
    for metric, task, value, unit in rows:
        if task not in metrics or metric not in by_name:
            continue
        number = _number(value)
        if number is None:
            continue
        key = by_name[metric]
        metrics[task][key] = number
        if key == "throughput":
            units[task] = unit
    return metrics, units


def parse_esbench_report(path: Path) -> list[tuple[str, str, Any, str]]:
    """Rows of esbench's ``--report-format=json`` file.

    Shape: ``{"race": {...}, "metrics": [{"metric", "task", "value", "unit"}], "warnings": [...]}``.
    """
    data = json.loads(path.read_text())
    return [
        (r.get("metric", ""), r.get("task", ""), r.get("value"), r.get("unit", "")) for r in data["metrics"]
    ]


def parse_rally_report(path: Path) -> list[tuple[str, str, Any, str]]:
    """Rows of Rally's ``--report-format=csv`` file (header ``Metric,Task,Value,Unit``)."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None or [h.strip() for h in header[:4]] != ["Metric", "Task", "Value", "Unit"]:
            raise ValueError(f"{path}: not a Rally CSV report (header {header})")
        return [(r[0], r[1], r[2], r[3] if len(r) > 3 else "") for r in reader if len(r) >= 3]


_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def parse_wrk_output(text: str) -> dict[str, float]:
    """``{"requests_per_s", "latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "requests", "errors"}``
    from ``wrk --latency`` output (errors: non-2xx/3xx responses plus socket errors).

    Raises:
        ValueError: no ``Requests/sec`` line (wrk failed).
    """
    out: dict[str, float] = {}
    m = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    if not m:
        raise ValueError("wrk output has no 'Requests/sec' line")
    out["requests_per_s"] = float(m.group(1))
    m = re.search(r"^\s*(\d+) requests in", text, re.M)
    if m:
        out["requests"] = float(m.group(1))
    dist = text.split("Latency Distribution", 1)
    if len(dist) == 2:
        for pct, value, unit in re.findall(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s|m)\s*$", dist[1], re.M):
            out[f"latency_p{pct}_ms"] = float(value) * _UNITS_MS[unit]
    errors = 0.0
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    if m:
        errors += float(m.group(1))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if m:
        errors += sum(float(x) for x in m.groups())
    out["errors"] = errors
    return out


# ---------------------------------------------------------------------------------------------
# Tool installation


def rally_ini_text(paths: BenchPaths) -> str:
    """A ``rally.ini`` for offline benchmark-only use with an in-memory metrics store."""
    root = paths.rally_home / ".rally"
    return f"""[meta]
config.version = 17

[system]
env.name = local

[node]
root.dir = {root}/benchmarks
src.root.dir = {root}/benchmarks/src

[source]
remote.repo.url = https://github.com/elastic/elasticsearch.git
elasticsearch.src.subdir = elasticsearch

[benchmarks]
local.dataset.cache = {paths.rally_data}

[reporting]
datastore.type = in-memory
datastore.host =
datastore.port =
datastore.secure = False
datastore.user =
datastore.password =

[tracks]
default.url = https://github.com/elastic/rally-tracks

[teams]
default.url = https://github.com/elastic/rally-teams

[defaults]
preserve_benchmark_candidate = false

[distributions]
release.cache = true
"""


def ensure_rally(paths: BenchPaths, *, install: bool = True, log: Any = print) -> str:
    """Make sure Rally is installed in its virtualenv and configured; return ``esrally --version``.

    Raises:
        RuntimeError: Rally is missing and ``install`` is False, or pip failed.
    """
    if not paths.rally_bin.exists():
        if not install:
            raise RuntimeError(f"Rally is not installed at {paths.rally_bin} (run without --no-install).")
        log(f"installing Rally into {paths.rally_venv} (python3 -m venv + pip install esrally)")
        subprocess.run(["python3", "-m", "venv", str(paths.rally_venv)], check=True)
        r = subprocess.run(
            [str(paths.rally_venv / "bin" / "pip"), "install", "--quiet", "esrally"],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            raise RuntimeError(f"pip install esrally failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    ini = paths.rally_home / ".rally" / "rally.ini"
    ini.parent.mkdir(parents=True, exist_ok=True)
    text = rally_ini_text(paths)
    if not ini.exists() or ini.read_text() != text:
        ini.write_text(text)
    paths.rally_data.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(
        [str(paths.rally_bin), "--version"], capture_output=True, text=True, env=rally_env(paths), timeout=120
    )
    return (r.stdout.strip() or r.stderr.strip()).splitlines()[-1] if (r.stdout or r.stderr) else "esrally ?"


def ensure_apt_tools(*, install: bool = True, log: Any = print) -> dict[str, str]:
    """Make sure ``nginx`` and ``wrk`` exist (as root: ``apt-get install -y nginx-light wrk``).

    Returns their versions.

    Raises:
        RuntimeError: a tool is missing and cannot be installed (not root, or apt failed).
    """
    from sidebyside.nginx_stub import nginx_binary

    missing = [pkg for pkg, ok in (("nginx-light", nginx_binary()), ("wrk", shutil.which("wrk"))) if not ok]
    if missing:
        if not install or os.geteuid() != 0:
            raise RuntimeError(
                f"missing {', '.join(missing)}: run `apt-get install -y {' '.join(missing)}` as root."
            )
        log(f"installing {' '.join(missing)} with apt-get")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        r = subprocess.run(
            ["apt-get", "install", "-y", "-qq", *missing], env=env, capture_output=True, text=True
        )
        if r.returncode != 0:
            subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True)
            r = subprocess.run(
                ["apt-get", "install", "-y", "-qq", *missing], env=env, capture_output=True, text=True
            )
        if r.returncode != 0:
            raise RuntimeError(f"apt-get install {' '.join(missing)} failed:\n{r.stderr[-2000:]}")
    nginx = nginx_binary() or "nginx"
    nv = subprocess.run([nginx, "-v"], capture_output=True, text=True)
    wv = subprocess.run(["wrk", "-v"], capture_output=True, text=True)
    wrk_version = (wv.stdout + wv.stderr).strip().splitlines()
    return {
        "nginx": (nv.stderr or nv.stdout).strip().replace("nginx version: ", ""),
        "wrk": wrk_version[0] if wrk_version else "wrk ?",
    }


def esbench_version() -> str:
    """esbench's version and git commit of the checkout being measured."""
    try:
        from importlib.metadata import version

        v = version("esbench")
    except Exception:
        v = "?"
    r = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return f"esbench {v} (commit {r.stdout.strip() or '?'})"


# ---------------------------------------------------------------------------------------------
# The three tools


def rally_env(paths: BenchPaths) -> dict[str, str]:
    env = dict(os.environ)
    env["RALLY_HOME"] = str(paths.rally_home)
    return env


def esbench_env(paths: BenchPaths) -> dict[str, str]:
    env = dict(os.environ)
    env["ESBENCH_HOME"] = str(paths.esbench_home)
    return env


def _params_arg(params: Mapping[str, Any]) -> str:
    return ",".join(f"{k}:{json.dumps(v) if isinstance(v, bool) else v}" for k, v in params.items())


def esbench_race_command(
    *, host: str, track_path: Path, params: Mapping[str, Any], report_file: Path
) -> list[str]:
    """The ``esbench race`` command line for one run (flags per docs/dev/interfaces.md)."""
    cmd = [
        sys.executable,
        "-m",
        "esbench",
        "race",
        "--pipeline=benchmark-only",
        "--offline",
        f"--target-hosts={host}",
        f"--track-path={track_path}",
        "--report-format=json",
        f"--report-file={report_file}",
    ]
    if params:
        cmd.append(f"--track-params={_params_arg(params)}")
    return cmd


def rally_race_command(
    paths: BenchPaths, *, host: str, track_path: Path, params: Mapping[str, Any], report_file: Path
) -> list[str]:
    """The ``esrally race`` command line for one run.

    Not ``--kill-running-processes``: it SIGKILLs every ``python*`` process with "esrally" anywhere
    in its command line (esrally ``utils/process.py``), which can hit unrelated processes; the
    harness instead makes sure no Rally process of its own outlives a run (treerun).
    """
    cmd = [
        str(paths.rally_bin),
        "race",
        "--pipeline=benchmark-only",
        "--offline",
        f"--track-path={track_path}",
        f"--target-hosts={host}",
        "--report-format=csv",
        f"--report-file={report_file}",
        "--on-error=continue",
    ]
    if params:
        cmd.append(f"--track-params={_params_arg(params)}")
    return cmd


def _run_race_tool(
    tool: str,
    cmd: list[str],
    *,
    env: dict[str, str],
    case: str,
    rep: int,
    run_dir: Path,
    report_file: Path,
    tasks: Sequence[str],
    timeout: float,
    parse: Any,
) -> ToolRun:
    name = f"{case}.{tool}.{rep}"
    report_file.unlink(missing_ok=True)
    load = os.getloadavg()[0]
    rc, usage, log = run_measured(cmd, run_dir=run_dir, name=name, env=env, timeout=timeout)
    base = {
        "tool": tool,
        "case": case,
        "rep": rep,
        "usage": usage,
        "loadavg_before": load,
        "command": tuple(cmd),
        "log": str(log),
    }
    if rc != 0:
        tail = log.read_text(errors="replace")[-1500:] if log.exists() else ""
        why = "timed out" if usage.get("timed_out") else f"exit code {rc}"
        return ToolRun(ok=False, error=f"{tool} {why}; log {log}:\n{tail}", **base)
    try:
        metrics, units = metrics_from_rows(parse(report_file), tasks)
    except (OSError, ValueError, KeyError) as e:
        return ToolRun(ok=False, error=f"cannot read {tool}'s report {report_file}: {e}", **base)
    missing = [t for t in tasks if "throughput" not in metrics[t] and "service_time_p50_ms" not in metrics[t]]
    if missing:
        return ToolRun(
            ok=False,
            error=f"{tool}'s report has no rows for task(s) {missing}",
            metrics=metrics,
            units=units,
            **base,
        )
    return ToolRun(ok=True, error=None, metrics=metrics, units=units, **base)


def run_esbench(
    paths: BenchPaths,
    *,
    case: str,
    rep: int,
    host: str,
    track_path: Path,
    params: Mapping[str, Any],
    tasks: Sequence[str],
    run_dir: Path,
    timeout: float,
) -> ToolRun:
    """One ``esbench race`` run (benchmark-only against ``host``), measured; metrics from its JSON report."""
    report = run_dir / f"{case}.esbench.{rep}.report.json"
    cmd = esbench_race_command(host=host, track_path=track_path, params=params, report_file=report)
    return _run_race_tool(
        "esbench",
        cmd,
        env=esbench_env(paths),
        case=case,
        rep=rep,
        run_dir=run_dir,
        report_file=report,
        tasks=tasks,
        timeout=timeout,
        parse=parse_esbench_report,
    )


def run_rally(
    paths: BenchPaths,
    *,
    case: str,
    rep: int,
    host: str,
    track_path: Path,
    params: Mapping[str, Any],
    tasks: Sequence[str],
    run_dir: Path,
    timeout: float,
) -> ToolRun:
    """One ``esrally race`` run (benchmark-only, offline against ``host``), measured; metrics from its CSV."""
    report = run_dir / f"{case}.rally.{rep}.report.csv"
    cmd = rally_race_command(paths, host=host, track_path=track_path, params=params, report_file=report)
    return _run_race_tool(
        "rally",
        cmd,
        env=rally_env(paths),
        case=case,
        rep=rep,
        run_dir=run_dir,
        report_file=report,
        tasks=tasks,
        timeout=timeout,
        parse=parse_rally_report,
    )


@dataclass(frozen=True, kw_only=True)
class WrkSpec:
    """A wrk reference run: POST ``path`` with the body in ``body_file``.

    Attributes:
        task: the task of the race tools this run is the reference for.
        connections / threads: wrk's ``-c`` / ``-t``.
        duration_s: wrk's ``-d``.
        path: request path (``/stub/_search``).
        body_file: file with the request body.
        content_type: request content type.
        docs_per_request: documents per request (bulk: throughput is reported in docs/s).
    """

    task: str
    connections: int
    threads: int
    duration_s: int
    path: str
    body_file: Path
    content_type: str = "application/json"
    docs_per_request: int = 1


def wrk_lua(spec: WrkSpec) -> str:
    """The wrk Lua script: method, path, headers, and the body read from ``spec.body_file``."""
    return (
        'wrk.method = "POST"\n'
        f"wrk.path = {json.dumps(spec.path)}\n"
        f'wrk.headers["Content-Type"] = {json.dumps(spec.content_type)}\n'
        f'local f = assert(io.open({json.dumps(str(spec.body_file))}, "rb"))\n'
        'wrk.body = f:read("*a")\n'
        "f:close()\n"
    )


def run_wrk(*, case: str, rep: int, host: str, spec: WrkSpec, run_dir: Path) -> ToolRun:
    """One wrk run, measured. Metrics: throughput (requests/s x docs per request) and latency
    percentiles (with one connection and no think time, wrk's latency is the service time)."""
    script = run_dir / f"{case}.wrk.lua"
    run_dir.mkdir(parents=True, exist_ok=True)
    script.write_text(wrk_lua(spec))
    cmd = [
        "wrk",
        "-t",
        str(spec.threads),
        "-c",
        str(spec.connections),
        "-d",
        f"{spec.duration_s}s",
        "--latency",
        "-s",
        str(script),
        f"http://{host}",
    ]
    load = os.getloadavg()[0]
    rc, usage, log = run_measured(
        cmd, run_dir=run_dir, name=f"{case}.wrk.{rep}", timeout=spec.duration_s + 60
    )
    base = {
        "tool": "wrk",
        "case": case,
        "rep": rep,
        "usage": usage,
        "loadavg_before": load,
        "command": tuple(cmd),
        "log": str(log),
    }
    text = log.read_text(errors="replace") if log.exists() else ""
    if rc != 0:
        return ToolRun(ok=False, error=f"wrk exit code {rc}:\n{text[-1500:]}", **base)
    try:
        w = parse_wrk_output(text)
    except ValueError as e:
        return ToolRun(ok=False, error=f"{e}:\n{text[-1500:]}", **base)
    m: dict[str, float] = {"throughput": w["requests_per_s"] * spec.docs_per_request}
    for p in ("50", "90"):
        if f"latency_p{p}_ms" in w:
            m[f"service_time_p{p}_ms"] = w[f"latency_p{p}_ms"]
    requests = w.get("requests", 0.0)
    m["error_rate_pct"] = 100.0 * w["errors"] / requests if requests else 0.0
    unit = "docs/s" if spec.docs_per_request > 1 else "ops/s"
    return ToolRun(ok=True, error=None, metrics={spec.task: m}, units={spec.task: unit}, **base)


def wait_quiet(seconds: float) -> None:
    """Pause between runs so that one tool's tail (sockets in TIME_WAIT, GC) does not hit the next."""
    if seconds > 0:
        time.sleep(seconds)
