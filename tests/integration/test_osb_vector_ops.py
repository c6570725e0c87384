"""OSB's own operation types against a real OpenSearch 2.19.1 node with the k-NN plugin
(``opensearch_knn_hosts``): vectors from a generated hdf5 file indexed with
``bulk-vector-data-set``, searched with ``vector-search`` (recall against the file's true
neighbors), search pipelines, point in time, k-NN models, ML-commons connectors and remote
models; and a whole OSB workload raced with ``esbench race``. Registering a local ML model
downloads it from the internet, which the test machines cannot reach: ``register-ml-model`` runs
here on a model that exists (its search path), and is checked against OSB otherwise
(tests/unit/driver/test_osb_oracle.py)."""

from __future__ import annotations

import json
import random
import shutil
import urllib.request
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from harness import race

from esbench.driver.transport.client import ClientOptions, ConnectionSettings, EsbenchClient, create_client
from esbench.driver.transport.timing import RequestTiming, current_timing
from esbench.driver.worker.context import RaceContext, current_context
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.runners.base import RunnerResult
from esbench.track.model import Operation, Task, Track

h5py = pytest.importorskip("h5py")

DIM = 4
TRAIN = 240
QUERIES = 12
K = 10


def write_data_set(path: Path, seed: int = 5) -> list[list[int]]:
    """An ANN-Benchmarks hdf5 file (train, test, neighbors: the exact L2 top 10); its neighbors."""
    rng = random.Random(seed)
    train = [[rng.uniform(-1, 1) for _ in range(DIM)] for _ in range(TRAIN)]
    test = [[rng.uniform(-1, 1) for _ in range(DIM)] for _ in range(QUERIES)]

    def dist(a: list[float], b: list[float]) -> float:
        return sum((x - y) ** 2 for x, y in zip(a, b, strict=True))

    neighbors = [sorted(range(TRAIN), key=lambda i, q=q: dist(train[i], q))[:K] for q in test]
    with h5py.File(path, "w") as f:
        f.create_dataset("train", data=train, dtype="float32")
        f.create_dataset("test", data=test, dtype="float32")
        f.create_dataset("neighbors", data=neighbors, dtype="int32")
    return neighbors


def knn_index_body() -> dict[str, Any]:
    return {
        "settings": {"index": {"knn": True, "number_of_shards": 1, "number_of_replicas": 0}},
        "mappings": {
            "properties": {
                "v": {
                    "type": "knn_vector",
                    "dimension": DIM,
                    "method": {"name": "hnsw", "engine": "lucene", "space_type": "l2"},
                }
            }
        },
    }


class Harness:
    """Runs one operation as a client does: param source (partitioned), runner, timing, context."""

    def __init__(self, es: EsbenchClient) -> None:
        self.es = es
        self.registry = default_registry()
        self.context = RaceContext()
        self.track = Track(name="it", root=Path("/nonexistent"), challenges=())

    def source(self, op_type: str, params: dict[str, Any], clients: int = 1, index: int = 0) -> Any:
        op = Operation(name=params.pop("name", op_type), operation_type=op_type, params=params)
        return self.registry.param_source(Task(name=op.name, operation=op), self.track).partition(
            index, clients
        )

    async def call(self, op_type: str, params: dict[str, Any]) -> RunnerResult:
        timing = RequestTiming()
        t1, t2 = current_timing.set(timing), current_context.set(self.context)
        try:
            return await self.registry.runner(op_type)(self.es, params)
        finally:
            current_timing.reset(t1)
            current_context.reset(t2)

    async def run(self, op_type: str, **params: Any) -> RunnerResult:
        return await self.call(op_type, self.source(op_type, dict(params)).params())

    async def get(self, path: str) -> tuple[int, Any]:
        response = await self.es.http.request("GET", path)
        return response.status, (json.loads(response.body) if response.body else None)


