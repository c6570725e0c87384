"""Fakes for provisioning unit tests: distributions, a fake bin/elasticsearch, mvn and JDKs."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from provfakes import distribution_files, write_tar, write_zip

from esbench.provision import installation as inst_mod
from esbench.provision.launcher import pids_with_marker, terminate


@pytest.fixture
def fake_dist(tmp_path: Path) -> Callable[..., Path]:
    """Build a fake distribution archive: ``fake_dist(mode="ok", version="8.19.0", kind="tar")``."""

    def build(mode: str = "ok", version: str = "8.19.0", kind: str = "tar") -> Path:
        files = distribution_files(version, mode)
        name = f"elasticsearch-{version}-{mode}"
        if kind == "zip":
            return write_zip(tmp_path / f"{name}.zip", files)
        return write_tar(tmp_path / f"{name}.tar.gz", files)

    return build


@pytest.fixture(autouse=True)
def no_leftover_nodes() -> Iterator[None]:
    """Kill any fake node a failing test left behind, and fail the test if one was left running."""
    before = {i.id for i in inst_mod.list_installations()}
    yield
    leftovers = []
    for inst in inst_mod.list_installations():
        if inst.id in before:
            continue
        for node in inst.nodes:
            leftovers += pids_with_marker(f"{inst.id}/{node.name}")
    terminate(leftovers, timeout=5)
    assert not leftovers, f"processes left running: {leftovers}"


@pytest.fixture
def fake_mvn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Put a fake ``mvn`` first on PATH. ``fake_mvn(zip_path)`` copies that file as the artifact;
    ``fake_mvn(None)`` fails like Maven does for an unknown artifact. Calls are logged to the returned
    file, one line of arguments per call."""

    def install(artifact: Path | None) -> Path:
        bindir = tmp_path / "fake-mvn-bin"
        bindir.mkdir(exist_ok=True)
        calls = tmp_path / "mvn-calls.txt"
        if artifact is None:
            action = (
                'echo "[ERROR] Failed to execute goal ...:copy (default-cli) on project standalone-pom: '
                'Unable to find artifact. Could not find artifact $art in central"; exit 1'
            )
        else:
            action = f'cp "{artifact}" "$out/elasticsearch-x.zip"'
        script = bindir / "mvn"
        script.write_text(
            "#!/bin/sh\n"
            f'echo "$@" >> "{calls}"\n'
            'for a in "$@"; do case "$a" in -DoutputDirectory=*) out="${a#*=}";; '
            '-Dartifact=*) art="${a#*=}";; esac; done\n'
            f"{action}\n"
        )
        script.chmod(0o755)
        monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
        return calls

    return install
