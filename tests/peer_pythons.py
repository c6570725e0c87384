"""The peers' own Pythons, for tests that run a Rally or OSB function as the oracle.

:func:`peer_python_or_skip` finds the interpreter: ``$ESBENCH_RALLY_PYTHON`` / ``$ESBENCH_OSB_PYTHON``
when set, else the venv ``.ci/run`` makes (:data:`esbench.cli.options.coverage.RALLY` /
:data:`~esbench.cli.options.coverage.OSB`), else this machine's copy under /work/venvs. Missing, the
test is skipped, except under ``CI=true``, where it fails: a CI run must not pass by skipping.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from esbench.cli.options.coverage import OSB, RALLY, Peer

#: Where this machine keeps each peer besides the venv ``.ci/run`` makes.
_MACHINE_VENVS = {RALLY.name: Path("/work/venvs/rally"), OSB.name: Path("/work/venvs/osb")}


def peer_python_or_skip(peer: Peer = RALLY) -> Path:
    """The Python that has ``peer`` (see the module docstring); skips or fails the test without one."""
    configured = os.environ.get(peer.env)
    candidates = (
        (Path(configured),)
        if configured
        else (peer.venv / "bin" / "python", _MACHINE_VENVS[peer.name] / "bin" / "python")
    )
    found = next((c for c in candidates if c.exists()), None)
    if found is not None:
        return found
    message = (
        f"{peer.name}'s Python is the oracle and is missing (none at {', '.join(map(str, candidates))}); "
        f"make it: python3.12 -m venv {peer.venv} && {peer.venv}/bin/pip install {peer.requirement} "
        f"(or set {peer.env})."
    )
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)