@pytest.fixture
async def h(opensearch_knn_hosts: list[str]) -> AsyncIterator[Harness]:
    client = create_client(ConnectionSettings.create(opensearch_knn_hosts, ClientOptions(timeout=60)))
    try:
        yield Harness(client)
    finally:
        await client.close()


def unique(prefix: str) -> str:
    return f"osbops-{prefix}-{uuid.uuid4().hex[:8]}"


async def test_vectors_from_hdf5_are_indexed_and_found_with_recall(h, tmp_path):
    data = tmp_path / "set.hdf5"
    neighbors = write_data_set(data)
    index = unique("vectors")
    assert (
        await h.es.http.request(
            "PUT",
            f"/{index}",
            body=json.dumps(knn_index_body()).encode(),
            headers={"content-type": "application/json"},
        )
    ).status == 200
    common = {"index": index, "field": "v", "data_set_format": "hdf5", "data_set_path": str(data)}
    # Two clients share the 240 vectors: 120 each, in bulks of 50 (50, 50, 20).
    sizes = []
    for client in range(2):
        source = h.source("bulk-vector-data-set", {**common, "bulk_size": 50}, clients=2, index=client)
        while True:
            try:
                params = source.params()
            except StopIteration:
                break
            result = await h.call("bulk-vector-data-set", params)
            assert result.success, result.error_description
            sizes.append(result.weight)
            assert result.meta["success-count"] == result.weight and result.meta["error-count"] == 0
    assert sizes == [50, 50, 20, 50, 50, 20]
    await h.es.http.request("POST", f"/{index}/_refresh")
    assert (await h.get(f"/{index}/_count"))[1]["count"] == TRAIN
    # The document of row 17 holds row 17's vector (OSB's ids are the row numbers).
    with h5py.File(data) as f:
        row = [float(x) for x in f["train"][17]]
    assert (await h.get(f"/{index}/_doc/17"))[1]["_source"]["v"] == row

    source = h.source("vector-search", {**common, "k": K, "detailed-results": True})
    recalls = []
    for q in range(QUERIES):
        params = source.params()
        assert params["neighbors"] == [str(n) for n in neighbors[q]]
        result = await h.call("vector-search", params)
        assert result.success and result.weight == 1 and result.unit == "ops"
        assert result.meta["hits"] >= K and result.meta["recall_time_ms"] >= 0
        recalls.append(result.meta["recall@k"])
        assert result.meta["recall@1"] in (0.0, 1.0)
    with pytest.raises(StopIteration):
        source.params()
    # HNSW on 240 vectors finds (nearly) the exact neighbors; a broken recall would be 0 or > 1.
    assert 0.9 <= sum(recalls) / len(recalls) <= 1.0


