"""The built-in eventdata track against a real node: its index body is accepted, 1,000 generated
documents index without a single error under the strict mapping, and the track's searches run."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from esbench.corpus import BulkSource, prepare_corpora
from esbench.home import builtin_tracks_dir
from esbench.track import load_track


def _call(host: str, method: str, path: str, body: bytes | dict | None = None, ndjson: bool = False) -> Any:
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://{host}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/x-ndjson" if ndjson else "application/json")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read() or b"null")
    except urllib.error.HTTPError as e:
        raise AssertionError(f"{method} {path} -> {e.code}: {e.read()[:2000]!r}") from e


@pytest.fixture
def host(es_hosts: list[str]) -> str:
    return es_hosts[0]


@pytest.fixture
def index_name(host: str) -> Iterator[str]:
    name = f"eventdata-it-{uuid.uuid4().hex[:10]}"
    yield name
    with contextlib.suppress(AssertionError):
        _call(host, "DELETE", f"/{name}")


def test_generated_documents_index_cleanly_and_searches_run(host: str, index_name: str) -> None:
    track = load_track(name="eventdata", test_mode=True, params={"number_of_shards": 2})
    body = track.indices[0].body
    assert body is not None and body["mappings"]["dynamic"] == "strict"
    _call(host, "PUT", f"/{index_name}", dict(body))
    mapping = _call(host, "GET", f"/{index_name}/_mapping")[index_name]["mappings"]
    assert mapping["properties"]["geoip"]["properties"]["location"]["type"] == "geo_point"
    assert mapping["properties"]["message"] == {"type": "text", "index": False}

    corpora = prepare_corpora(track)
    (prepared,) = corpora.files("eventdata")
    assert prepared.document_count == 1000 and prepared.path.name == "eventdata-1k.json"
    sent = 0
    for client in range(2):
        source = BulkSource(
            corpora.all(), client_index=client, num_clients=2, bulk_size=300, index=index_name
        )
        for bulk, count in source:
            result = _call(host, "POST", "/_bulk", bulk, ndjson=True)
            errors = [item for item in result["items"] if "error" in next(iter(item.values()))]
            assert not result["errors"], errors[:3]
            assert len(result["items"]) == count
            sent += count
    assert sent == 1000
    _call(host, "POST", f"/{index_name}/_refresh")
    assert _call(host, "GET", f"/{index_name}/_count")["count"] == 1000

    operations = {op.name: op for op in _operations(track)}
    for name in ("term-country", "terms-agg-country", "date-histogram-responses"):
        result = _call(host, "POST", f"/{index_name}/_search", dict(operations[name].params["body"]))
        assert result["_shards"]["failed"] == 0, name
    countries = _call(
        host, "POST", f"/{index_name}/_search", dict(operations["terms-agg-country"].params["body"])
    )
    top = countries["aggregations"]["countries"]["buckets"][0]
    assert top["key"] == "United States" and 200 <= top["doc_count"] <= 380
    histogram = _call(
        host, "POST", f"/{index_name}/_search", dict(operations["date-histogram-responses"].params["body"])
    )
    assert sum(b["doc_count"] for b in histogram["aggregations"]["over_time"]["buckets"]) == 1000

    plugin = _load_plugin()
    for name in ("log-search-paged", "range-timestamp-paged"):
        params = dict(operations[name].params)
        params["max-from"] = 50  # 1,000 documents: keep pages inside the data
        source = plugin.EventdataLogSearchParamSource(track, params).partition(0, 1)
        found = 0
        for _ in range(10):
            request = source.params()
            result = _call(host, "POST", f"/{index_name}/_search", request["body"])
            stamps = [hit["sort"][0] for hit in result["hits"]["hits"]]
            assert stamps == sorted(stamps, reverse=True)
            assert len(stamps) <= params["size"]
            found += result["hits"]["total"]["value"]
        assert found > 0, name


def _operations(track: Any) -> list[Any]:
    ops = []
    for challenge in track.challenges:
        ops.extend(task.operation for task in challenge.tasks())
    return ops


def _load_plugin() -> Any:
    path = builtin_tracks_dir() / "eventdata" / "track.py"
    spec = importlib.util.spec_from_file_location("eventdata_track_plugin", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
