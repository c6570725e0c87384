"""A real two-node Ray cluster on loopback addresses for the distributed load-driver tests.

The head runs on 127.0.0.3 (2 CPUs) and a second node on 127.0.0.2 (1 CPU), each a separate raylet
started with ``ray start`` (docs: /work/shared/reference/ray-on-this-machine.md). Their worker
processes import esbench from the same place as the test process (PYTHONPATH), so they run the code
under test. The Ray tests run one after another on one cluster (see :func:`ray_cluster`).
``ray stop --force`` ends every Ray process of this machine after the last of them,
another user's too: the Ray tests and ``benchmarks/bench_ray_driver.py`` (which uses this module)
must not run at the same time on one machine.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import esbench

HEAD_IP = "127.0.0.3"
SECOND_IP = "127.0.0.2"
HEAD_CPUS = 2
SECOND_CPUS = 1
#: Ray's token authentication for the nodes and this process's drivers. Ray 2.60 turns it on for a
#: `ray start --head` that finds a token in ~/.ray/auth_token (any new local Ray instance saves one
#: there), while a `ray start --address` node sends one only with RAY_AUTH_MODE=token: explicit
#: settings keep the second node in whatever the home holds. One token per process, because Ray's
#: driver side keeps the first token it loaded.
AUTH = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _ray_cli() -> list[str]:
    exe = shutil.which("ray")
    # The console script of the interpreter running the tests, not another environment's.
    beside = Path(sys.executable).with_name("ray")
    return [str(beside)] if beside.exists() else [exe or "ray"]


def _reload_ray_auth() -> None:
    # Ray reads its authentication settings once per process (on import); its own tests reload
    # them like this after changing the variables (ray/_private/authentication_test_utils.py,
    # reset_auth_token_state): the configuration first, then the token cache.
    from ray._raylet import AuthenticationTokenLoader, Config

    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


class RayCluster:
    """The two Ray nodes; ``address`` is the head's ``HOST:PORT``."""

    def __init__(self) -> None:
        self.port = _free_port(HEAD_IP)
        self.address = f"{HEAD_IP}:{self.port}"
        self.env = dict(os.environ)
        self.env["PYTHONPATH"] = os.pathsep.join(
            [str(Path(esbench.__file__).resolve().parents[1]), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
        self.env["RAY_USAGE_STATS_ENABLED"] = "0"
        self.env.update(AUTH)
        self._environ_before: dict[str, str | None] = {}

    def _ray(self, *args: str, timeout: float = 120) -> None:
        proc = subprocess.run(
            [*_ray_cli(), *args], env=self.env, capture_output=True, text=True, timeout=timeout
        )
        if proc.returncode != 0:
            raise RuntimeError(f"ray {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")

    def start(self) -> None:
        """Start both nodes; until :meth:`stop`, this process's drivers use the cluster's token."""
        self._environ_before = {name: os.environ.get(name) for name in AUTH}
        os.environ.update(AUTH)
        _reload_ray_auth()
        self._ray(
            "start", "--head", f"--node-ip-address={HEAD_IP}", f"--port={self.port}",
            f"--num-cpus={HEAD_CPUS}", "--include-dashboard=false", "--disable-usage-stats",
        )  # fmt: skip
        self.start_second()

    def start_second(self) -> None:
        self._ray(
            "start", f"--address={self.address}", f"--node-ip-address={SECOND_IP}",
            f"--num-cpus={SECOND_CPUS}", "--disable-usage-stats",
        )  # fmt: skip
        self.wait_for_nodes({HEAD_IP, SECOND_IP})

    def alive_node_addresses(self) -> list[str]:
        """The address of every node Ray's GCS considers alive (one entry per node)."""
        import ray

        ray.init(address=self.address, include_dashboard=False, log_to_driver=False)
        try:
            return sorted(n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"])
        finally:
            ray.shutdown()

    def wait_for_nodes(self, expected: set[str], timeout: float = 60) -> None:
        """Poll (1 s) until exactly one alive node per address in ``expected`` is known."""
        deadline = time.monotonic() + timeout
        while (alive := self.alive_node_addresses()) != sorted(expected):
            if time.monotonic() > deadline:
                raise RuntimeError(f"Ray nodes alive: {alive}, expected {sorted(expected)}")
            time.sleep(1)

    def replace_second(self) -> None:
        """After the second node was killed: wait until Ray declares it dead (its health check),
        then start a new second node, so later tests see two healthy nodes again."""
        self.wait_for_nodes({HEAD_IP})
        self.start_second()

    def second_node_raylet(self) -> int:
        """The pid of the second node's raylet (from /proc: Linux only, like CI)."""
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                args = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if args and args[0].endswith(b"/raylet") and f"--node_ip_address={SECOND_IP}".encode() in args:
                return int(entry.name)
        raise RuntimeError(f"no raylet of {SECOND_IP} found")

    def stop(self) -> None:
        subprocess.run([*_ray_cli(), "stop", "--force"], env=self.env, capture_output=True, timeout=120)
        for name, value in self._environ_before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        if self._environ_before:
            _reload_ray_auth()
        self._environ_before = {}


#: The cluster the running Ray tests share (None when stopped).
_shared: RayCluster | None = None


@pytest.fixture
def ray_cluster() -> RayCluster:
    """The running two-node Ray cluster, started for the first test that asks for it and shared by
    the next ones. The tests using it run one after another (:func:`group_users`) and it is stopped
    with ``ray stop --force`` after the last of them (:func:`stop_after_last_user`): Ray's idle
    processes must not take CPU from the timing-sensitive tests, and one start (~18 s, and ~7 s to
    stop) serves every Ray test instead of one per module."""
    global _shared
    pytest.importorskip(
        "ray", reason='the distributed extra is not installed: pip install -e ".[distributed]"'
    )
    if _shared is None:
        cluster = RayCluster()
        try:
            cluster.start()
        except BaseException:
            cluster.stop()
            raise
        _shared = cluster
    return _shared


def _uses(item: pytest.Item | None) -> bool:
    return item is not None and "ray_cluster" in getattr(item, "fixturenames", ())


def group_users(items: list[pytest.Item]) -> None:
    """Reorder ``items`` in place: the tests using ``ray_cluster`` move, in their order, to where
    the first of them was; the others keep their order."""
    users = [item for item in items if _uses(item)]
    if not users:
        return
    first = items.index(users[0])
    others = [item for item in items if not _uses(item)]
    before = sum(1 for item in items[:first] if not _uses(item))
    items[:] = [*others[:before], *users, *others[before:]]


def stop_after_last_user(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Stop the shared cluster once ``item`` used it and ``nextitem`` (None: the last test) does
    not."""
    global _shared
    if _shared is not None and _uses(item) and not _uses(nextitem):
        cluster, _shared = _shared, None
        cluster.stop()


def stop_shared() -> None:
    """Stop the shared cluster if it still runs (a session ended early)."""
    global _shared
    if _shared is not None:
        cluster, _shared = _shared, None
        cluster.stop()
