"""Client-side routing: Murmur3 vectors from Elasticsearch's Murmur3HashFunctionTests, the routing
factor arithmetic of IndexRouting/IndexMetadata, and the refusals (agreement with a real cluster is
tests/integration/test_routing_cluster.py)."""

from __future__ import annotations

import pytest

from esbench.driver.transport.routing import (
    IndexRouting,
    RoutingError,
    default_routing_num_shards,
    murmur3_hash,
)


def _unsigned(value: int) -> int:
    return value & 0xFFFFFFFF


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # server/src/test/java/org/elasticsearch/cluster/routing/Murmur3HashFunctionTests.java
        ("hello", 0xD7C31989),
        ("Γειά σου Κόσμε", 0x8DED82BE),
        ("Supplementary planes too 🙂", 0x8274606C),
    ],
)
def test_murmur3_matches_elasticsearch_vectors(text: str, expected: int) -> None:
    assert _unsigned(murmur3_hash(text)) == expected


def test_murmur3_is_signed_like_a_java_int() -> None:
    assert murmur3_hash("hello") == 0xD7C31989 - 2**32


def test_lone_surrogate_hashes_as_its_code_unit() -> None:
    # Java's String may hold a lone surrogate; it is hashed as the code unit 0xD800 (00 D8 in LE).
    import mmh3

    assert murmur3_hash("\ud800") == mmh3.hash(b"\x00\xd8", 0, signed=True)


@pytest.mark.parametrize(
    ("shards", "routing_shards"),
    [(1, 1024), (2, 1024), (3, 768), (5, 640), (30, 960), (512, 1024), (1024, 2048)],
)
def test_default_routing_num_shards(shards: int, routing_shards: int) -> None:
    assert default_routing_num_shards(shards) == routing_shards


def test_hash_to_shard_uses_floor_mod_and_the_routing_factor() -> None:
    routing = IndexRouting("i", number_of_shards=3, routing_num_shards=768)
    assert routing.routing_factor == 256
    # floorMod(-1, 768) = 767 -> 767 // 256 = 2 (Java's % would give -1).
    assert routing.hash_to_shard(-1) == 2
    assert routing.hash_to_shard(255) == 0
    assert routing.hash_to_shard(256) == 1


def test_shard_of_id_and_of_routing() -> None:
    routing = IndexRouting("i", number_of_shards=5, routing_num_shards=640)
    h = murmur3_hash("doc-1")
    assert routing.shard("doc-1") == (h % 640) // 128
    assert routing.shard("doc-1", routing="user-7") == (murmur3_hash("user-7") % 640) // 128


def test_partitioned_adds_the_id_offset_with_int_wrap_around() -> None:
    routing = IndexRouting("i", number_of_shards=6, routing_num_shards=6, routing_partition_size=3)
    offset = murmur3_hash("a") % 3
    base = murmur3_hash("r")
    assert routing.shard("a", routing="r") == ((base + offset) % 6) // 1
    # Values whose sum passes 2**31 - 1 wrap to negative, as Java's int addition does.
    from esbench.driver.transport.routing import _java_int

    assert _java_int(2**31 - 1 + 2) == -(2**31) + 1


def test_partitioned_and_required_routing_need_a_routing_value() -> None:
    with pytest.raises(RoutingError, match="requires a routing value"):
        IndexRouting("i", 6, 6, routing_partition_size=2).shard("a")
    with pytest.raises(RoutingError, match="requires a routing value"):
        IndexRouting("i", 2, 1024, routing_required=True).shard("a")


def test_from_metadata_reads_cluster_state_entry() -> None:
    entry = {
        "settings": {"index": {"number_of_shards": "4", "routing_partition_size": "2"}},
        "routing_num_shards": 8,
        "mappings": {"_doc": {"_routing": {"required": True}}},
    }
    routing = IndexRouting.from_metadata("logs", entry)
    assert (routing.number_of_shards, routing.routing_num_shards, routing.routing_factor) == (4, 8, 2)
    assert routing.routing_partition_size == 2 and routing.routing_required


@pytest.mark.parametrize(
    "settings",
    [
        {"index": {"number_of_shards": "1", "mode": "time_series", "routing_path": ["host"]}},
        {"index": {"number_of_shards": "1", "routing_path": "host.name"}},
    ],
)
def test_from_metadata_refuses_routing_path(settings: dict) -> None:
    with pytest.raises(RoutingError, match="routing_path"):
        IndexRouting.from_metadata("metrics", {"settings": settings, "routing_num_shards": 1})


def test_inconsistent_shard_counts_are_refused() -> None:
    with pytest.raises(RoutingError, match="not a multiple"):
        IndexRouting("i", number_of_shards=3, routing_num_shards=1024)
