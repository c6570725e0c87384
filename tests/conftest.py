"""Shared fixtures: every test gets its own esbench home so nothing leaks between tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Point ``ESBENCH_HOME`` at a fresh temporary directory for the test."""
    home = tmp_path_factory.mktemp("esbench-home")
    monkeypatch.setenv("ESBENCH_HOME", str(home))
    return home


# The two-node Ray cluster of the distributed load-driver tests (one per test module that uses it).
from ray_cluster import ray_cluster  # noqa: E402, F401
