"""``esbench list workloads`` prints what OpenSearch Benchmark 2.4.0's ``list workloads`` prints for the
same ``--workload-path``: OSB itself (the venv .ci/run makes) is the oracle, run offline with a scratch
HOME on the same workload directory."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import harness
import pytest

from esbench.cli.options.coverage import OSB, peer_python

FIXTURE = harness.TRACKS / "osbworkload"


def _table(output: str) -> list[str]:
    """The table lines of a ``list workloads`` output: from the ``Name`` header to the last row."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Name "))
    table = []
    for line in lines[start:]:
        if not line.strip() or (line.startswith("-" * 20) and table and not table[-1].startswith("Name")):
            break
        table.append(line.rstrip())
    return table


def _osb_list_workloads(path: Path, home: Path) -> list[str]:
    program = peer_python(OSB).parent / "opensearch-benchmark"
    proc = subprocess.run(
        [str(program), "list", "workloads", f"--workload-path={path}", "--offline"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(home)},
        cwd=home,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return _table(proc.stdout)


def _workload(tmp_path: Path, sizes: str | None) -> Path:
    # OSB registers a workload.py with its own loader; the fixture's is written for esbench's, so the
    # oracle gets the workload without it (list workloads reads the workload, not its plugins).
    path = tmp_path / "fares"
    shutil.copytree(FIXTURE, path)
    (path / "workload.py").unlink()
    if sizes is not None:
        text = (path / "workload.json").read_text(encoding="utf-8")
        (path / "workload.json").write_text(
            text.replace('"document-count": 120, "uncompressed-bytes": 5265', sizes), encoding="utf-8"
        )
    return path


@pytest.mark.parametrize(
    "sizes",
    [
        None,  # 120 documents, no compressed size (N/A), 5.1 kB
        '"document-count": 1234567, "compressed-bytes": 2500000, "uncompressed-bytes": 5265000000',
        '"document-count": 7, "compressed-bytes": 900, "uncompressed-bytes": 1048577',
    ],
)
def test_list_workloads_is_osbs_table(tmp_path: Path, sizes: str | None) -> None:
    path = _workload(tmp_path, sizes)
    home = tmp_path / "osb-home"
    home.mkdir()
    expected = _osb_list_workloads(path, home)
    mine = harness.ok(harness.esbench("list", "workloads", f"--workload-path={path}"))
    assert "Available workloads:" in mine.stdout
    assert _table(mine.stdout) == expected
    # Under esbench's own name the same command keeps Rally's table.
    rally = harness.ok(harness.esbench("list", "tracks", f"--track-path={path}"))
    assert "Default Challenge" in rally.stdout and "TestProcedure" not in rally.stdout
