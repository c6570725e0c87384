"""OpenSearch Benchmark 2.4.0 as the oracle: public workloads, unchanged, run in test mode by OSB and
by esbench against the same OpenSearch node report the same tasks and the same error rate per task.

benchmarks/osb_compare.py does the work (a node of its own in a private network and PID namespace,
corpora generated from the workloads' mappings, one tool at a time); this test runs it for small
workloads that use only operation types esbench has, and reads the JSON it writes. Needs OSB's
venv (``ESBENCH_OSB_PYTHON``, or ``ESBENCH_TEST_OSB`` naming ``opensearch-benchmark``; default
/work/venvs/osb), root (``unshare``), Maven, and the workloads (``ESBENCH_TEST_OSB_WORKLOADS``, a
path or URL; default the mirror on this machine, else GitHub).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_MIRROR = Path("/work/.mirror/opensearch-project+opensearch-benchmark-workloads/repo")
#: Where the workloads are cloned from: $ESBENCH_TEST_OSB_WORKLOADS (a path or URL), else the
#: mirror on this machine, else GitHub.
WORKLOADS_SOURCE = os.environ.get(
    "ESBENCH_TEST_OSB_WORKLOADS",
    str(_MIRROR)
    if _MIRROR.is_dir()
    else "https://github.com/opensearch-project/opensearch-benchmark-workloads",
)
#: Workloads whose default test procedure uses only operation types esbench has, each under two
#: minutes per tool in test mode on a 2-core machine (docs/osb-compare.md has all 18).
WORKLOADS = ("geopoint", "nested")


def osb_executable() -> Path:
    if os.environ.get("ESBENCH_TEST_OSB"):
        return Path(os.environ["ESBENCH_TEST_OSB"])
    if os.environ.get("ESBENCH_OSB_PYTHON"):
        return Path(os.environ["ESBENCH_OSB_PYTHON"]).parent / "opensearch-benchmark"
    return Path("/work/venvs/osb/bin/opensearch-benchmark")


OSB = osb_executable()

pytestmark = [
    pytest.mark.slow,
    pytest.mark.xdist_group("osb-compare"),
    pytest.mark.skipif(
        not OSB.is_file(),
        reason=f"OpenSearch Benchmark 2.4.0 is not installed at {OSB} "
        "(set ESBENCH_OSB_PYTHON or ESBENCH_TEST_OSB)",
    ),
]


@pytest.fixture(scope="module")
def comparison(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("osb-compare")
    workloads = out / "workloads"
    subprocess.run(["git", "clone", "-q", WORKLOADS_SOURCE, str(workloads)], check=True, timeout=300)
    result = out / "result.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "osb_compare.py"),
            f"--out={out}",
            f"--osb={OSB}",
            f"--workloads={workloads}",
            f"--json={result}",
            "--timeout=300",
            *WORKLOADS,
        ],
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert result.is_file(), proc.stdout[-3000:] + proc.stderr[-3000:]
    return {"exit": proc.returncode, "stdout": proc.stdout, **json.loads(result.read_text())}


@pytest.mark.timeout(1600)
@pytest.mark.parametrize("workload", WORKLOADS)
def test_same_tasks_and_error_rates_as_osb(comparison: dict, workload: str) -> None:
    (entry,) = [w for w in comparison["workloads"] if w["workload"] == workload]
    osb, esbench = entry["osb"], entry["esbench"]
    # The oracle ran the workload to its summary: the comparison is not between two empty reports.
    assert osb["exit_code"] == 0, osb["error"]
    assert osb["error_rates"], f"OSB reported no task for {workload}"
    assert esbench["exit_code"] == 0, esbench["error"]
    assert sorted(esbench["error_rates"]) == sorted(osb["error_rates"])
    assert esbench["error_rates"] == osb["error_rates"]


@pytest.mark.timeout(1600)
def test_the_table_is_printed_with_the_command(comparison: dict) -> None:
    assert "OpenSearch 2.19.1" in comparison["node"]
    assert "command: opensearch-benchmark run --workload-path=" in comparison["stdout"]
    assert "esbench run --workload-path=" in comparison["stdout"]
    for workload in WORKLOADS:
        assert f"{workload}  " in comparison["stdout"]
