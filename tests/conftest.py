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

#: Fixture -> the xdist group of every test that uses it: under ``--dist loadgroup`` (tests/run) one
#: worker starts that cluster, once, and runs all of its tests. Such a test is also marked ``slow``
#: (the fast loop leaves it out), as are the tests that start, stop or break nodes of their own
#: (marked where they are written).
GROUPS = {
    "cluster3": "cluster3",
    "opensearch_hosts": "targets",
    "opensearch_knn_hosts": "targets",
    "secured_es": "targets",
    "telemetry_race": "telemetry-race",
    # One Ray cluster on fixed loopback addresses; ``ray stop --force`` ends every Ray process.
    "ray_cluster": "ray",
}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        used = [GROUPS[name] for name in getattr(item, "fixturenames", ()) if name in GROUPS]
        if used:
            item.add_marker(pytest.mark.slow)
            if not item.get_closest_marker("xdist_group"):
                item.add_marker(pytest.mark.xdist_group(used[0]))
    _ray.group_users(items)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    _ray.stop_after_last_user(item, nextitem)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _ray.stop_shared()
