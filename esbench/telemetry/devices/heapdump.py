"""``heapdump``: a heap dump of every provisioned node after the last task.

Rally's device of the same name (esrally ``telemetry.py``, ``Heapdump.detach_from_node``): when
Rally stops a node that still runs it calls ``jmap -dump:format=b,file=<node telemetry dir>/
heap_at_exit_<pid>.hprof <pid>`` and logs a warning if that fails. esbench dumps at the same moment
of the race (after the last task, before the node is stopped) with ``jmap`` of the JDK the node runs
on (``jcmd <pid> GC.heap_dump`` where that JDK has no ``jmap``), run as the account that runs the
node (a JVM accepts attach requests only from its own account); the JVM writes the file into the
node's telemetry directory, and esbench moves it to ``<race dir>/telemetry/<node>/``. A failed dump
is a warning, never a failed race.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pwd
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from esbench.telemetry.device import DeviceOutput, ProvisionedNode, TelemetryDevice

logger = logging.getLogger(__name__)

#: Seconds a heap dump may take (a 31 GiB heap writes in a few minutes on a slow disk).
DUMP_TIMEOUT_S = 900.0


def dump_command(node: ProvisionedNode, target: Path) -> list[str] | None:
    """The command that makes ``node``'s JVM write its heap to ``target``: the JDK's ``jmap``
    (Rally's tool), else its ``jcmd``; None when the node's JDK has neither."""
    bin_dir = node.java_home / "bin" if node.java_home is not None else None
    jmap = bin_dir / "jmap" if bin_dir is not None else None
    if jmap is not None and jmap.is_file():
        return [str(jmap), f"-dump:format=b,file={target}", str(node.pid)]
    jcmd = bin_dir / "jcmd" if bin_dir is not None else None
    if jcmd is not None and jcmd.is_file():
        return [str(jcmd), str(node.pid), "GC.heap_dump", str(target)]
    found = shutil.which("jmap")
    return [found, f"-dump:format=b,file={target}", str(node.pid)] if found else None


def _node_account(user: str | None) -> tuple[int | None, int | None]:
    """(uid, gid) that run a command as ``user`` when esbench runs as root (the provisioned nodes then
    run as an unprivileged account); (None, None) to run it as esbench's own account."""
    if user is None or os.geteuid() != 0:
        return None, None
    entry = pwd.getpwnam(user)
    return entry.pw_uid, entry.pw_gid


class Heapdump(TelemetryDevice):
    """Writes a heap dump of every provisioned node after the last task (Rally's ``heapdump``)."""

    name = "heapdump"
    human_name = "Heap Dump"
    help = "Writes a heap dump of each provisioned node after the last task (heap_at_exit_<pid>.hprof)"
    needs_client = False
    provisioned_only = True

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.written: list[Path] = []
        self.failures: list[str] = []

    async def stop(self) -> None:
        for node in self.ctx.nodes:
            await asyncio.to_thread(self._dump, node)

    def _dump(self, node: ProvisionedNode) -> None:
        if node.telemetry_dir is None:
            self.failures.append(f"{node.name}: esbench does not know the node's telemetry directory")
            return
        target = node.telemetry_dir / f"heap_at_exit_{node.pid}.hprof"
        command = dump_command(node, target)
        if command is None:
            self.failures.append(f"{node.name}: the node's JDK ({node.java_home}) has neither jmap nor jcmd")
            return
        logger.info("heapdump: %s", " ".join(command))
        try:
            uid, gid = _node_account(node.run_as_user)
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=DUMP_TIMEOUT_S,
                check=False,
                user=uid,
                group=gid,
                extra_groups=[] if uid is not None else None,
            )
        except (OSError, subprocess.TimeoutExpired, KeyError) as e:
            self.failures.append(f"{node.name}: {type(e).__name__}: {e}")
            return
        if done.returncode != 0 or not target.is_file():
            output = (done.stdout + done.stderr).strip().splitlines()
            self.failures.append(
                f"{node.name}: {Path(command[0]).name} exited with {done.returncode}"
                + (f" ({output[-1]})" if output else "")
            )
            return
        self.written.append(self._keep(node, target))

    def _keep(self, node: ProvisionedNode, dump: Path) -> Path:
        if self.ctx.race_dir is None:
            return dump
        dest = self.ctx.race_dir / "telemetry" / node.name
        dest.mkdir(parents=True, exist_ok=True)
        return Path(shutil.move(dump, dest / dump.name))

    def output(self) -> DeviceOutput:
        out = super().output()
        out.notes.extend(f"Heap Dump: wrote {path}" for path in self.written)
        out.warnings.extend(f"Telemetry device heapdump could not dump {f}." for f in self.failures)
        return out
