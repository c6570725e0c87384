"""The account that runs the nodes; Elasticsearch refuses root ("can not run elasticsearch as root").

When esbench runs as root it starts nodes as an unprivileged account (``esbench`` by default, created
with ``useradd`` if missing) and hands it the directories it writes; otherwise nodes run as the
current user.
"""

from __future__ import annotations

import logging
import os
import pwd
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from esbench.exceptions import ConfigError, ProvisionError
from esbench.provision.settings import DEFAULT_RUN_AS_USER

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class RunAs:
    """The account a node runs as; ``switch`` is True when it differs from the current process's."""

    name: str
    uid: int
    gid: int
    home: str
    switch: bool


def _lookup(name: str) -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


def _create_user(name: str) -> pwd.struct_passwd:
    useradd = shutil.which("useradd")
    if useradd is None:
        raise ProvisionError(
            f"Elasticsearch cannot run as root and the account '{name}' does not exist; 'useradd' is not "
            f"available to create it. Create an unprivileged account and pass --run-as-user=NAME."
        )
    nologin = shutil.which("nologin") or "/usr/sbin/nologin"
    cmd = [useradd, "--system", "--no-create-home", "--user-group", "--shell", nologin, name]
    logger.warning("Creating the unprivileged account '%s' to run Elasticsearch: %s", name, " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    entry = _lookup(name)  # a concurrent esbench may have created it first
    if entry is None:
        raise ProvisionError(
            f"Could not create the account '{name}' to run Elasticsearch (useradd exit {proc.returncode}: "
            f"{proc.stderr.strip()}). Create it yourself or pass --run-as-user=NAME."
        )
    return entry


def resolve_run_as(requested: str | None) -> RunAs:
    """Decide which account runs the nodes.

    Root: ``requested`` or :data:`DEFAULT_RUN_AS_USER`, created if missing (never root itself).
    Not root: the current user; ``requested`` must be that user (switching needs root).

    Raises:
        ConfigError: ``--run-as-user=root``, or another user requested without root privileges.
        ProvisionError: the account cannot be created.
    """
    euid = os.geteuid()
    current = pwd.getpwuid(euid)
    if euid != 0:
        if requested not in (None, current.pw_name):
            raise ConfigError(
                f"--run-as-user={requested} needs root privileges to switch accounts; esbench runs as "
                f"'{current.pw_name}'. Drop --run-as-user or run esbench as root."
            )
        return RunAs(name=current.pw_name, uid=euid, gid=os.getegid(), home=current.pw_dir, switch=False)
    name = requested or DEFAULT_RUN_AS_USER
    entry = _lookup(name) or (_create_user(name) if requested in (None, DEFAULT_RUN_AS_USER) else None)
    if entry is None:
        raise ConfigError(
            f"--run-as-user={name}: no such account. Create it (useradd --system {name}) or omit the option "
            f"to use '{DEFAULT_RUN_AS_USER}', which esbench creates when missing."
        )
    if entry.pw_uid == 0:
        raise ConfigError(
            f"--run-as-user={name} is root, and Elasticsearch refuses to run as root. Name an unprivileged "
            f"account or omit the option."
        )
    return RunAs(name=name, uid=entry.pw_uid, gid=entry.pw_gid, home=entry.pw_dir, switch=True)


def can_traverse(path: Path, user: RunAs) -> bool:
    """True if ``user`` can reach ``path`` (search permission on it and every ancestor)."""
    if not user.switch:
        return True
    p = path.resolve()
    for d in (p, *p.parents):
        if not d.exists():
            continue
        st = d.stat()
        if st.st_uid == user.uid:
            ok = bool(st.st_mode & stat.S_IXUSR)
        elif st.st_gid == user.gid:
            ok = bool(st.st_mode & stat.S_IXGRP)
        else:
            ok = bool(st.st_mode & stat.S_IXOTH)
        if not ok:
            return False
    return True


def give(path: Path, user: RunAs) -> None:
    """Make ``user`` the owner of ``path`` and everything below it (no-op without a user switch)."""
    if not user.switch:
        return
    os.chown(path, user.uid, user.gid)
    for root, dirs, files in os.walk(path):
        for n in dirs + files:
            os.chown(os.path.join(root, n), user.uid, user.gid, follow_symlinks=False)
