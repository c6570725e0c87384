from __future__ import annotations

import pytest
from driver_helpers import challenge, op, task

from esbench.driver.coordinator.filters import filter_schedule, parse_task_filters
from esbench.exceptions import ConfigError
from esbench.track.model import Parallel

DELETE = task(op("delete-index"), tags=("setup",))
CREATE = task(op("create-index"), tags=("setup",))
INDEX = task(op("bulk", "index-append"))
TERM = task(op("search", "term"), tags=("read",))
PHRASE = task(op("search", "phrase"))
BLOCK = Parallel(
    tasks=(task(op("bulk", "index-update")), task(op("search", "query-while-indexing"), tags=("read",)))
)
C = challenge(DELETE, CREATE, INDEX, BLOCK, TERM, PHRASE)


def names(ch):
    out = []
    for item in ch.schedule:
        out.append([t.name for t in item.tasks] if isinstance(item, Parallel) else item.name)
    return out


def test_no_filters_returns_the_challenge():
    assert filter_schedule(C) is C


def test_include_by_name_type_and_tag():
    assert names(filter_schedule(C, include=["term"])) == ["term"]
    assert names(filter_schedule(C, include=["type:search"])) == [["query-while-indexing"], "term", "phrase"]
    assert names(filter_schedule(C, include=["tag:read"])) == [["query-while-indexing"], "term"]
    assert names(filter_schedule(C, include=["index-append", "type:search"])) == [
        "index-append",
        ["query-while-indexing"],
        "term",
        "phrase",
    ]


def test_exclude_keeps_parallel_blocks_with_remaining_tasks():
    assert names(filter_schedule(C, exclude=["tag:setup"])) == [
        "index-append",
        ["index-update", "query-while-indexing"],
        "term",
        "phrase",
    ]
    assert names(filter_schedule(C, exclude=["type:bulk"])) == [
        "delete-index",
        "create-index",
        ["query-while-indexing"],
        "term",
        "phrase",
    ]
    only = challenge(Parallel(tasks=(task(op("search", "s")),)))
    assert names(filter_schedule(only, exclude=["s"])) == []


def test_admin_tasks_are_not_kept_by_include():
    # Rally 2.x: no implicit admin-task filter.
    assert "delete-index" not in names(filter_schedule(C, include=["type:search"]))


def test_include_then_exclude():
    assert names(filter_schedule(C, include=["type:search"], exclude=["tag:read"])) == ["phrase"]


def test_include_matching_nothing_lists_tasks():
    with pytest.raises(ConfigError, match=r"matches no task.*term \(type:search\)"):
        filter_schedule(C, include=["nope"])


@pytest.mark.parametrize("spec", ["kind:x", "type:", "tag:a:b", "type:search:x"])
def test_invalid_filters(spec):
    with pytest.raises(ConfigError, match="Invalid task filter"):
        parse_task_filters([spec])


def test_blank_specs_are_ignored():
    assert parse_task_filters([" ", "", "a"])[0].value == "a"
