"""Local worker processes are plain children of the coordinator (issue 25: a lighter driver).

No multiprocessing forkserver or resource tracker stands between the coordinator and its workers;
each worker runs in a process group of its own, reports how it died, imports the coordinator's
esbench whatever the interpreter's flags, and does not outlive its coordinator.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from multiprocessing.connection import wait
from pathlib import Path

import psutil
import pytest
from driver_helpers import track

from esbench.driver.coordinator.pools.local import LocalPool, LocalWorkerHandle
from esbench.driver.transport.client import ClientOptions, ConnectionSettings
from esbench.driver.worker.process import InitWorker, Ready

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent

#: Bound of every wait in this module, s: a worker starts (imports the driver) in well under 2 s.
DEADLINE = 30.0


def _init(worker_id: int) -> InitWorker:
    return InitWorker(
        worker_id=worker_id,
        track=track(),
        corpora=None,
        registry_blob=None,
        connection=ConnectionSettings.create(["127.0.0.1:9"], ClientOptions()),
        on_error="abort",
    )


def _ready(handle: LocalWorkerHandle) -> Ready:
    assert handle.conn.poll(DEADLINE), f"worker {handle.worker_id} sent nothing within {DEADLINE} s"
    message = handle.conn.recv()
    assert isinstance(message, Ready) and message.error is None, message
    return message


@pytest.fixture
def pool():
    started = LocalPool(workers=2)
    yield started
    started.stop()


def test_workers_are_children_of_the_coordinator_in_process_groups_of_their_own(pool):
    handles = pool.start(2, _init)
    for handle in handles:
        _ready(handle)
    me = os.getpid()
    workers = [psutil.Process(p.pid) for p in pool.placements()]
    # Under a forkserver the parent would be the server, and a resource tracker would be a
    # child of this process beside it.
    assert [w.ppid() for w in workers] == [me, me]
    assert all(os.getpgid(w.pid) == w.pid != os.getpgid(me) for w in workers)
    assert all("esbench.driver.worker.child" in " ".join(w.cmdline()) for w in workers)
    # The race log's %(processName)s tells the workers apart.
    assert [w.cmdline()[-3] for w in workers] == ["esbench-worker-0", "esbench-worker-1"]


def test_a_killed_worker_is_seen_at_once_with_its_signal(pool):
    (handle,) = pool.start(1, _init)
    _ready(handle)
    assert isinstance(handle, LocalWorkerHandle) and handle.proc is not None
    os.kill(handle.proc.pid, signal.SIGKILL)
    ready = wait(handle.waitables(), timeout=DEADLINE)
    assert ready, "the worker's death was not seen"
    # The connection may show EOF first; the sentinel closes with the process either way.
    ready = wait([handle.sentinel], timeout=DEADLINE)
    assert handle.exited(ready)
    # The sentinel closes a moment before the process can be reaped: describe_death waits for
    # that (alive() straight after the sentinel could still see it, on a loaded machine).
    assert handle.describe_death() == "worker process 0 exited unexpectedly (exit code -9)"
    assert not handle.alive()


def test_stop_shuts_a_worker_down_and_leaves_no_process(pool):
    (handle,) = pool.start(1, _init)
    _ready(handle)
    pid = handle.proc.pid
    pool.stop()
    assert handle.proc.returncode == 0  # it left on Shutdown, not on a signal
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


# A coordinator started with -S (no site-packages, so no editable-install finder and none of
# esbench's dependencies) that makes esbench importable only through its own sys.path. Its worker
# inherits -S, so it can import the driver only from the sys.path the coordinator hands it.
_COORDINATOR = textwrap.dedent(
    """
    import json, os, sys
    sys.path[:] = json.loads(sys.argv[1])
    from test_local_workers import _init
    from esbench.driver.coordinator.pools.local import LocalPool
    pool = LocalPool(workers=1)
    (handle,) = pool.start(1, _init)
    assert handle.conn.poll(30), "no message from the worker"
    print(json.dumps({"ready": type(handle.conn.recv()).__name__, "worker": handle.proc.pid}), flush=True)
    sys.stdin.read()  # until the test kills this process
    """
)


def test_a_worker_imports_the_coordinators_esbench_and_exits_when_the_coordinator_dies():
    path = [str(ROOT), str(HERE), *sys.path]
    coordinator = subprocess.Popen(
        [sys.executable, "-S", "-c", _COORDINATOR, json.dumps(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    worker = None
    try:
        line = coordinator.stdout.readline() if coordinator.stdout else ""
        assert line, coordinator.stderr.read() if coordinator.stderr else "no output"
        found = json.loads(line)
        assert found["ready"] == "Ready"
        worker = psutil.Process(found["worker"])
        assert "-S" in worker.cmdline()
        coordinator.kill()
        coordinator.wait(DEADLINE)
        # Its end of the connection closed with it: the worker leaves on its own.
        worker.wait(DEADLINE)
    finally:
        if coordinator.poll() is None:
            coordinator.kill()
        if worker is not None and worker.is_running():
            worker.kill()
