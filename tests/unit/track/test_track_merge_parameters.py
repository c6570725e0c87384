"""merge_parameters: challenge ``parameters`` deep-merged over track ``parameters`` (Rally's merge_dicts)."""

from __future__ import annotations

from esbench.track.values import merge_parameters


def test_nested_mappings_merge_and_override_values_win() -> None:
    base = {"index": {"shards": 1, "replicas": 0}, "size": 10}
    override = {"index": {"replicas": 2}, "size": 20}
    assert merge_parameters(base, override) == {"index": {"shards": 1, "replicas": 2}, "size": 20}
    assert base == {"index": {"shards": 1, "replicas": 0}, "size": 10}  # inputs are not changed


def test_lists_are_united_in_order_without_duplicates() -> None:
    assert merge_parameters({"tags": ["a", "b"]}, {"tags": ["b", "c", "a"]}) == {"tags": ["a", "b", "c"]}


def test_a_none_or_missing_base_value_is_replaced_not_merged() -> None:
    assert merge_parameters({"x": None}, {"x": {"y": 1}}) == {"x": {"y": 1}}
    assert merge_parameters({}, {"x": [1]}) == {"x": [1]}
    # Different kinds: the override wins as a whole.
    assert merge_parameters({"x": [1]}, {"x": {"y": 1}}) == {"x": {"y": 1}}
    assert merge_parameters({"x": {"y": 1}}, {"x": 5}) == {"x": 5}