async def test_search_pipeline_point_in_time_and_knn_model_operations(h):
    index = unique("pit")
    await h.es.http.request(
        "PUT",
        f"/{index}",
        body=json.dumps(knn_index_body()).encode(),
        headers={"content-type": "application/json"},
    )
    pipeline = unique("sp")
    # The integ-test zip lacks the search-pipeline-common module and so every processor type: a
    # pipeline without processors is stored, one with a processor is refused.
    created = await h.run("create-search-pipeline", id=pipeline, body={"description": "osbops"})
    assert created.success, created.error_description
    assert (await h.get(f"/_search/pipeline/{pipeline}"))[1][pipeline]["description"] == "osbops"
    body = {"request_processors": [{"filter_query": {"query": {"match_all": {}}}}]}
    bad = await h.run("create-search-pipeline", id=pipeline, body=body)
    assert not bad.success and bad.http_status == 400 and "filter_query" in bad.error_description

    created = await h.run("create-point-in-time", name="pit", index=index, **{"keep-alive": "1m"})
    assert created.success
    pit_id = h.context.get("pit")
    listed = await h.get("/_search/point_in_time/_all")
    assert pit_id in [p["pit_id"] for p in listed[1]["pits"]]
    assert (await h.run("list-all-point-in-time")).success
    assert (await h.run("delete-point-in-time", **{"with-point-in-time-from": "pit"})).success
    assert pit_id not in [p["pit_id"] for p in (await h.get("/_search/point_in_time/_all"))[1]["pits"]]
    assert (await h.run("create-point-in-time", name="pit2", index=index)).success
    assert (await h.run("delete-point-in-time")).success
    assert (await h.get("/_search/point_in_time/_all"))[1]["pits"] == []

    model = unique("model")
    missing = await h.run("delete-knn-model", model_id=model)
    assert not missing.success and missing.weight == 1
    assert (
        await h.run("delete-knn-model", model_id=model, **{"ignore-if-model-does-not-exist": True})
    ).success
    # Training needs faiss's native library, which the Maven k-NN zip lacks: train from an index
    # that does not exist, which the node refuses before any native code runs.
    train = await h.run(
        "train-knn-model",
        model_id=model,
        body={
            "training_index": unique("absent"),
            "training_field": "v",
            "dimension": DIM,
            "method": {"name": "ivf", "engine": "faiss", "parameters": {"nlist": 4}},
        },
    )
    assert not train.success and train.http_status in (400, 404)

    settings = await h.run("update-concurrent-segment-search-settings", enable="true", max_slice_count=2)
    assert settings.success
    persistent = (await h.get("/_cluster/settings"))[1]["persistent"]
    assert persistent["search"]["concurrent_segment_search"]["enabled"] == "true"
    assert persistent["search"]["concurrent"]["max_slice_count"] == "2"
    assert (await h.run("update-concurrent-segment-search-settings")).success


CONNECTOR = {
    "name": "osbops-connector",
    "description": "an OpenAI embedding connector (never called: remote models run nothing here)",
    "version": 1,
    "protocol": "http",
    "parameters": {"model": "text-embedding-ada-002"},
    "credential": {"openAI_key": "not-a-key"},
    "actions": [
        {
            "action_type": "predict",
            "method": "POST",
            "url": "https://api.openai.com/v1/embeddings",
            "headers": {"Authorization": "Bearer ${credential.openAI_key}"},
            "request_body": '{ "input": ${parameters.input}, "model": "${parameters.model}" }',
        }
    ],
}


