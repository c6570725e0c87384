"""A worker process imports only what its hot path needs (issue 25: a lighter driver).

Each check runs in a fresh interpreter, because this test process has long imported everything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from driver_helpers import EsStub

ROOT = Path(__file__).resolve().parents[3]
HERE = Path(__file__).resolve().parent

#: Packages a worker running built-in runners never needs: elasticsearch-py (~7 MiB) and
#: elastic_transport with the aiohttp and requests it imports (~18 MiB), imported only when a runner
#: uses the client API or a request fails; and the coordinator's and reports' libraries.
NOT_IN_WORKER = (
    "elasticsearch",
    "elastic_transport",
    "aiohttp",
    "requests",
    "numpy",
    "jinja2",
    "jsonschema",
    "yaml",
    "rich",
    "plotly",
    "click",
    "sqlite3",
    "tabulate",
    "cryptography",
    # The corpus downloader's (esbench.corpus.prepare): a worker only reads prepared files.
    "urllib.request",
    "http.client",
    "email",
)
#: What the first use of the client API imports.
CLIENT_API = {"elasticsearch", "elastic_transport", "aiohttp"}

# Builds a real WorkerRuntime (built-in registry, real fast path to the stub), runs a step of a
# search task with 2 clients, and reports which heavy packages were imported before and after the
# first use of the client API.
_RACE = r"""
import asyncio, json, multiprocessing, sys, time
from driver_helpers import op, task, track
from esbench.driver.coordinator.allocator import plan_step
from esbench.driver.transport.client import ClientOptions, ConnectionSettings
from esbench.driver.worker.process import InitWorker, PrepareStep, Ready, StartStep, StepDone, WorkerRuntime
from esbench.track.model import Parallel

HEAVY = json.loads(sys.argv[2])

async def main():
    search = task(op("search", "s", body={"query": {"match_all": {}}}), iterations=5)
    step = plan_step(Parallel(tasks=(search,), clients=2), index=0, max_workers=1)
    parent, child = multiprocessing.Pipe()
    init = InitWorker(worker_id=0, track=track(), corpora=None, registry_blob=None,
                      connection=ConnectionSettings.create([sys.argv[1]], ClientOptions()), on_error="abort")
    runtime = WorkerRuntime(child, init)
    runtime._prepare(PrepareStep(step=0, clients=step.workers[0].clients, context={},
                                 completing_task=None, completed_by_any=False))
    runtime._start(StartStep(step=0, start_at=time.perf_counter()))
    await runtime.step.runner
    assert isinstance(parent.recv(), Ready)
    done = parent.recv()
    assert isinstance(done, StepDone), done
    before = sorted(m for m in HEAVY if m in sys.modules)
    client = next(iter(runtime.clients.values()))
    transport_class = type(client.transport).__module__  # the client API: builds elasticsearch-py's client
    after = sorted(m for m in HEAVY if m in sys.modules)
    for c in runtime.clients.values():
        await c.close()
    print(json.dumps({"before": before, "after": after, "transport": transport_class,
                      "recorded": sorted(done.states)}))

asyncio.run(main())
"""


def _python(code: str, *args: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE)])}
    out = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_a_worker_process_with_every_built_in_runner_and_param_source_imports_no_heavy_package():
    # A worker process starts in esbench.driver.worker.child; a step imports the registry's runners
    # and param sources, the bulk ones (which read corpora) included.
    found = _python(
        "import json, sys; import esbench.driver.worker.child; "
        "from esbench.driver.worker.registry import default_registry; default_registry(); "
        "import esbench.driver.worker.params.bulk, esbench.driver.worker.runners.bulk; "
        f"print(json.dumps({{'heavy': sorted(m for m in {NOT_IN_WORKER!r} if m in sys.modules)}}))"
    )
    assert found == {"heavy": []}


def test_a_worker_running_built_in_runners_imports_elasticsearch_py_only_when_the_client_api_is_used():
    stub = EsStub().start()
    try:
        found = _python(_RACE, stub.host, json.dumps(NOT_IN_WORKER))
        assert stub.requests == 5  # the search task's iterations, through the real fast path
    finally:
        stub.stop()
    assert found["recorded"] == ["s"]
    assert found["before"] == []
    # The first use of the client API builds elasticsearch-py's client, with its own transport.
    assert set(found["after"]) >= CLIENT_API
    assert str(found["transport"]).startswith("elastic_transport")


_FAILURE = r"""
import asyncio, json, socket, sys
from esbench.driver.transport.rawhttp import RawHttpTransport
from esbench.driver.worker.outcome import classify

async def main():
    before = "elastic_transport" in sys.modules
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    transport = RawHttpTransport([f"http://127.0.0.1:{port}"], {})
    try:
        await transport.request("GET", "/")
    except Exception as exc:
        import elastic_transport
        failure = classify(exc)
        print(json.dumps({"before": before, "class": type(exc).__name__,
                          "is_connection_error": isinstance(exc, elastic_transport.ConnectionError),
                          "error_type": failure.error_type if failure else None}))
    await transport.close()

asyncio.run(main())
"""


def test_a_failure_on_the_fast_path_raises_elastic_transports_error_importing_it_then():
    found = _python(_FAILURE)
    assert found == {
        "before": False,
        "class": "ConnectionError",
        "is_connection_error": True,
        "error_type": "connection",
    }
