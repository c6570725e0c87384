"""Splitting bulk bodies by node or shard (pure logic of esbench.driver.worker.runners.routed_bulk; the
runner against a real 3-node cluster is tests/integration/test_routing_cluster.py)."""

from __future__ import annotations

import json

import pytest

from esbench.driver.transport.routing import IndexRouting, RoutingError
from esbench.driver.transport.shardmap import IndexShards
from esbench.driver.worker.runners.bulk import prepare_bulk
from esbench.driver.worker.runners.routed_bulk import (
    BulkSplitter,
    IdGenerator,
    RoutingAware,
    _UnknownTarget,
    parse_routing_aware,
)
from esbench.exceptions import ConfigError

ROUTING = IndexRouting("logs", number_of_shards=3, routing_num_shards=768)
TARGETS = {"logs": IndexShards("logs", ROUTING, ("n0", "n1", "n0"))}


def _body(*pairs: tuple[dict, dict | None]) -> bytes:
    lines = []
    for action, source in pairs:
        lines.append(json.dumps(action))
        if source is not None:
            lines.append(json.dumps(source))
    return ("\n".join(lines) + "\n").encode()


def _docs(part) -> list[tuple[dict, bytes | None]]:
    out = []
    lines = part.body().split(b"\n")[:-1]
    i = 0
    while i < len(lines):
        action = json.loads(lines[i])
        if "delete" in action:
            out.append((action, None))
            i += 1
        else:
            out.append((action, lines[i + 1]))
            i += 2
    return out


def test_ids_are_assigned_with_the_stated_scheme_and_documents_go_to_their_primary_node() -> None:
    ids = IdGenerator(seed=b"\x00" * 8)
    splitter = BulkSplitter(RoutingAware.NODE, ids)
    body = _body(*[({"index": {"_index": "logs", "pipeline": "p"}}, {"n": i}) for i in range(200)])
    parts = splitter.split(body, None, TARGETS)
    assert {p.node for p in parts} == {"n0", "n1"}
    assert sum(p.docs for p in parts) == 200
    seen = set()
    for part in parts:
        for action, source in _docs(part):
            meta = action["index"]
            assert meta["pipeline"] == "p" and meta["_index"] == "logs"
            assert meta["_id"].startswith("AAAAAAAAAAA-")
            assert TARGETS["logs"].primaries[ROUTING.shard(meta["_id"])] == part.node
            seen.add(json.loads(source)["n"])
    assert seen == set(range(200))
    assert ids.next() == "AAAAAAAAAAA-c8"  # 200 ids (0..0xc7) were handed out


def test_shard_mode_keeps_ids_and_routing_and_delete_lines() -> None:
    splitter = BulkSplitter(RoutingAware.SHARD, IdGenerator())
    body = _body(
        ({"index": {"_id": "a"}}, {"x": 1}),
        ({"create": {"_id": "b", "routing": "r1"}}, {"x": 2}),
        ({"delete": {"_id": "c"}}, None),
        ({"update": {"_id": "d"}}, {"doc": {"x": 4}}),
    )
    parts = splitter.split(body, "logs", TARGETS)
    where = {}
    for part in parts:
        assert part.node == TARGETS["logs"].primaries[part.shard]
        for action, source in _docs(part):
            op, meta = next(iter(action.items()))
            where[meta["_id"]] = (part.shard, op, source)
    assert where["a"][0] == ROUTING.shard("a")
    assert where["b"][0] == ROUTING.shard("b", "r1")
    assert where["c"] == (ROUTING.shard("c"), "delete", None)
    assert where["d"][1:] == ("update", b'{"doc": {"x": 4}}')


def test_unknown_index_asks_for_its_shard_map() -> None:
    splitter = BulkSplitter(RoutingAware.NODE, IdGenerator())
    with pytest.raises(_UnknownTarget) as raised:
        splitter.split(_body(({"index": {"_index": "other"}}, {})), None, TARGETS)
    assert raised.value.name == "other"


def test_bad_action_lines_are_refused() -> None:
    splitter = BulkSplitter(RoutingAware.NODE, IdGenerator())
    with pytest.raises(RoutingError, match="names no _index"):
        splitter.split(_body(({"index": {}}, {})), None, TARGETS)
    with pytest.raises(RoutingError, match="cannot read the action line"):
        splitter.split(b"not json\n{}\n", "logs", TARGETS)
    with pytest.raises(RoutingError, match="has no _id"):
        splitter.split(_body(({"delete": {}}, None)), "logs", TARGETS)


def test_unassigned_primaries_form_one_sub_bulk_for_any_node() -> None:
    targets = {"logs": IndexShards("logs", ROUTING, (None, None, None))}
    parts = BulkSplitter(RoutingAware.NODE, IdGenerator()).split(
        _body(*[({"index": {}}, {"n": i}) for i in range(10)]), "logs", targets
    )
    assert len(parts) == 1 and parts[0].node is None and parts[0].docs == 10


def test_ids_of_two_generators_differ() -> None:
    assert IdGenerator().prefix != IdGenerator().prefix


@pytest.mark.parametrize("value", ["node", "NODE", "shard"])
def test_routing_aware_values(value: str) -> None:
    assert parse_routing_aware(value, "bulk") == RoutingAware(value.lower())
    assert prepare_bulk({"routing-aware": value}).routing_aware == RoutingAware(value.lower())


def test_routing_aware_off_and_bad_values() -> None:
    assert parse_routing_aware(None, "bulk") is None and parse_routing_aware(False, "bulk") is None
    with pytest.raises(ConfigError, match="'routing-aware' must be"):
        prepare_bulk({"routing-aware": "rack", "name": "index-append"})
    with pytest.raises(ConfigError, match="action-metadata-present"):
        prepare_bulk({"routing-aware": "node", "action-metadata-present": False, "index": "logs"})


def test_the_bulk_param_source_carries_routing_aware_to_the_runner(tmp_path) -> None:
    from test_param_sources import corpus, drain, source

    corpora = corpus(tmp_path, docs=6)
    bulks = drain(source("bulk", {"bulk-size": 3, "routing-aware": "shard"}, corpora=corpora).partition(0, 1))
    assert len(bulks) == 2
    assert all(b["__esbench_prepared__"].routing_aware is RoutingAware.SHARD for b in bulks)
    with pytest.raises(ConfigError, match="'routing-aware' must be"):
        source("bulk", {"bulk-size": 3, "routing-aware": "yes"}, corpora=corpora)
