"""Shared fixtures: every test gets its own esbench home so nothing leaks between tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Point ``ESBENCH_HOME`` at a fresh temporary directory for the test."""
    home = tmp_path_factory.mktemp("esbench-home")
    monkeypatch.setenv("ESBENCH_HOME", str(home))
    return home


# The two-node Ray cluster of the distributed load-driver tests: one, for the Ray tests, which run
# one after another (tests/ray_cluster.py).
import ray_cluster as _ray  # noqa: E402
from ray_cluster import ray_cluster  # noqa: E402, F401


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _ray.group_users(items)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    _ray.stop_after_last_user(item, nextitem)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _ray.stop_shared()
