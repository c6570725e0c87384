"""esbench's runners and param sources of OSB's own operation types against OSB 2.4.0 itself.

The same scenarios (steps with params, and the cluster's canned answers in order) run through
OSB's registered runners in OSB's venv (``osb_oracle_script.py``: opensearch-py's client over a
recording transport) and through esbench's default registry over a recording ``es.http``. The
requests (method, path, query, body) must be the same, in the same order, and the outcomes
agree: success, weight, unit and the meta-data OSB returns (recall, bulk statistics...). The
param sources of ``vector-search`` and ``bulk-vector-data-set`` read the same generated hdf5 and
bigann files in both and must hand the runner the same params.
"""

from __future__ import annotations

import asyncio
import json
import os
import struct
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote

import pytest

from esbench.corpus.model import CorpusSet, DataSetFile
from esbench.driver.transport.http import PyRawResponse
from esbench.driver.worker.context import RaceContext, current_context
from esbench.driver.worker.params.vector import BulkVectorsParamSource, VectorSearchParamSource
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.runners import RunnerResult
from esbench.exceptions import ConfigError
from esbench.track.model import Track

OSB_PYTHON = Path(os.environ.get("ESBENCH_OSB_PYTHON", "/work/venvs/osb/bin/python"))
SCRIPT = Path(__file__).with_name("osb_oracle_script.py")

pytestmark = pytest.mark.skipif(
    not OSB_PYTHON.exists(), reason=f"OSB 2.4.0's Python is not at {OSB_PYTHON} (ESBENCH_OSB_PYTHON)"
)


# ----------------------------------------------------------------------------- the two sides


