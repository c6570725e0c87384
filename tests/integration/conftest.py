"""Integration fixtures and markers.

The clusters are session fixtures of ``clusters.py`` (read its docstring); every test below
``tests/integration`` is marked ``integration`` (``tests/conftest.py`` adds the ``slow`` and
``xdist_group`` marks by the clusters a test uses).

``shared_node_left_clean`` (autouse) deletes, after each test that used the single node or the 3-node
cluster, the indices, data streams, index and component templates, ingest pipelines and snapshot
repositories the test added: every test finds the cluster as the session started it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The session clusters (see clusters.py) and the one race with node-stats and os telemetry on a
# provisioned node, read by three test modules.
from clusters import (  # noqa: F401
    cluster3,
    es,
    es_hosts,
    es_repo_path,
    opensearch_hosts,
    opensearch_knn_hosts,
    secured_es,
    snapshot_repo_dir,
)
from telemetry_race import telemetry_race  # noqa: F401

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture
def index(request: pytest.FixtureRequest) -> str:
    """A fresh index name for one test, ``it-<module>-<8 hex>`` (the index a race makes with it on the
    session node goes with the node's clean-up after the test)."""
    module = request.module.__name__.removeprefix("test_").replace("_", "-")
    return f"it-{module}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def metrics_store_prefix(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh metrics-store index prefix; its indices and index templates are deleted afterwards,
    also on an ``ESBENCH_TEST_HOSTS`` node, which the clean-up below leaves alone."""
    from esbench.results.es_export import index_templates

    name = f"esbench-test-{uuid.uuid4().hex[:8]}"
    yield name
    host = request.getfixturevalue("es_hosts")[0]
    for index in _names(host, f"/_cat/indices/{name}-*?format=json&h=index&expand_wildcards=all", None):
        _call(host, "DELETE", f"/{index}")
    for template in index_templates(name):
        _call(host, "DELETE", f"/_index_template/{template}")


# ---------------------------------------------------------------------------- the node left clean

#: What a test may add to the node, each: (list path, JSON key of the names, delete path).
_STATE = (
    ("/_data_stream/*?expand_wildcards=all", "data_streams", "/_data_stream/{}"),
    ("/_cat/indices?format=json&h=index&expand_wildcards=open,closed", None, "/{}"),
    ("/_index_template", "index_templates", "/_index_template/{}"),
    ("/_component_template", "component_templates", "/_component_template/{}"),
    ("/_ingest/pipeline", "*keys", "/_ingest/pipeline/{}"),
    ("/_snapshot", "*keys", "/_snapshot/{}"),
)


def _call(host: str, method: str, path: str) -> Any:
    """The JSON body of ``METHOD path``; None where the node has no such thing (404) or no such API
    (400, 405: the integ-test build lacks the data-streams module)."""
    import json
    import urllib.error
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(urllib.request.Request(f"http://{host}{path}", method=method), timeout=60) as r:
            return json.loads(r.read() or b"null")
    except urllib.error.HTTPError as exc:
        if exc.code in (400, 404, 405):
            return None
        raise AssertionError(f"{method} {path}: HTTP {exc.code}: {exc.read()[:300]!r}") from None


def _names(host: str, list_path: str, key: str | None) -> set[str]:
    body = _call(host, "GET", list_path)
    if body is None:
        return set()
    if key is None:
        return {row["index"] for row in body if not row["index"].startswith(".")}
    if key == "*keys":
        return set(body)
    return {entry["name"] for entry in body.get(key, []) if not entry["name"].startswith(".")}


def _state(host: str) -> list[set[str]]:
    return [_names(host, list_path, key) for list_path, key, _ in _STATE]


def _cleaned_host(request: pytest.FixtureRequest) -> str | None:
    from clusters import external_hosts

    if "cluster3" in request.fixturenames:
        return request.getfixturevalue("cluster3").hosts[0]
    if "es_hosts" in request.fixturenames and not external_hosts():
        return request.getfixturevalue("es_hosts")[0]
    return None


@pytest.fixture(autouse=True)
def shared_node_left_clean(request: pytest.FixtureRequest) -> Iterator[None]:
    """See the module docstring; the same for the 3-node cluster. A no-op for tests that use neither,
    and with ``ESBENCH_TEST_HOSTS`` (a node that is not ours is never cleaned)."""
    host = _cleaned_host(request)
    if host is None:
        yield
        return
    before = _state(host)
    yield
    for (_, _, delete_path), had, has in zip(_STATE, before, _state(host), strict=True):
        for name in sorted(has - had):
            _call(host, "DELETE", delete_path.format(name))
