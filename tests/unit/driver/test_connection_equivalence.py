"""The C and Python hot-path cores pass the same transport tests.

The test session runs the raw transport's tests on the core in use (the C extensions when they are
built); this runs them once more in a subprocess with ``ESBENCH_PURE_PYTHON=1``, the Python core a
machine without a C compiler gets, so neither can drift from the other.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from harness import core_env

from esbench.driver.transport import connectioncore, timing

HERE = Path(__file__).resolve().parent
MODULES = ["test_rawhttp.py", "test_rawhttp_prepared.py", "test_executor.py"]


def test_the_transport_tests_pass_on_the_python_core() -> None:
    if not (connectioncore.COMPILED or timing.COMPILED):
        pytest.skip("the C extensions are not built here: the session already ran the Python core")
    env = core_env(pure=True)  # the child's coverage (if any) is its own, not pytest-cov's
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-cov", *MODULES],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout


def test_the_python_core_is_what_pure_python_selects() -> None:
    script = (
        "from esbench.driver.transport import connectioncore, timing; "
        "from esbench.metrics import accumulator; "
        "print(connectioncore.ConnectionCore.__name__, timing.RequestTiming.__name__, "
        "accumulator.RecorderCore.__name__)"
    )
    env = core_env(pure=True)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["PyConnectionCore", "PyRequestTiming", "PyRecorderCore"]