async def test_ml_commons_connector_and_remote_model_lifecycle(h, monkeypatch):
    from esbench.driver.worker.runners import osb_ml

    # OSB polls ML tasks every 5 s; the node finishes these in well under a second.
    monkeypatch.setattr(osb_ml, "TASK_POLL_PERIOD", 0.2)
    settings = {"persistent": {"plugins.ml_commons.only_run_on_ml_node": False}}
    await h.es.http.request(
        "PUT",
        "/_cluster/settings",
        body=json.dumps(settings).encode(),
        headers={"content-type": "application/json"},
    )
    connector = await h.run("create-ml-connector", body=CONNECTOR)
    assert connector.success, connector.error_description
    connector_id = h.context.get(osb_ml.CONNECTOR_ID_KEY)
    assert (await h.get(f"/_plugins/_ml/connectors/{connector_id}"))[1]["name"] == "osbops-connector"

    name = unique("remote-model")
    registered = await h.run("register-remote-ml-model", body={"name": name, "function_name": "remote"})
    assert registered.success, registered.error_description
    model_id = h.context.get(osb_ml.MODEL_ID_KEY)
    assert (await h.get(f"/_plugins/_ml/models/{model_id}"))[1]["connector_id"] == connector_id

    deployed = await h.run("deploy-ml-model")
    assert deployed.success, deployed.error_description
    assert (await h.get(f"/_plugins/_ml/models/{model_id}"))[1]["model_state"] == "DEPLOYED"

    # register-ml-model looks the model up by name first (OSB's query) and reuses the "model_id" of
    # a hit's _source. ML-commons 2.19 keeps a model's id as the document _id only, so the lookup
    # finds the model but no id, and OSB's runner registers anew: without a version and format
    # ML-commons refuses that (500). esbench does what OSB does.
    lookup = {
        "query": {
            "bool": {
                "should": [{"term": {"name.keyword": name}}],
                "must_not": {"exists": {"field": "chunk_number"}},
            }
        }
    }
    response = await h.es.http.request(
        "POST",
        "/_plugins/_ml/models/_search",
        body=json.dumps(lookup).encode(),
        headers={"content-type": "application/json"},
    )
    hits = json.loads(response.body)["hits"]["hits"]
    assert [hit["_id"] for hit in hits] == [model_id] and "model_id" not in hits[0]["_source"]
    again = await h.run("register-ml-model", **{"model-name": name})
    assert not again.success and again.http_status == 500
    assert h.context.get(osb_ml.MODEL_ID_KEY) == model_id

    # delete-ml-model collects the "model_id" of the hits' _source too (OSB's rule): a remote model
    # has no chunk documents that carry one, so nothing is undeployed or deleted, in OSB as here.
    deleted = await h.run("delete-ml-model", **{"model-name": name})
    assert deleted.success, deleted.error_description
    assert (await h.get(f"/_plugins/_ml/models/{model_id}"))[1]["model_state"] == "DEPLOYED"
    await h.es.http.request("POST", f"/_plugins/_ml/models/{model_id}/_undeploy")

    # OSB looks for "_id" inside each hit's _source, which a connector document lacks: its
    # delete-ml-connector searches and deletes nothing. esbench does the same.
    assert (await h.run("delete-ml-connector", connector_name="osbops-connector")).success
    assert (await h.get(f"/_plugins/_ml/connectors/{connector_id}"))[0] == 200


def write_workload(root: Path, data: Path, *, as_corpus: bool = False) -> None:
    """An OSB workload (workload.json, test_procedures) that indexes and searches ``data``: given as
    ``data_set_path``, or (``as_corpus``) as the hdf5 corpus ``knn-set`` whose file lies in the
    workload's directory, named by ``data_set_corpus``."""
    root.mkdir()
    (root / "index.json").write_text(json.dumps(knn_index_body()))
    vector: dict[str, Any] = {"field": "v", "data_set_format": "hdf5"}
    corpora = []
    if as_corpus:
        shutil.copy(data, root / "knn-set.hdf5")
        vector["data_set_corpus"] = "knn-set"
        documents = [{"source-file": "knn-set.hdf5", "source-format": "hdf5", "document-count": TRAIN}]
        corpora = [{"name": "knn-set", "documents": documents}]
    else:
        vector["data_set_path"] = str(data)
    workload = {
        "version": 2,
        "description": "k-NN from an hdf5 file",
        "indices": [{"name": "osbops-race", "body": "index.json"}],
        **({"corpora": corpora} if corpora else {}),
        "test_procedures": [
            {
                "name": "knn",
                "default": True,
                "schedule": [
                    {"operation": {"operation-type": "delete-index"}},
                    {"operation": {"operation-type": "create-index"}},
                    {
                        "operation": {
                            "name": "ingest",
                            "operation-type": "bulk-vector-data-set",
                            "index": "osbops-race",
                            "bulk_size": 40,
                            **vector,
                        },
                        "clients": 2,
                    },
                    {"operation": {"operation-type": "refresh", "index": "osbops-race"}},
                    {
                        "operation": {
                            "name": "knn-query",
                            "operation-type": "vector-search",
                            "index": "osbops-race",
                            "k": K,
                            **vector,
                        },
                        "clients": 1,
                    },
                    {
                        "operation": {
                            "name": "sp",
                            "operation-type": "create-search-pipeline",
                            "id": "osbops-sp",
                            "body": {"description": "osbops"},
                        }
                    },
                ],
            }
        ],
    }
    (root / "workload.json").write_text(json.dumps(workload))


