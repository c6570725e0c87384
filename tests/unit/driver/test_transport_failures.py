"""The fast path's DEFAULT timeout and elastic_transport's, and failures without elastic_transport
imported up front (esbench.driver.transport.failures, issue 25)."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import elastic_transport
import pytest
from elastic_transport.client_utils import DEFAULT as ET_DEFAULT
from harness import core_env
from scripted_http import ok

from esbench.driver.transport import connectioncore, failures
from esbench.driver.transport.failures import DEFAULT, is_default, is_instance
from esbench.driver.transport.rawhttp import RawHttpTransport

HERE = Path(__file__).resolve().parent
TARGET = "/i/_search"
BODY = b'{"query":{"match_all":{}}}'
HEADERS = {"content-type": "application/json"}


def test_both_sentinels_mean_the_default_and_nothing_else_does():
    assert is_default(DEFAULT) and is_default(ET_DEFAULT)
    assert not any(is_default(v) for v in (None, 0, 0.5, "DEFAULT", True))
    assert pickle.loads(pickle.dumps(DEFAULT)) is DEFAULT
    assert repr(DEFAULT) == "<DEFAULT>"


def test_is_instance_names_elastic_transports_classes():
    assert is_instance(elastic_transport.ConnectionTimeout("x"), "ConnectionError", "ConnectionTimeout")
    assert not is_instance(TimeoutError(), "ConnectionError", "ConnectionTimeout")
    assert failures.module() is elastic_transport


@pytest.mark.parametrize(("timeout", "shown"), [(DEFAULT, 0.1), (ET_DEFAULT, 0.1), (0.05, 0.05)])
async def test_a_prepared_request_takes_either_default_as_the_transports_timeout(serve, timeout, shown):
    answers = iter([ok(b"{}"), ok(b"{}"), [b""]])  # the third one hangs
    server = await serve(lambda req: next(answers))
    transport = RawHttpTransport([server.url], {}, timeout=0.1)
    for _ in range(2):  # the general path, then the prepared one (send_prepared)
        await transport.request("POST", TARGET, body=BODY, headers=HEADERS, timeout=timeout)
    with pytest.raises(elastic_transport.ConnectionTimeout) as timed_out:
        await transport.request("POST", TARGET, body=BODY, headers=HEADERS, timeout=timeout)
    assert timed_out.value.message == f"The request timed out after {shown} s (client-side timeout)"
    await transport.close()


def test_the_python_core_takes_either_default_the_same_way():
    if not connectioncore.COMPILED:
        pytest.skip("the C extensions are not built here: the session already ran the Python core")
    env = core_env(pure=True)
    env.pop("COV_CORE_SOURCE", None)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-cov", "-k", "prepared",
         Path(__file__).name],
        cwd=HERE, env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "3 passed" in out.stdout


_FIRST_LOSS = """
import asyncio, importlib.abc, sys, time

class SlowImport(importlib.abc.MetaPathFinder):
    # Makes the first import of elastic_transport take 0.5 s, so that its cost shows.
    def find_spec(self, name, path=None, target=None):
        if name == "elastic_transport":
            time.sleep(0.5)
        return None

sys.meta_path.insert(0, SlowImport())
from esbench.driver.transport.rawhttp import RawHttpTransport
from esbench.driver.transport.timing import RequestTiming, current_timing

async def main():
    async def drop(reader, writer):
        await reader.readuntil(b"\\r\\n\\r\\n")
        writer.transport.abort()  # the server resets the connection: no response
    server = await asyncio.start_server(drop, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    if sys.argv[1] == "refused":  # nothing listens on the port any more
        server.close()
        await server.wait_closed()
    transport = RawHttpTransport([f"http://127.0.0.1:{port}"], {}, timeout=5)
    timing = RequestTiming()
    current_timing.set(timing)
    assert "elastic_transport" not in sys.modules
    processing_start = time.perf_counter()
    try:
        await transport.request("GET", "/", body=None, headers={})
    except Exception as exc:
        print(type(exc).__module__, type(exc).__name__)
    # What the executor records: the transport's timing if it observed one, else the whole call.
    print(timing.end - timing.start if timing.end else time.perf_counter() - processing_start)
    await transport.close()

asyncio.run(main())
"""


@pytest.mark.parametrize("pure", ["0", "1"])
@pytest.mark.parametrize("failure", ["lost", "refused"])
def test_the_first_failed_connection_of_a_worker_does_not_time_the_import_of_elastic_transport(pure, failure):
    env = core_env(pure)
    out = subprocess.run(
        [sys.executable, "-c", _FIRST_LOSS, failure],
        env=env, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    kind, seconds = out.stdout.split("\n")[:2]
    assert kind == "elastic_transport ConnectionError"
    assert float(seconds) < 0.4, f"the failed request was timed at {seconds} s, import included"
