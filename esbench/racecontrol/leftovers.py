"""``--kill-running-processes``: before a race, stop what earlier esbench races of this user left
running on this machine.

Rally's option (``esrally/rally.py`` ``race``, ``esrally/utils/process.py``
``kill_running_rally_instances``) kills every other Rally process, because Rally's actor system must
be alone on a machine. esbench races need no such singleton, so the option means the clean-up a user
wants after a crashed or abandoned race:

- every other process of **the same user and the same esbench home** (its ``ESBENCH_HOME``, else
  its ``~/.esbench``, is this process's home) whose command line is an esbench command that runs
  races (``esbench race``, ``sweep``, ``optimize``, ``find-max``, ``size``, ``query``, ``load``):
  SIGTERM, then SIGKILL after :data:`GRACE_S`; its load-driver workers exit when it does. This
  process and its ancestors are never touched, nor a process of another user, nor an esbench of
  another home: on a machine where several people (or test sessions) run as the same account, each
  with its own home, one's clean-up leaves the others' races alone.
- then the nodes of installations in this esbench home that a race provisioned (an installation
  made by ``esbench install``/``start`` is the user's own and is left alone).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from esbench.home import esbench_home

#: Seconds between SIGTERM and SIGKILL.
GRACE_S = 10.0

#: esbench commands whose processes run races.
RACING_COMMANDS = frozenset({"race", "sweep", "optimize", "find-max", "size", "query", "load"})


@dataclass(frozen=True, kw_only=True)
class Stopped:
    """What :func:`stop_leftovers` stopped: race processes (pid, command line) and installations."""

    processes: tuple[tuple[int, str], ...]
    installations: tuple[str, ...]


def is_esbench_race(cmdline: Sequence[str]) -> bool:
    """Whether ``cmdline`` runs an esbench command that races: ``esbench race ...``,
    ``python -m esbench sweep ...`` (the first word after ``esbench`` that is not an option)."""
    for i, word in enumerate(cmdline):
        if os.path.basename(word) == "esbench":
            rest = [w for w in cmdline[i + 1 :] if not w.startswith("-")]
            return bool(rest) and rest[0] in RACING_COMMANDS
    return False


def home_of(environ: dict[str, str]) -> Path:
    """The esbench home of a process with environment ``environ`` (:func:`esbench.home.esbench_home`'s
    rule: ``ESBENCH_HOME``, else ``$HOME/.esbench``), resolved."""
    raw = environ.get("ESBENCH_HOME")
    if raw:
        return Path(raw).expanduser().resolve()
    return (Path(environ.get("HOME") or Path.home()) / ".esbench").resolve()


def _protected() -> set[int]:
    me = psutil.Process()
    return {me.pid, *(p.pid for p in me.parents())}


def leftover_races() -> list[psutil.Process]:
    """The other processes of this user and this esbench home that run esbench races (never this
    process or its ancestors)."""
    uid, protected, found = os.getuid(), _protected(), []
    home = esbench_home().resolve()
    for proc in psutil.process_iter(["pid", "uids", "cmdline"]):
        try:
            info = proc.info
            if info["pid"] in protected or info["uids"] is None or info["uids"].real != uid:
                continue
            if is_esbench_race(info["cmdline"] or ()) and home_of(proc.environ()) == home:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def stop_leftovers(notify: Callable[[str], None], *, grace_s: float = GRACE_S) -> Stopped:
    """Stop the user's other esbench race processes, then the nodes races provisioned; ``notify``
    gets one line per thing stopped. Processes that are gone already are skipped.

    Raises:
        ProvisionError: an installation's nodes could not be stopped (:func:`esbench.provision.cluster.stop`).
    """
    from esbench.provision import cluster

    procs = leftover_races()
    stopped = []
    for proc in procs:
        try:
            stopped.append((proc.pid, " ".join(proc.cmdline())))
            proc.terminate()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    _, alive = psutil.wait_procs(procs, timeout=grace_s)
    for proc in alive:
        try:
            proc.kill()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    psutil.wait_procs(alive, timeout=grace_s)
    for pid, line in stopped:
        notify(f"Stopped esbench process {pid}: {line}")
    installations = []
    for inst in cluster.running_installations():
        if inst.race_dir is None:
            continue
        pids = cluster.stop(inst, preserve_install=bool(inst.extra.get("preserve_install")))
        installations.append(inst.id)
        notify(f"Stopped the {len(pids)} node(s) of installation {inst.id}, left by race dir {inst.race_dir}")
    return Stopped(processes=tuple(stopped), installations=tuple(installations))
