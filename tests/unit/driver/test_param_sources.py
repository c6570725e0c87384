from __future__ import annotations

import json
from pathlib import Path

import pytest
from driver_helpers import task, track

from esbench.corpus.model import CorpusSet, PreparedDocuments
from esbench.corpus.offsets import ensure_offset_index
from esbench.driver.worker.params import is_infinite
from esbench.driver.worker.registry import default_registry
from esbench.exceptions import ConfigError
from esbench.track.model import DataStream, Documents, IndexTemplate, Operation


def corpus(tmp_path: Path, docs: int = 10, target: str = "logs") -> CorpusSet:
    path = tmp_path / "docs.json"
    path.write_text("".join(json.dumps({"n": i}) + "\n" for i in range(docs)))
    offsets = tmp_path / "docs.json.offset"
    ensure_offset_index(path, offsets)
    prepared = PreparedDocuments(
        corpus="c",
        documents=Documents(source_file="docs.json", document_count=docs, target_index=target),
        path=path,
        offsets_path=offsets,
        document_count=docs,
        target_index=target,
    )
    return CorpusSet(by_corpus={"c": (prepared,)})


def source(op_type: str, params: dict, *, trk=None, corpora=None):
    operation = Operation(name=op_type, operation_type=op_type, params=params)
    return default_registry().param_source(task(operation), trk or track(), corpora=corpora)


def drain(client_source) -> list[dict]:
    out = []
    while True:
        try:
            out.append(client_source.params())
        except StopIteration:
            return out


def test_bulk_clients_read_their_own_slices(tmp_path):
    corpora = corpus(tmp_path, docs=10)
    src = source("bulk", {"bulk-size": 3, "pipeline": "p"}, corpora=corpora)
    seen = []
    for client in range(2):
        part = src.partition(client, 2)
        assert not is_infinite(part) and part.size() == 2
        bulks = drain(part)
        assert [b["bulk-size"] for b in bulks] == [3, 2]
        assert part.percent_completed == 1.0
        for b in bulks:
            assert b["unit"] == "docs" and b["index"] == "logs"
            assert b["__esbench_prepared__"].target == "/_bulk?pipeline=p"
            lines = b["body"].decode().splitlines()
            assert lines[0] == '{"index": {"_index": "logs"}}'
            seen += [json.loads(doc)["n"] for doc in lines[1::2]]
    assert sorted(seen) == list(range(10))


def test_bulk_ingest_percentage_and_looped(tmp_path):
    corpora = corpus(tmp_path, docs=10)
    half = source("bulk", {"bulk-size": 2, "ingest-percentage": 50}, corpora=corpora).partition(0, 1)
    assert [b["bulk-size"] for b in drain(half)] == [2, 2, 2]  # ceil(5 * 50 %) of 5 bulks
    looped = source("bulk", {"bulk-size": 4, "looped": True}, corpora=corpora).partition(0, 1)
    assert is_infinite(looped) and looped.size() is None
    assert [looped.params()["bulk-size"] for _ in range(7)] == [4, 4, 2, 4, 4, 2, 4]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "needs 'bulk-size'"),
        ({"bulk-size": 0}, "must be positive"),
        ({"bulk-size": "x"}, "must be a number"),
        ({"bulk-size": 10, "batch-size": 15}, "multiple of 'bulk-size'"),
        ({"bulk-size": 10, "ingest-percentage": 0}, r"must be in \(0, 100\]"),
    ],
)
def test_bulk_parameter_errors(tmp_path, params, message):
    with pytest.raises(ConfigError, match=message):
        source("bulk", params, corpora=corpus(tmp_path))


def test_bulk_without_corpora_is_an_error():
    with pytest.raises(ConfigError, match="no documents to index"):
        source("bulk", {"bulk-size": 10}, corpora=None)


def test_data_streams_and_templates_from_the_track():
    trk = track(
        data_streams=(DataStream(name="ds-a"), DataStream(name="ds-b")),
        templates=(
            IndexTemplate(
                name="legacy", pattern="l*", content={"index_patterns": ["l*"], "settings": {"a": 1}}
            ),
        ),
        component_templates=(IndexTemplate(name="comp", content={"template": {"mappings": {}}}),),
    )
    assert source("create-data-stream", {}, trk=trk).params()["data-streams"] == ["ds-a", "ds-b"]
    assert source("create-data-stream", {"data-stream": "ds-b"}, trk=trk).params()["data-streams"] == ["ds-b"]
    delete = source("delete-data-stream", {}, trk=trk).params()
    assert delete["data-streams"] == ["ds-a", "ds-b"] and delete["only-if-exists"] is True
    legacy = source("create-index-template", {"settings": {"b": 2}}, trk=trk).params()["templates"]
    assert legacy == [("legacy", {"index_patterns": ["l*"], "settings": {"a": 1, "b": 2}})]
    assert trk.templates[0].content["settings"] == {"a": 1}
    comp = source("create-component-template", {"settings": {"x": {"y": 1}}}, trk=trk).params()["templates"]
    assert comp == [("comp", {"template": {"mappings": {}, "settings": {"x": {"y": 1}}}})]
    assert source("delete-index-template", {}, trk=trk).params()["templates"] == [("legacy", False, "l*")]
    assert source("delete-component-template", {}, trk=trk).params()["templates"] == ["comp"]
    with pytest.raises(ConfigError, match="unknown template 'nope'"):
        source("create-component-template", {"template": "nope"}, trk=trk)
    explicit = source(
        "delete-composable-template",
        {"template": "x", "delete-matching-indices": True, "index-pattern": "x-*"},
    ).params()
    assert explicit["templates"] == [("x", True, "x-*")]
    with pytest.raises(ConfigError, match="no 'index-pattern'"):
        source("delete-composable-template", {"template": "x", "delete-matching-indices": True})


def test_force_merge_defaults():
    p = source("force-merge", {}, trk=track(indices=("a",), data_streams=(DataStream(name="d"),))).params()
    assert (p["index"], p["mode"], p["poll-period"]) == ("a,d", "blocking", 10)
    assert source("force-merge", {}, trk=track(indices=())).params()["index"] == "_all"
    with pytest.raises(ConfigError, match="'mode' must be"):
        source("force-merge", {"mode": "fast"})
