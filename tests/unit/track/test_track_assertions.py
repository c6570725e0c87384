"""Task assertions (``esbench.track.assertions``): conditions, dotted properties, Rally's failure
text, and the errors of malformed assertions."""

from __future__ import annotations

import pytest

from esbench.exceptions import TrackValidationError
from esbench.track.assertions import Assertion, Condition, MissingProperty, parse_assertions


def one(prop: str, condition: str, value: object) -> Assertion:
    (parsed,) = parse_assertions([{"property": prop, "condition": condition, "value": value}], where="op 'x'")
    return parsed


@pytest.mark.parametrize(
    ("condition", "below", "equal", "above"),
    [
        (">", False, False, True),
        (">=", False, True, True),
        ("<", True, False, False),
        ("<=", True, True, False),
        ("==", False, True, False),
    ],
)
def test_each_condition_compares_the_value_seen_with_the_expected_one(condition, below, equal, above):
    # The value seen is on the left (Rally: predicate(expected, actual) -> actual > expected).
    assertion = one("hits", condition, 10)
    assert [assertion.holds(9), assertion.holds(10), assertion.holds(11)] == [below, equal, above]


def test_floats_and_ints_compare_as_numbers():
    assert one("took", "<", 2.5).holds(2)
    assert one("hits", "==", 3).holds(3.0)


def test_equality_takes_any_json_value():
    assert one("timed_out", "==", False).holds(False)
    assert not one("timed_out", "==", False).holds(True)
    assert one("hits_relation", "==", "eq").holds("eq")
    assert one("shards", "==", {"a": [1, 2]}).holds({"a": [1, 2]})


def test_an_ordering_condition_on_a_value_that_is_not_a_number_is_a_type_error():
    for seen in (None, "3", True, [3], float("nan")):
        with pytest.raises(TypeError, match="not a number"):
            one("hits", ">", 3).holds(seen)


def test_a_dotted_property_walks_nested_objects():
    response = {"hits": 7, "a": {"b": {"c": 42}}, "weight": 1}
    assert one("a.b.c", "==", 42).extract(response) == 42
    assert one("a.b", "==", 0).extract(response) == {"c": 42}
    assert one("hits", "==", 7).extract(response) == 7


def test_a_missing_property_says_where_the_path_stops_and_what_keys_there_are():
    response = {"hits": 7, "a": {"b": 1}}
    with pytest.raises(MissingProperty, match=r"no \[took\] in the response \(its keys: a, hits\)"):
        one("took", "==", 1).extract(response)
    with pytest.raises(MissingProperty, match=r"no \[x\] under \[a\] \(its keys: b\)"):
        one("a.x", "==", 1).extract(response)
    with pytest.raises(MissingProperty, match=r"\[a.b\] is int 1, not an object with the key \[c\]"):
        one("a.b.c", "==", 1).extract(response)


def test_the_failure_text_is_rallys():
    # esrally/driver/runner.py AssertingRunner.check_assertion: "in [name]" only when the runner's
    # params carry the operation's name.
    assertion = one("hits", ">", 3)
    assert assertion.failure(3, operation=None) == "Expected [hits] to be > [3] but was [3]."
    assert (
        one("weight", ">", 100).failure(3, operation="load")
        == "Expected [weight] in [load] to be > [100] but was [3]."
    )
    assert one("timed_out", "==", False).failure(True, operation=None) == (
        "Expected [timed_out] to be == [False] but was [True]."
    )


def test_parse_keeps_the_order_and_the_values():
    parsed = parse_assertions(
        [
            {"property": "hits", "condition": "==", "value": 10000},
            {"property": "took", "condition": "<", "value": 500},
        ],
        where="op",
    )
    assert parsed == (
        Assertion(property="hits", condition=Condition.EQUAL, value=10000),
        Assertion(property="took", condition=Condition.LESS, value=500),
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"property": "hits"}, r"operation 'term': 'assertions' must be a list"),
        (["hits > 3"], r"operation 'term': assertions\[0\] must be an object"),
        ([{"property": "hits", "value": 3}], r"assertions\[0\] has no 'condition'"),
        (
            [{"property": "hits", "condition": ">", "value": 1}, {"condition": ">", "value": 1}],
            r"assertions\[1\] has no 'property'",
        ),
        (
            [{"property": "hits", "condition": "!=", "value": 3}],
            r"assertions\[0\]\.condition is str '!='; use one of >, >=, <, <=, ==",
        ),
        (
            [{"property": "hits", "condition": ">", "value": "3"}],
            r"assertions\[0\]\.value must be a number for the condition >",
        ),
        (
            [{"property": "a..b", "condition": "==", "value": 3}],
            r"assertions\[0\]\.property must be a dotted path",
        ),
        (
            [{"property": "", "condition": "==", "value": 3}],
            r"assertions\[0\]\.property must be a dotted path",
        ),
        ([{"property": "hits", "condition": "==", "value": 3, "message": "m"}], r"unknown key\(s\) message"),
    ],
)
def test_a_malformed_assertion_names_the_operation_and_the_json_path(spec, message):
    with pytest.raises(TrackValidationError, match=message):
        parse_assertions(spec, where="operation 'term'")