def run_osb(scenarios: list[dict[str, Any]], cwd: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        [str(OSB_PYTHON), str(SCRIPT)],
        input=json.dumps(scenarios),
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "HOME": str(cwd), "PYTHONWARNINGS": "ignore"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: list[dict[str, Any]] = json.loads(done.stdout)
    return result


class RecordingHttp:
    """Stands in for ``es.http``: records each request, answers from the queue."""

    def __init__(self, responses: list[list[Any]]) -> None:
        self.responses = list(responses)
        self.requests: list[list[Any]] = []

    async def request(
        self, method: str, target: str, *, body: Any = None, headers: Any = None, timeout: Any = None
    ):
        path, _, query = target.partition("?")
        raw = bytes(body) if body is not None else None
        self.requests.append([method, path, dict(parse_qsl(query)), raw, dict(headers or {})])
        status, answer = self.responses.pop(0)
        return PyRawResponse(status, json.dumps(answer).encode())


class FakeEs:
    def __init__(self, responses: list[list[Any]]) -> None:
        self.http = RecordingHttp(responses)


async def _no_sleep(_seconds: float) -> None:
    return None


def run_esbench(scenario: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    registry = default_registry()
    es = FakeEs(scenario["responses"])
    results: list[RunnerResult | str] = []

    async def steps() -> None:
        current_context.set(RaceContext())
        for step in scenario["steps"]:
            try:
                results.append(await registry.runner(step["type"])(es, dict(step["params"])))
            except Exception as exc:
                results.append(type(exc).__name__)

    with monkeypatch.context() as m:
        m.setattr(asyncio, "sleep", _no_sleep)
        asyncio.run(steps())
    return {"requests": es.http.requests, "results": results}


# ------------------------------------------------------------------------------ normalizing


def _json_body(body: Any) -> Any:
    if body is None:
        return None
    text = body.decode() if isinstance(body, bytes) else body
    if not isinstance(text, str):
        return text
    lines = [line for line in text.split("\n") if line]
    return json.loads(text) if len(lines) == 1 else [json.loads(line) for line in lines]


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(_query_value(v) for v in value)
    return str(value)


def normalize(request: list[Any], osb: bool) -> tuple[Any, ...]:
    method, path, query, body, headers = request
    query = {k: _query_value(v) for k, v in query.items() if v is not None}
    wanted = {k.lower(): v for k, v in headers.items() if k.lower() in ("accept-encoding", "x-opaque-id")}
    return (method.upper(), "/" + unquote(path).lstrip("/"), query, body if osb else _json_body(body), wanted)


def outcome(osb: dict[str, Any]) -> tuple[bool, float, str, dict[str, Any]]:
    """OSB's return value read as its ``execute_single`` reads it."""
    if "raised" in osb:
        return False, 0, "ops", {}
    value = osb["value"]
    if value is None:
        return True, 1, "ops", {}
    if isinstance(value, list):
        return True, value[0], value[1], {}
    meta = dict(value)
    success = bool(meta.pop("success", True))
    weight, unit = meta.pop("weight", 1), meta.pop("unit", "ops")
    for key in ("error-type", "error-description", "http-status"):
        meta.pop(key, None)
    return success, weight, unit, meta


def compare(scenarios: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    oracle = run_osb(scenarios, tmp_path)
    for scenario, theirs in zip(scenarios, oracle, strict=True):
        ours = run_esbench(scenario, monkeypatch)
        label = [s["type"] for s in scenario["steps"]]
        assert [normalize(r, False) for r in ours["requests"]] == [
            normalize(r, True) for r in theirs["requests"]
        ], label
        for step, mine, expected in zip(scenario["steps"], ours["results"], theirs["results"], strict=True):
            if isinstance(mine, str):
                # esbench's runner raised (the executor records a failed sample): so did OSB's.
                assert expected.get("raised") == mine, (step, expected, mine)
                continue
            success, weight, unit, meta = outcome(expected)
            assert (mine.success, mine.weight, mine.unit) == (success, weight, unit), (step, expected, mine)
            if success or meta:
                mine_meta = json.loads(json.dumps(dict(mine.meta or {})))
                # Time spent computing recall differs between runs; both must report it.
                assert ("recall_time_ms" in mine_meta) == ("recall_time_ms" in meta), step
                mine_meta.pop("recall_time_ms", None)
                meta.pop("recall_time_ms", None)
                assert mine_meta == meta, step


def ok(body: Any = None) -> list[Any]:
    return [200, body if body is not None else {"acknowledged": True}]


def one(op_type: str, params: dict[str, Any], *responses: list[Any]) -> dict[str, Any]:
    return {"steps": [{"type": op_type, "params": params}], "responses": list(responses)}


# ----------------------------------------------------------------------------------- runners


def test_admin_runners_send_osbs_requests_and_return_its_results(tmp_path, monkeypatch):
    pipeline = {"request_processors": [{"filter_query": {"query": {"term": {"a": 1}}}}]}
    knn_body = {"training_index": "train", "training_field": "v", "dimension": 2}
    scenarios = [
        one("create-search-pipeline", {"id": "sp", "body": pipeline}, ok()),
        one("create-search-pipeline", {"id": "sp", "body": pipeline}, [400, {"error": "bad", "status": 400}]),
        one("delete-pipeline", {"id": "p1", "master-timeout": "30s", "timeout": "10s"}, ok()),
        one("delete-pipeline", {"id": "gone"}, [404, {"error": "missing", "status": 404}]),
        one("update-concurrent-segment-search-settings", {"enable": "true", "max_slice_count": 4}, ok()),
        one("update-concurrent-segment-search-settings", {}, ok()),
        {
            "steps": [
                {
                    "type": "create-point-in-time",
                    "params": {
                        "name": "pit",
                        "index": "logs",
                        "keep-alive": "2m",
                        "request-params": {"preference": "_local"},
                    },
                },
                {"type": "list-all-point-in-time", "params": {}},
                {"type": "delete-point-in-time", "params": {"with-point-in-time-from": "pit"}},
                {"type": "create-point-in-time", "params": {"name": "pit2", "index": "logs"}},
                {"type": "delete-point-in-time", "params": {"request-params": {"pretty": "true"}}},
            ],
            "responses": [
                ok({"pit_id": "P1"}),
                ok({"pits": []}),
                ok({"pits": [{"successful": True}]}),
                ok({"pit_id": "P2"}),
                ok({"pits": []}),
            ],
        },
        one(
            "train-knn-model",
            {"body": knn_body, "model_id": "m1", "poll_period": 0.1},
            ok({}),
            ok({"state": "training"}),
            ok({"state": "training"}),
            ok({"state": "created"}),
        ),
        one("train-knn-model", {"body": knn_body, "model_id": "m1"}, ok({}), ok({"state": "failed"})),
        # Still training after the polls: OSB's Retry trains again ("retries" is both), then raises.
        one(
            "train-knn-model",
            {"body": knn_body, "model_id": "m1", "retries": 1},
            *([ok({})] + [ok({"state": "training"})] * 3) * 2,
        ),
        one("delete-knn-model", {"model_id": "m1"}, ok({"model_id": "m1", "result": "deleted"})),
        one(
            "delete-knn-model",
            {"model_id": "m1", "ignore-if-model-does-not-exist": True},
            [404, {"error": "not found", "status": 404}],
        ),
        one("delete-knn-model", {"model_id": "m1"}, [404, {"error": "not found", "status": 404}]),
        one("delete-knn-model", {"model_id": "m1"}, ok({"model_id": "m1"})),
    ]
    compare(scenarios, tmp_path, monkeypatch)


def test_ml_commons_runners_send_osbs_requests_in_osbs_order(tmp_path, monkeypatch):
    no_hits = {"hits": {"hits": []}}
    model_hits = {"hits": {"hits": [{"_source": {"model_id": "M"}}, {"_source": {"model_id": "M"}}]}}
    scenarios = [
        {
            "steps": [
                {
                    "type": "register-ml-model",
                    "params": {
                        "model-name": "huggingface/x",
                        "model-version": "1.0.1",
                        "model-format": "TORCH_SCRIPT",
                    },
                },
                {"type": "deploy-ml-model", "params": {}},
                {"type": "delete-ml-model", "params": {"model-name": "huggingface/x"}},
            ],
            "responses": [
                ok(no_hits),
                ok({"task_id": "T1"}),
                ok({"state": "CREATED"}),
                ok({"state": "COMPLETED", "model_id": "M"}),
                ok({"task_id": "T2"}),
                ok({"state": "RUNNING"}),
                ok({"state": "COMPLETED"}),
                ok(model_hits),
                ok({}),
                ok({"model_state": "DEPLOYED"}),
                ok({"model_state": "UNDEPLOYED"}),
                ok({}),
            ],
        },
        {
            "steps": [
                {"type": "register-ml-model", "params": {"model-name": "huggingface/x"}},
                {"type": "deploy-ml-model", "params": {}},
            ],
            "responses": [ok(model_hits), ok({"task_id": "T2"}), ok({"state": "FAILED", "error": "boom"})],
        },
        {
            "steps": [
                {"type": "create-ml-connector", "params": {"body": {"name": "c", "protocol": "http"}}},
                {
                    "type": "register-remote-ml-model",
                    "params": {"body": {"name": "remote", "function_name": "remote"}},
                },
                {"type": "delete-ml-connector", "params": {"connector_name": "c"}},
                {"type": "delete-ml-connector", "params": {"connector_name": "none"}},
            ],
            "responses": [
                ok({"connector_id": "C1"}),
                ok({"task_id": "T3"}),
                ok({"state": "COMPLETED", "model_id": "R"}),
                ok({"hits": {"hits": [{"_source": {"_id": "C1"}}]}}),
                ok({}),
                ok(no_hits),
            ],
        },
    ]
    compare(scenarios, tmp_path, monkeypatch)


def _hits(*ids: str, total: int = 3) -> dict[str, Any]:
    return {
        "took": 4,
        "timed_out": False,
        "hits": {
            "total": {"value": total, "relation": "eq"},
            "hits": [{"_id": i, "_score": 1.0} for i in ids],
        },
    }


def _vector_params(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "index": "vectors",
        "operation-type": "vector-search",
        "detailed-results": True,
        "body": {"size": 3, "query": {"knn": {"v": {"vector": [0.5, 1.5], "k": 3}}}},
        "request-params": {"allow_partial_search_results": "false"},
        "id-field-name": None,
        "k": 3,
        "neighbors": ["1", "2", "3"],
        "num_clients": 1,
        "num_cores": 2,
    }
    base.update(extra)
    return base


def _radial_params() -> dict[str, Any]:
    params = _vector_params(neighbors=["2", "3", "-1"], min_score=0.5, **{"detailed-results": False})
    del params["k"]
    return params


def test_vector_search_and_bulk_vector_data_set_runners_match_osb(tmp_path, monkeypatch):
    docs = [
        {"index": {"_index": "vectors", "_id": 0}},
        {"v": [0.1, 0.2]},
        {"index": {"_index": "vectors", "_id": 1}},
        {"v": [0.3, 0.4]},
    ]
    one_failed = {
        "took": 3,
        "errors": True,
        "items": [
            {
                "index": {
                    "_id": "0",
                    "status": 201,
                    "result": "created",
                    "_shards": {"total": 1, "successful": 1, "failed": 0},
                }
            },
            {"index": {"_id": "1", "status": 429, "error": {"type": "es_rejected", "reason": "queue full"}}},
        ],
    }
    retried = {
        "took": 2,
        "errors": False,
        "items": [
            {
                "index": {
                    "_id": "1",
                    "status": 201,
                    "result": "created",
                    "_shards": {"total": 1, "successful": 1, "failed": 0},
                }
            }
        ],
    }
    all_ok = {
        "took": 2,
        "errors": False,
        "items": [
            {
                "index": {
                    "_id": str(i),
                    "status": 201,
                    "result": "created",
                    "_shards": {"total": 1, "successful": 1, "failed": 0},
                }
            }
            for i in range(2)
        ],
    }
    scenarios = [
        one("vector-search", _vector_params(), ok(_hits("1", "5", "2"))),
        one(
            "vector-search",
            _vector_params(neighbors=["4", "-1", "-1"], **{"results-per-page": 3}),
            ok(_hits("4", "9")),
        ),
        one("vector-search", _radial_params(), ok(_hits("3", "7"))),
        one(
            "vector-search",
            _vector_params(
                **{"calculate-recall": False, "cache": True, "response-compression-enabled": False}
            ),
        ),
        one(
            "vector-search", _vector_params(num_clients=8, num_cores=2, **{"opaque-id": "q1"}), ok(_hits("1"))
        ),
        one("vector-search", _vector_params(), ok(_hits(total=0))),
        one(
            "bulk-vector-data-set",
            {"body": docs, "retries": 2, "size": 2, "action-metadata-present": True},
            ok(one_failed),
            ok(retried),
        ),
        one(
            "bulk-vector-data-set",
            {"body": docs, "retries": 0, "size": 2, "action-metadata-present": True},
            ok(one_failed),
        ),
        one(
            "bulk-vector-data-set",
            {"body": docs, "size": 2, "action-metadata-present": True, "detailed-results": False},
            ok(all_ok),
        ),
    ]
    # the calculate-recall: false scenario has no answer yet: add it
    scenarios[3]["responses"] = [ok(_hits("1", "2"))]
    compare(scenarios, tmp_path, monkeypatch)


# ------------------------------------------------------------------------------ param sources


def _write_hdf5(path: Path) -> None:
    h5py = pytest.importorskip("h5py")
    with h5py.File(path, "w") as f:
        f.create_dataset("train", data=[[float(i), float(i) / 3] for i in range(7)], dtype="float32")
        f.create_dataset("test", data=[[0.25 * i, 1.0 - i / 7] for i in range(5)], dtype="float32")
        f.create_dataset("neighbors", data=[[i, i + 1, -1, -1] for i in range(5)], dtype="int32")
        colours = [b"red", b"None", b"blue", b"green", b"None", b"red", b"blue"]
        rows = [[colours[i], b"sweet" if i % 2 else b"None"] for i in range(7)]
        f.create_dataset("attributes", data=rows, dtype="S10")


def _write_bigann(path: Path, rows: list[list[float]], code: str) -> None:
    with path.open("wb") as f:
        f.write(struct.pack("<II", len(rows), len(rows[0])))
        for row in rows:
            f.write(struct.pack(f"<{len(row)}{code}", *row))


def _esbench_params(cls: type, params: dict[str, Any], partition: list[int], calls: int) -> list[Any]:
    source = cls(Track(name="t", root=None, challenges=()), dict(params), operation_name="op").partition(
        *partition
    )
    out = []
    for _ in range(calls):
        try:
            out.append(json.loads(json.dumps(source.params())))
        except StopIteration:
            break
    return out


def test_vector_param_sources_read_hdf5_and_bigann_as_osb_does(tmp_path, monkeypatch):
    hdf5 = tmp_path / "set.hdf5"
    _write_hdf5(hdf5)
    u8 = tmp_path / "base.u8bin"
    _write_bigann(u8, [[1, 2, 3], [4, 5, 6], [7, 8, 9]], "B")
    search = {
        "index": "vectors",
        "field": "v",
        "data_set_format": "hdf5",
        "data_set_path": str(hdf5),
        "k": 2,
        "operation-type": "vector-search",
        "request-params": {"timeout": "5s"},
    }
    bulk = {
        "index": "vectors",
        "field": "v",
        "data_set_format": "hdf5",
        "data_set_path": str(hdf5),
        "bulk_size": 2,
        "num_vectors": -1,
    }
    scenarios = [
        {"param_source": "vector-search", "params": search, "partition": [0, 1], "calls": 7},
        {
            "param_source": "vector-search",
            "params": {**search, "repetitions": 2},
            "partition": [1, 2],
            "calls": 9,
        },
        {
            "param_source": "vector-search",
            "params": {**search, "filter_type": "boolean", "filter_body": {"term": {"c": 1}}},
            "partition": [0, 1],
            "calls": 2,
        },
        {
            "param_source": "vector-search",
            "params": {
                **search,
                "filter_type": "efficient",
                "filter_body": {"term": {"c": 1}},
                "body": {"_source": False},
            },
            "partition": [0, 1],
            "calls": 1,
        },
        {"param_source": "bulk-vector-data-set", "params": bulk, "partition": [0, 1], "calls": 6},
        {
            "param_source": "bulk-vector-data-set",
            "params": {**bulk, "num_vectors": 5},
            "partition": [1, 2],
            "calls": 6,
        },
        {
            "param_source": "bulk-vector-data-set",
            "params": {**bulk, "id-field-name": "doc_id"},
            "partition": [0, 3],
            "calls": 2,
        },
        {
            "param_source": "bulk-vector-data-set",
            "params": {**bulk, "filter_attributes": ["colour", "taste"]},
            "partition": [1, 2],
            "calls": 3,
        },
        {
            "param_source": "bulk-vector-data-set",
            "params": {**bulk, "data_set_format": "bigann", "data_set_path": str(u8)},
            "partition": [0, 1],
            "calls": 3,
        },
    ]
    oracle = run_osb(scenarios, tmp_path)
    classes = {"vector-search": VectorSearchParamSource, "bulk-vector-data-set": BulkVectorsParamSource}
    for scenario, theirs in zip(scenarios, oracle, strict=True):
        ours = _esbench_params(
            classes[scenario["param_source"]], scenario["params"], scenario["partition"], scenario["calls"]
        )
        # OSB's executor adds num_clients/num_cores; esbench's source does it at partitioning.
        for p in ours:
            p.pop("num_clients", None)
            p.pop("num_cores", None)
        assert ours == theirs["params"], scenario


def test_refused_types_name_the_reason_and_known_types_resolve():
    from esbench.track.model import Challenge, Operation, Task
    from esbench.track.optypes import is_builtin, unknown_operation_types

    ops = [
        Operation(name=t, operation_type=t)
        for t in ("proto-search", "produce-stream-message", "vector-search")
    ]
    challenge = Challenge(name="c", schedule=tuple(Task(name=o.name, operation=o) for o in ops), default=True)
    found = {u.operation_type: u.describe() for u in unknown_operation_types([challenge])}
    assert set(found) == {"proto-search", "produce-stream-message"}
    assert "gRPC" in found["proto-search"] and "'search'" in found["proto-search"]
    assert "Kafka" in found["produce-stream-message"]
    assert is_builtin("vector-search") and not is_builtin("proto-search")


def test_vector_param_sources_refuse_what_they_cannot_read(tmp_path):
    track = Track(name="t", root=None, challenges=())
    base = {"index": "v", "field": "v", "data_set_format": "hdf5"}
    with pytest.raises(ConfigError, match="the vector data set is missing"):
        BulkVectorsParamSource(track, {**base, "bulk_size": 1}, operation_name="op")
    with pytest.raises(ConfigError, match="the corpus 'c' has no prepared file with source-format 'hdf5'"):
        BulkVectorsParamSource(track, {**base, "bulk_size": 1, "data_set_corpus": "c"}, operation_name="op")
    two = CorpusSet(
        data_sets={"c": (DataSetFile("c", "hdf5", Path("a")), DataSetFile("c", "hdf5", Path("b")))}
    )
    with pytest.raises(ConfigError, match="has 2 'hdf5' files"):
        BulkVectorsParamSource(
            track, {**base, "bulk_size": 1, "data_set_corpus": "c"}, operation_name="op", corpora=two
        )
    with pytest.raises(ConfigError, match="nested vector field"):
        BulkVectorsParamSource(
            track, {**base, "field": "a.b", "bulk_size": 1, "data_set_path": "x"}, operation_name="op"
        )
    with pytest.raises(ConfigError, match="needs the parameter 'bulk_size'"):
        BulkVectorsParamSource(track, {**base, "data_set_path": "x"}, operation_name="op")
    with pytest.raises(ConfigError, match="radial_search_type"):
        VectorSearchParamSource(
            track,
            {**base, "data_set_path": "x", "radial_search_type": "min_score", "k": 1},
            operation_name="op",
        )
