"""``shrink-index`` against a real node (core API; one node is the shrink node)."""

from __future__ import annotations

import pytest
from operations_harness import Harness, harness, unique  # noqa: F401 - the fixture h

pytestmark = pytest.mark.integration


async def test_shrink_every_matching_index_with_suffixes(h: Harness) -> None:
    stem = unique("shrink")
    sources = [f"{stem}-a", f"{stem}-b"]
    for source in sources:
        await h.index_docs(source, 120, shards=4)
    target = unique("shrunk")
    result = await h.run(
        "shrink-index",
        source_index=f"{stem}-*",
        target_index=target,
        target_body={"settings": {"index.number_of_shards": 1, "index.number_of_replicas": 0}},
    )
    assert result.success and result.weight == 2 and result.unit == "ops"
    for suffix in ("a", "b"):
        # Rally's naming: the target plus what follows the sources' common prefix
        shrunk = f"{target}{suffix}"
        status, settings = await h.call("GET", f"/{shrunk}/_settings?flat_settings=true")
        assert status == 200, settings
        flat = settings[shrunk]["settings"]
        assert flat["index.number_of_shards"] == "1"
        # the source's allocation filter and write block are reset (null) on the target
        assert flat.get("index.routing.allocation.require._name") is None
        assert flat.get("index.blocks.write") is None
        assert await h.count(shrunk) == 120
        status, source = await h.call("GET", f"/{stem}-{suffix}/_settings?flat_settings=true")
        assert source[f"{stem}-{suffix}"]["settings"]["index.blocks.write"] == "true"
    # service time spans every request of the operation, the waits included
    assert h.last_timing.end - h.last_timing.start >= 4 * 3.0
    for index in (*sources, f"{target}a", f"{target}b"):
        await h.call("DELETE", f"/{index}")


async def test_shrink_of_a_missing_index_is_a_failed_request(h: Harness) -> None:
    result = await h.run("shrink-index", source_index=unique("none"), target_index="x", target_body={})
    assert not result.success and result.http_status == 404
    assert "index_not_found_exception" in result.error_description