@pytest.mark.parametrize("as_corpus", [False, True], ids=["data_set_path", "data_set_corpus"])
def test_an_osb_workload_with_vector_operations_races(opensearch_knn_hosts, tmp_path, as_corpus):
    data = tmp_path / "set.hdf5"
    write_data_set(data)
    write_workload(tmp_path / "knn-workload", data, as_corpus=as_corpus)
    proc = race(
        tmp_path / "knn-workload",
        opensearch_knn_hosts,
        "--pipeline=benchmark-only",
        "--on-error=abort",
        "--kill-running-processes",
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    for task in ("ingest", "knn-query"):
        assert task in out

    host = opensearch_knn_hosts[0]
    with urllib.request.urlopen(f"http://{host}/osbops-race/_count") as response:
        assert json.load(response)["count"] == TRAIN
    with urllib.request.urlopen(f"http://{host}/_search/pipeline/osbops-sp") as response:
        assert "osbops-sp" in json.load(response)


def test_grpc_and_kafka_operations_are_refused_when_the_workload_loads(opensearch_knn_hosts, tmp_path):
    root = tmp_path / "grpc"
    root.mkdir()
    (root / "workload.json").write_text(
        json.dumps(
            {
                "version": 2,
                "indices": [{"name": "osbops-grpc"}],
                "test_procedures": [
                    {
                        "name": "g",
                        "default": True,
                        "schedule": [
                            {
                                "operation": {
                                    "operation-type": "proto-search",
                                    "index": "osbops-grpc",
                                    "body": {},
                                }
                            }
                        ],
                    }
                ],
            }
        )
    )
    proc = race(root, opensearch_knn_hosts, "--pipeline=benchmark-only")
    assert proc.returncode == 64, proc.stderr
    assert "proto-search" in proc.stderr and "gRPC" in proc.stderr and "Traceback" not in proc.stderr


PLUGIN = """
import os


def _bounds():
    with open(os.environ["OSBOPS_CALLS"], "a") as f:
        f.write("call\\n")
    return {"gte": 0, "lte": 100}


def register(registry):
    registry.register_standard_value_source("ranged", "n", _bounds)
"""


def test_randomization_options_feed_the_plugins_value_source_into_the_searches(
    opensearch_knn_hosts, tmp_path
):
    root = tmp_path / "randomized"
    root.mkdir()
    (root / "workload.py").write_text(PLUGIN)
    query = {"query": {"bool": {"filter": [{"range": {"n": {"gte": 5, "lt": 10}}}]}}}
    (root / "workload.json").write_text(
        json.dumps(
            {
                "version": 2,
                "indices": [{"name": "osbops-randomized"}],
                "test_procedures": [
                    {
                        "name": "r",
                        "default": True,
                        "schedule": [
                            {"operation": {"operation-type": "create-index"}},
                            {
                                "operation": {"name": "ranged", "operation-type": "search", "body": query},
                                "clients": 1,
                                "iterations": 7,
                            },
                            {"operation": {"operation-type": "delete-index"}},
                        ],
                    }
                ],
            }
        )
    )
    calls = tmp_path / "calls.txt"
    args = ("--pipeline=benchmark-only", "--on-error=abort", "--kill-running-processes")
    plain = race(root, opensearch_knn_hosts, *args, env={"OSBOPS_CALLS": str(calls)})
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert not calls.exists()  # without --randomization-enabled the sources are never asked
    randomized = race(
        root,
        opensearch_knn_hosts,
        *args,
        "--randomization-enabled",
        "--randomization-n=3",
        "--randomization-repeat-frequency=0",
        env={"OSBOPS_CALLS": str(calls)},
    )
    assert randomized.returncode == 0, randomized.stderr[-2000:]
    # 3 standard values at load time, then new bounds for each of the 7 searches (repeat frequency 0).
    assert calls.read_text().count("call") == 3 + 7
