"""Rally 2.13 as the oracle of the metrics store tests: where its ``esrally`` is, and how to run it.

``rally_bin`` finds Rally in one place: ``$ESBENCH_TEST_RALLY`` (the path of an ``esrally``), else
``/work/venvs/rally/bin/esrally``, else ``esrally`` on ``PATH``. Without Rally the tests are skipped
locally with the command that installs it, and fail under ``CI=true``: CI must run them.
A race with Rally needs a private network and PID namespace (``unshare``, as root): Rally allows one
race per machine (/work/shared/reference/peer-oracles.md); without it, the same skip-or-fail rule.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

#: Rally's own virtualenv on the development machines.
DEFAULT_RALLY = Path("/work/venvs/rally/bin/esrally")
INSTALL = (
    "python3.12 -m venv RALLYENV && RALLYENV/bin/pip install esrally==2.13.0, "
    "then ESBENCH_TEST_RALLY=RALLYENV/bin/esrally"
)


def missing(what: str) -> None:
    """Skip the test (locally) or fail it (``CI=true``) because ``what`` is missing."""
    message = f"{what}; install Rally 2.13: {INSTALL}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI runs the Rally oracle tests: {message}", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def rally_bin() -> Path:
    """The ``esrally`` executable (see the module doc)."""
    configured = os.environ.get("ESBENCH_TEST_RALLY")
    candidates = [Path(configured)] if configured else [DEFAULT_RALLY]
    on_path = shutil.which("esrally")
    if not configured and on_path:
        candidates.append(Path(on_path))
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    missing(f"no Rally at {', '.join(map(str, candidates))}")
    raise AssertionError("unreachable")


def renamed_copy(rally: Path, directory: Path) -> Path:
    """``rally``'s entry point under another file name in ``directory``: Rally's
    ``--kill-running-processes`` (another session's race) looks for ``esrally`` command lines."""
    copy = directory / "rally-oracle"
    shutil.copyfile(rally, copy)
    copy.chmod(copy.stat().st_mode | stat.S_IXUSR)
    return copy


def namespaces_available() -> bool:
    """Whether this process may make a network and PID namespace (root and ``unshare``)."""
    return os.geteuid() == 0 and shutil.which("unshare") is not None and shutil.which("ip") is not None
