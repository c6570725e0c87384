"""Where the side-by-side benchmark keeps its state (tool installs, corpora, tool homes)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, kw_only=True)
class BenchPaths:
    """Where the benchmark keeps its state (default ``~/.esbench-bench``).

    Attributes:
        home: the root.
        rally_venv: Rally's own virtualenv (``pip install esrally``).
        rally_home: ``RALLY_HOME`` for the Rally runs (its ``.rally/rally.ini`` and data dir).
        esbench_home: ``ESBENCH_HOME`` for the esbench runs (corpora placed under ``corpora/``).
        cache: generated corpus files shared by both tools.
        tools_venv: a virtualenv for helper tools (py-spy).
    """

    home: Path

    @property
    def rally_venv(self) -> Path:
        return self.home / "rally-venv"

    @property
    def rally_bin(self) -> Path:
        return self.rally_venv / "bin" / "esrally"

    @property
    def rally_home(self) -> Path:
        return self.home / "rally-home"

    @property
    def rally_data(self) -> Path:
        return self.rally_home / ".rally" / "benchmarks" / "data"

    @property
    def esbench_home(self) -> Path:
        return self.home / "esbench-home"

    @property
    def esbench_data(self) -> Path:
        return self.esbench_home / "corpora"

    @property
    def cache(self) -> Path:
        return self.home / "corpora"

    @property
    def tools_venv(self) -> Path:
        return self.home / "tools-venv"

    @property
    def tools_bin(self) -> Path:
        """``GOBIN`` of the Go load tools the benchmark installs (vegeta)."""
        return self.home / "tools" / "bin"
