"""The test harness: the one way tests run ``esbench`` as a subprocess, provision a cluster, and find
the shared paths (resources, the distribution cache).

* :func:`esbench` runs ``python -m esbench ARGS`` to completion; :func:`esbench_popen` starts it for a
  test that signals it or reads it while it runs. Both carry the test's environment (its isolated
  ``ESBENCH_HOME``, ``tests/conftest.py``) plus ``env``, or another ``home``. :func:`race` and
  :func:`race_popen` are ``esbench race`` of a track against hosts; :func:`long_race` starts the race a
  test interrupts or breaks, and :func:`interrupt_at_task` is Ctrl-C once a race reaches a task.
* :func:`ok`, :func:`no_traceback`, :func:`race_dir` and :func:`results` read what a run printed and
  stored.
* :func:`provision` starts a cluster with esbench's own provisioning in an esbench home of its own,
  with the shared distribution cache (:func:`dist_cache`); the session clusters of
  ``tests/integration/clusters.py`` and every test that starts its own node use it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from esbench.provision import ProvisionedCluster, ProvisionSettings, provision_cluster

ROOT = Path(__file__).resolve().parents[1]
RESOURCES = ROOT / "tests" / "resources"
TRACKS = RESOURCES / "tracks"
#: The benchmark scripts; a few of their helper modules serve test fixtures too.
BENCHMARKS = ROOT / "benchmarks"

#: How long one esbench run may take before the test fails (s). pytest-timeout ends a test at 300 s;
#: a shorter deadline here fails with the command's own output instead.
DEFAULT_TIMEOUT_S = 280.0


def dist_cache() -> str:
    """The distribution cache every provisioning in the tests shares: ``$ESBENCH_DIST_CACHE``, or
    ``~/.cache/esbench/distributions`` (kept across sessions, so a machine unpacks a version once)."""
    return os.environ.get("ESBENCH_DIST_CACHE") or str(Path.home() / ".cache" / "esbench" / "distributions")


def esbench_env(env: Mapping[str, str] | None = None, home: Path | None = None) -> dict[str, str]:
    """The environment of an esbench subprocess: this process's (with the test's ``ESBENCH_HOME``),
    this checkout first on ``PYTHONPATH``, the shared distribution cache, ``ESBENCH_HOME=home`` if
    given, then ``env`` on top."""
    # PYTHONPATH: the subprocess imports esbench from this checkout, whatever else is installed.
    pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    out = {**os.environ, "ESBENCH_DIST_CACHE": dist_cache(), "PYTHONPATH": pythonpath}
    if home is not None:
        out["ESBENCH_HOME"] = str(home)
    out.update(env or {})
    return out


def coverage_env() -> dict[str, str]:
    """When this test process measures coverage (``pytest --cov``), the variables that make a Python
    subprocess measure itself into the same data (coverage's ``.pth`` hook starts it from
    ``COVERAGE_PROCESS_START``; the parallel data file it writes beside ours is combined at the end);
    empty otherwise. For the tests that run esbench's Python twins in a subprocess: those lines are
    run by a test, so they count as covered."""
    import coverage

    current = coverage.Coverage.current()
    if current is None:
        return {}
    return {
        "COVERAGE_PROCESS_START": str(ROOT / "pyproject.toml"),
        "COVERAGE_FILE": str(Path(current.config.data_file).resolve()),
    }


def core_env(pure: bool | str = True) -> dict[str, str]:
    """The environment of a Python subprocess that runs esbench on its Python twins
    (``ESBENCH_PURE_PYTHON=1``) or, with ``pure`` False or ``"0"``, on the C core (CONTRIBUTING.md, the
    C extensions), with :func:`coverage_env`."""
    value = pure if isinstance(pure, str) else ("1" if pure else "0")
    return {**os.environ, "ESBENCH_PURE_PYTHON": value, **coverage_env()}


def esbench(
    *args: str,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    stdin: str | None = None,
    cwd: Path | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m esbench *args`` to its end and return it (text stdout/stderr, never raises on a
    non-zero exit; :class:`subprocess.TimeoutExpired` after ``timeout`` s)."""
    return subprocess.run(
        [sys.executable, "-m", "esbench", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=esbench_env(env, home),
        check=False,
    )


def esbench_popen(
    *args: str,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    new_session: bool = False,
) -> subprocess.Popen[str]:
    """Start ``python -m esbench *args`` with piped text stdout/stderr; with ``new_session`` in a process
    group of its own (so a test can signal or kill the whole race). The caller waits for it.

    The child starts with SIGINT and SIGQUIT at their default dispositions: a suite started in the
    background by a shell without job control (``nohup bash .ci/run &``) inherits them ignored, and
    a Python that starts with SIGINT ignored never raises KeyboardInterrupt, so the Ctrl-C tests
    would wait for nothing."""
    return subprocess.Popen(
        [sys.executable, "-m", "esbench", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=esbench_env(env, home),
        start_new_session=new_session,
        preexec_fn=_default_interrupt_signals,
    )


def _default_interrupt_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def race(
    track: Path | str, hosts: Sequence[str], *args: str, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """``esbench race --track-path=TRACK --target-hosts=HOSTS ARGS`` to its end (``kwargs`` as for
    :func:`esbench`)."""
    return esbench("race", f"--track-path={track}", f"--target-hosts={','.join(hosts)}", *args, **kwargs)


def race_popen(track: Path | str, hosts: Sequence[str], *args: str, **kwargs: Any) -> subprocess.Popen[str]:
    """:func:`race`, started (``kwargs`` as for :func:`esbench_popen`)."""
    return esbench_popen(
        "race", f"--track-path={track}", f"--target-hosts={','.join(hosts)}", *args, **kwargs
    )


def long_race(hosts: Sequence[str], *args: str) -> subprocess.Popen[str]:
    """compare-tiny (1,000 documents, then ``term-query``) with a 60-second ``term-query``, started:
    the race a test interrupts or breaks while it runs (on the index ``race-interrupt``)."""
    return race_popen(
        TRACKS / "compare-tiny",
        hosts,
        "--track-params=search_time_period:60,index_name:race-interrupt",
        *args,
    )


def wait_for_task(proc: subprocess.Popen[str], task: str) -> str:
    """Read the race's stderr until its progress line of ``task`` (``Running TASK``); returns what
    was read.

    Raises:
        AssertionError: the race ended before ``task`` (with what it printed).
    """
    seen: list[str] = []
    assert proc.stderr is not None
    for line in proc.stderr:
        seen.append(line)
        if f"Running {task}" in line:
            return "".join(seen)
    raise AssertionError(f"the race ended before task {task}:\n{''.join(seen)}")


def interrupt_at_task(proc: subprocess.Popen[str], task: str, *, timeout: float = 60.0) -> float:
    """Read the race's stderr until its progress line of ``task`` (``Running TASK``), send it SIGINT
    (Ctrl-C) and wait up to ``timeout`` s for it to end; a race still running then is killed.
    Returns when the signal was sent (``time.time()``, s).

    Raises:
        AssertionError: the race ended before ``task`` (with what it printed).
    """
    try:
        wait_for_task(proc, task)
        signalled_at = time.time()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
    return signalled_at


def no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    """Assert that neither output stream shows a Python traceback."""
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stdout, proc.stdout


def ok(proc: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    """Assert exit 0 and no traceback (the failure shows the ends of both streams); returns ``proc``."""
    assert proc.returncode == 0, (
        f"esbench exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    )
    no_traceback(proc)
    return proc


def race_dir(proc: subprocess.CompletedProcess[str]) -> Path:
    """The race directory a race printed (its ``results in DIR`` line on stderr)."""
    line = next(ln for ln in proc.stderr.splitlines() if "results in " in ln)
    return Path(line.rsplit("results in ", 1)[1].strip())


def results(proc: subprocess.CompletedProcess[str]) -> dict:
    """The ``results.json`` of the race ``proc`` ran."""
    return json.loads((race_dir(proc) / "results.json").read_text(encoding="utf-8"))


def provision(home: Path, settings: ProvisionSettings) -> ProvisionedCluster:
    """Provision and start a cluster per ``settings`` in the esbench home ``home``, with the shared
    distribution cache; its node logs are copied to ``home/race/logs`` when it stops. The caller
    stops it.

    Raises what :func:`esbench.provision.provision_cluster` raises (the node's console output is in
    ``home/race/logs``).
    """
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ESBENCH_HOME", str(home))
        mp.setenv("ESBENCH_DIST_CACHE", dist_cache())
        return provision_cluster(settings, race_dir=home / "race")
