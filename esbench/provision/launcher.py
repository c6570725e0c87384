"""Start, watch and stop Elasticsearch processes.

Nodes start daemonized (``bin/elasticsearch -d -p es.pid``) in their own session, so a Ctrl-C in the
terminal reaches esbench only; esbench then stops them itself. A node's JVM is recognised by the
``-Desbench.node=<install id>/<node>`` marker in its command line (``/proc/<pid>/cmdline``), which also
protects against signalling a recycled pid.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import signal
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from esbench.provision.flavors import ELASTICSEARCH, Flavor
from esbench.provision.installation import NodeState
from esbench.provision.users import RunAs

logger = logging.getLogger(__name__)

# Loopback health checks must never go through an HTTP proxy from the environment.
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))

# Elasticsearch's port failures; not its "Failed to bind service", which wraps any start failure
# (an unwritable data path among them).
_BIND_RE = re.compile(r"BindHttpException|BindTransportException|Address already in use|Failed to bind to ")


def _read_cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return raw.decode(errors="replace").split("\0")


def pids_with_marker(marker: str) -> list[int]:
    """Pids of live processes whose command line contains ``-Desbench.node=<marker>``."""
    needle = f"-Desbench.node={marker}"
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and needle in _read_cmdline(int(entry.name)) and pid_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def pid_alive(pid: int) -> bool:
    """True if ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    # The state follows the parenthesised command name, which may itself contain spaces/parens.
    return stat[stat.rfind(")") + 2 :][:1] not in ("Z", "X", "")


def read_pid_file(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def node_env(
    *,
    java_home: Path,
    node: NodeState,
    user: RunAs,
    base: Mapping[str, str],
    flavor: Flavor = ELASTICSEARCH,
) -> dict[str, str]:
    """The environment of ``bin/elasticsearch`` (``bin/opensearch``, with the ``flavor``'s variable
    names): a minimal, explicit one (no inherited ES_JAVA_OPTS, which would override the car's heap)."""
    env = {k: v for k, v in base.items() if k in ("PATH", "LANG", "LC_ALL", "TZ")}
    env.setdefault("PATH", os.defpath)
    env.update(
        {
            flavor.java_home_env: str(java_home),
            flavor.path_conf_env: str(node.config_dir),
            flavor.tmpdir_env: str(node.tmp_dir),
            "HOME": str(node.path),
            "USER": user.name,
            "LOGNAME": user.name,
        }
    )
    # Rally's launcher (esrally/mechanic/launcher.py _prepare_env): the JDK's bin first on PATH, its
    # home also as JAVA_HOME, and a node that runs out of heap exits instead of limping on.
    env["PATH"] = f"{java_home / 'bin'}{os.pathsep}{env['PATH']}"
    if flavor is ELASTICSEARCH:
        env["JAVA_HOME"] = str(java_home)
        env["ES_JAVA_OPTS"] = "-XX:+ExitOnOutOfMemoryError"
    return env


def launch(
    node: NodeState, *, es_home: Path, java_home: Path, user: RunAs, flavor: Flavor = ELASTICSEARCH
) -> subprocess.Popen[bytes]:
    """Run ``bin/elasticsearch -d -p es.pid`` (the ``flavor``'s launcher) for ``node`` as ``user``;
    returns the launcher process.

    The launcher exits 0 once the node is started (it then runs detached), non-zero if startup failed;
    its output goes to ``node.console_log``.
    """
    cmd = [str(es_home / "bin" / flavor.executable), "-d", "-p", str(node.pid_file)]
    env = node_env(java_home=java_home, node=node, user=user, base=os.environ, flavor=flavor)
    logger.info("Starting node %s: %s (as %s)", node.name, " ".join(cmd), user.name)
    with open(node.console_log, "ab") as out:
        # None is Popen's default for each: the node runs as the current user then.
        switch = user.switch
        return subprocess.Popen(
            cmd,
            cwd=node.path,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            user=user.uid if switch else None,
            group=user.gid if switch else None,
            extra_groups=[] if switch else None,
        )


def terminate(
    pids: Iterable[int], *, timeout: float, clock: Callable[[], float] = time.monotonic
) -> list[int]:
    """SIGTERM ``pids``, wait up to ``timeout`` s, SIGKILL survivors; returns the pids that needed SIGKILL."""
    pids = [p for p in pids if pid_alive(p)]
    for p in pids:
        _signal(p, signal.SIGTERM)
    deadline = clock() + timeout
    while clock() < deadline and any(pid_alive(p) for p in pids):
        time.sleep(0.1)
    killed = [p for p in pids if pid_alive(p)]
    for p in killed:
        logger.warning("Process %s did not stop within %.0f s after SIGTERM; sending SIGKILL", p, timeout)
        _signal(p, signal.SIGKILL)
    deadline = clock() + 10
    while clock() < deadline and any(pid_alive(p) for p in killed):
        time.sleep(0.05)
    return killed


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def kill_launcher(proc: subprocess.Popen[bytes]) -> None:
    """Kill a launcher that is still running, with its whole process group (it may have forked the JVM)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def tail(path: Path, lines: int = 20) -> str:
    """The last ``lines`` lines of a text file ('' if missing)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 64 * 1024))
            text = fh.read().decode(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def node_log_tail(node: NodeState, cluster_name: str, lines: int = 20) -> str:
    """The tail of the node's console output and server log, labelled, for error messages."""
    parts = []
    for label, path in (("console", node.console_log), ("log", node.logs_dir / f"{cluster_name}.log")):
        text = tail(path, lines)
        if text.strip():
            parts.append(f"--- {node.name} {label} ({path}) ---\n{text}")
    return "\n".join(parts) or f"(no output from {node.name}; see {node.path})"


def is_bind_failure(node: NodeState, cluster_name: str) -> bool:
    """True if the node's output says it could not bind its port (someone took it)."""
    return bool(_BIND_RE.search(node_log_tail(node, cluster_name, lines=200)))


@dataclass(frozen=True, kw_only=True)
class Health:
    """The answer of ``GET _cluster/health`` from one node."""

    status: str
    number_of_nodes: int


def cluster_health(
    host: str,
    *,
    timeout: float = 2.0,
    ssl_context: ssl.SSLContext | None = None,
    headers: Mapping[str, str] | None = None,
) -> Health | None:
    """``GET http://host/_cluster/health``; None while the node does not answer (or answers an error).

    With ``ssl_context`` the request goes over ``https`` (a secured node); ``headers`` carry its
    ``authorization``. Uses ``_cluster/health``, not ``GET /``: the integ-test distribution answers
    405 to ``GET /`` from 8.9.
    """
    scheme = "https" if ssl_context is not None else "http"
    opener = (
        _NO_PROXY
        if ssl_context is None
        else urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=ssl_context)
        )
    )
    request = urllib.request.Request(f"{scheme}://{host}/_cluster/health", headers=dict(headers or {}))
    try:
        with opener.open(request, timeout=timeout) as resp:
            body = json.loads(resp.read())
    except (urllib.error.URLError, OSError, ValueError, TimeoutError):
        return None
    return Health(status=str(body.get("status")), number_of_nodes=int(body.get("number_of_nodes", 0)))
