"""The race tools of the side-by-side benchmark (esbench, Rally) and the tool installers.

wrk lives in ``wrk.py``, vegeta in ``vegeta.py``, the measured-run record in ``measure.py``.

Each run goes through :func:`run_measured` (``treerun.py`` in its own session), so every tool is
charged for its whole process tree, and returns a :class:`ToolRun` with the metrics parsed from the
tool's own report:

- esbench: ``esbench race ... --report-format=json --report-file=F``; rows
  ``{"metric", "task", "value", "unit"}`` (``esbench/reporting/summary.py``, ``render_summary``).
- Rally: ``esrally race ... --report-format=csv --report-file=F``; rows ``Metric,Task,Value,Unit``.
- wrk: ``wrk --latency`` text output (``Requests/sec``, the latency distribution).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sidebyside.cost import esbench_requests
from sidebyside.measure import ToolRun, run_measured, run_tool
from sidebyside.paths import BenchPaths
from sidebyside.wrk import WrkSpec, parse_wrk_output, run_wrk, wrk_lua

REPO_ROOT = Path(__file__).resolve().parents[2]

__all__ = [
    "BenchPaths",
    "ToolRun",
    "WrkSpec",
    "parse_wrk_output",
    "run_measured",
    "run_wrk",
    "wrk_lua",
]

#: Report rows the benchmark reads, keyed by our metric name.
ROW_NAMES: dict[str, str] = {
    "throughput": "Median Throughput",
    "service_time_p50_ms": "50th percentile service time",
    "service_time_p90_ms": "90th percentile service time",
    "latency_p50_ms": "50th percentile latency",
    "error_rate_pct": "error rate",
}


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
# The race tools


def rally_env(paths: BenchPaths) -> dict[str, str]:
    env = dict(os.environ)
    env["RALLY_HOME"] = str(paths.rally_home)
    return env


def esbench_env(paths: BenchPaths) -> dict[str, str]:
    """The environment of an esbench run: its ``ESBENCH_HOME``, and this checkout first on ``PYTHONPATH``
    so that ``python -m esbench`` runs the tree whose commit the report names (:func:`esbench_version`),
    not whichever tree an editable install points at."""
    env = dict(os.environ)
    env["ESBENCH_HOME"] = str(paths.esbench_home)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def _params_arg(params: Mapping[str, Any]) -> str:
    return ",".join(f"{k}:{json.dumps(v) if isinstance(v, bool) else v}" for k, v in params.items())


def esbench_race_command(
    *, host: str, track_path: Path, params: Mapping[str, Any], report_file: Path
) -> list[str]:
    """The ``esbench race`` command line for one run (flags per docs/dev/interfaces.md).

    ``-P``: without it ``python -m`` puts the working directory first on ``sys.path``, and a run
    started from another checkout's directory would measure that checkout's esbench, not the one
    :func:`esbench_env` puts on ``PYTHONPATH``.
    """
    cmd = [
        sys.executable,
        "-P",
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
    report_file.unlink(missing_ok=True)
    rc, base, log = run_tool(tool, cmd, case=case, rep=rep, run_dir=run_dir, timeout=timeout, env=env)
    usage = base["usage"]
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
    """One ``esbench race`` run (benchmark-only against ``host``), measured; metrics from its JSON report,
    ``requests["tool"]`` from the race's ``results.json`` (:func:`sidebyside.cost.esbench_requests`)."""
    report = run_dir / f"{case}.esbench.{rep}.report.json"
    cmd = esbench_race_command(host=host, track_path=track_path, params=params, report_file=report)
    run = _run_race_tool(
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
    sent = esbench_requests(report, paths.esbench_home) if run.ok else None
    return dataclasses.replace(run, requests={"tool": sent}) if sent else run


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


def wait_quiet(seconds: float) -> None:
    """Pause between runs so that one tool's tail (sockets in TIME_WAIT, GC) does not hit the next."""
    if seconds > 0:
        time.sleep(seconds)
