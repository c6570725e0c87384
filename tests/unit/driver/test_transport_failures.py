"""The fast path's DEFAULT timeout and elastic_transport's, and failures without elastic_transport
imported up front (esbench.driver.transport.failures, issue 25)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import elastic_transport
import pytest
from elastic_transport.client_utils import DEFAULT as ET_DEFAULT
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
    env = {**os.environ, "ESBENCH_PURE_PYTHON": "1"}
    env.pop("COV_CORE_SOURCE", None)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-cov", "-k", "prepared",
         Path(__file__).name],
        cwd=HERE, env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "3 passed" in out.stdout
