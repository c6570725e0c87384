"""The import contracts of ``.importlinter`` hold on the tree, and a planted back-import breaks them.

Each planted case copies the package's Python files to a temporary directory, adds one module that
imports against a contract, and runs ``lint-imports`` with the repository's contracts file on the
copy: it must fail and name the broken contract and the planted module. That is what makes the CI
step (``.ci/run``) worth having: a contract that cannot fail would pass these trees too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CONTRACTS = REPO / ".importlinter"

pytestmark = pytest.mark.skipif(shutil.which("lint-imports") is None, reason="import-linter not installed")


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the ``esbench`` package under ``root`` with ``root/.importlinter``."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [shutil.which("lint-imports") or "lint-imports", "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _not_python(name: str) -> bool:
    return "." in name and not name.endswith(".py")


def _copy_with(tmp_path: Path, module: str, source: str) -> Path:
    """A copy of the package's ``.py`` files with ``module`` (dotted) added, holding ``source``."""
    root = tmp_path / "tree"
    shutil.copytree(
        REPO / "esbench",
        root / "esbench",
        # Directories and .py files only: grimp reads nothing else (C twins, JSON and SQL stay behind).
        ignore=lambda _dir, names: [n for n in names if n == "__pycache__" or _not_python(n)],
    )
    shutil.copy(CONTRACTS, root / ".importlinter")
    path = root.joinpath(*module.split(".")).with_suffix(".py")
    assert not path.exists(), f"{module} exists already: the planted case would change real code"
    path.write_text(f'"""Planted by {__name__}."""\n\n{source}\n')
    return root


def test_the_repository_tree_keeps_every_contract() -> None:
    result = _lint(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout
    assert "Contracts: 5 kept, 0 broken." in result.stdout


@pytest.mark.parametrize(
    ("module", "source", "contract"),
    [
        # The track model at the bottom of the stages imports the load driver.
        (
            "esbench.track._planted",
            "import esbench.driver.coordinator.run  # noqa: F401",
            "Stages import down only",
        ),
        # A lazy (function-level) import counts as much as one at the top.
        (
            "esbench.metrics._planted",
            "def late():\n    from esbench.results.store import ResultsStore\n\n    return ResultsStore",
            "Stages import down only",
        ),
        # The worker side reaches back into the coordinator.
        (
            "esbench.driver.worker._planted",
            "from esbench.driver.coordinator import run  # noqa: F401",
            "The driver's rooms",
        ),
        # Provisioning learns about the load driver.
        (
            "esbench.provision._planted",
            "from esbench.driver import settings  # noqa: F401",
            "do not know each other",
        ),
        # A shared record starts depending on the store.
        (
            "esbench.records._planted",
            "import esbench.results.files  # noqa: F401",
            "The ground floor imports no stage",
        ),
    ],
)
def test_a_planted_back_import_breaks_its_contract(
    tmp_path: Path, module: str, source: str, contract: str
) -> None:
    result = _lint(_copy_with(tmp_path, module, source))
    assert result.returncode != 0, result.stdout
    broken = result.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken, result.stdout
    assert module in broken, result.stdout


def test_lint_imports_is_what_ci_runs() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    assert "lint-imports" in ci
    # set -e makes a failing contract fail the CI run; the step must not be softened with `|| true`.
    assert "set -euo pipefail" in ci
    steps = [line for line in ci.splitlines() if "lint-imports" in line and not line.lstrip().startswith("#")]
    assert steps == ["lint-imports"], steps
