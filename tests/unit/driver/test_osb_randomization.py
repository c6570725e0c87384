"""OSB's query randomization: esbench's randomizer against OSB 2.4.0's own
(``QueryRandomizerWorkloadProcessor`` run in OSB's venv by ``osb_oracle_script.py``), the
option table's settings, and the registry's wiring from an OSB plugin's
``register_standard_value_source`` to the param source a search task gets."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import click
import pytest
from test_osb_oracle import OSB_PYTHON, run_osb

from esbench.cli.options.randomization import RANDOMIZATION_OPTIONS, pop_query_randomization
from esbench.compat.osbregistry import WorkloadRegistry
from esbench.driver.settings import QueryRandomization
from esbench.driver.worker.params.randomized import (
    DEFAULT_INFO,
    RandomizedSearchParamSource,
    Zipf,
    prepare_randomized_search,
    range_fields,
)
from esbench.driver.worker.registry import default_registry
from esbench.exceptions import ConfigError
from esbench.track.model import Challenge, Operation, Task, Track

QUERY: dict[str, Any] = {
    "body": {
        "query": {
            "bool": {
                "filter": [
                    {
                        "range": {
                            "timestamp": {"gte": "2020-01-01", "lt": "2020-02-01", "format": "yyyy-MM-dd"}
                        }
                    },
                    {"term": {"status": 200}},
                    {"range": {"size": {"gt": 1, "lte": 9}, "other": {"gte": 1}}},
                ]
            }
        }
    }
}


def _counter_source() -> Any:
    counter = itertools.count()
    return lambda: (lambda v: {"gte": v, "lte": v + 100})(next(counter))


@pytest.mark.skipif(not OSB_PYTHON.exists(), reason=f"OSB 2.4.0's Python is not at {OSB_PYTHON}")
@pytest.mark.parametrize(("rf", "alpha"), [(0.3, 1.0), (0.9, 2.0), (0.0, 1.0)])
def test_randomized_params_are_osbs_for_the_same_random_sequence(
    tmp_path: Path, rf: float, alpha: float
) -> None:
    n, seed, calls = 20, 7, 40
    scenario = {
        "randomize": QUERY,
        "op_name": "range-q",
        "rf": rf,
        "n": n,
        "alpha": alpha,
        "seed": seed,
        "calls": calls,
    }
    [theirs] = run_osb([scenario], tmp_path)
    fields = range_fields(QUERY["body"]["query"], DEFAULT_INFO)
    sources = {("range-q", name): _counter_source() for name, _ in fields}
    randomized = prepare_randomized_search(
        "range-q",
        json.loads(json.dumps(QUERY)),
        sources=sources,
        info=DEFAULT_INFO,
        n=n,
        repeat_frequency=rf,
        alpha=alpha,
    )
    track = Track(name="t", root=Path("."), challenges=())
    source = RandomizedSearchParamSource(
        track, json.loads(json.dumps(QUERY)), randomized=randomized, rng=random.Random(seed)
    )
    ours = [json.loads(json.dumps(source.params())) for _ in range(calls)]
    assert ours == theirs["params"]
    # The bounds did change (a randomizer that did nothing would match a broken oracle run too).
    assert len({json.dumps(p) for p in ours}) > 1


def test_zipf_favours_the_first_index_and_covers_the_last():
    zipf = Zipf(4, 1.0)
    # H(1..4) = 1, 1.5, 1.833, 2.083: the cut points H(k)/H(4) are 0.48, 0.72 and 0.88.
    assert [zipf.index(u) for u in (0.0, 0.47, 0.49, 0.71, 0.73, 0.87, 0.89, 0.99)] == [
        0,
        0,
        1,
        1,
        2,
        2,
        3,
        3,
    ]


def test_range_fields_need_one_name_of_each_group():
    fields = range_fields(QUERY["body"]["query"], DEFAULT_INFO)
    assert [name for name, _ in fields] == ["timestamp", "size"]
    assert fields[0][1] == ("bool", "filter", 0, "range")


def _track(op: Operation) -> Track:
    task = Task(name=op.name, operation=op)
    return Track(name="t", root=Path("."), challenges=(Challenge(name="c", schedule=(task,), default=True),))


def test_a_plugins_value_source_feeds_the_search_tasks_param_source():
    registry = default_registry()
    WorkloadRegistry(registry).register_standard_value_source("q", "timestamp", _counter_source())
    op = Operation(
        name="q",
        operation_type="search",
        params={"index": "logs", "body": {"query": {"range": {"timestamp": {"gte": 0, "lte": 1}}}}},
    )
    track = _track(op)
    registry.randomize_queries(track, QueryRandomization(repeat_frequency=0.0, n=3))
    source = registry.param_source(track.challenges[0].schedule[0], track).partition(0, 1)
    bounds = [dict(source.params()["body"]["query"]["range"]["timestamp"]) for _ in range(2)]
    # 3 standard values were drawn at load time, so fresh values start at 3.
    assert bounds == [{"gte": 3, "lte": 103}, {"gte": 4, "lte": 104}]
    copy = registry.copy()
    assert isinstance(copy.param_source(track.challenges[0].schedule[0], track), RandomizedSearchParamSource)


def test_a_range_field_without_value_source_is_refused_with_the_fix():
    registry = default_registry()
    op = Operation(
        name="q", operation_type="search", params={"body": {"query": {"range": {"ts": {"gt": 0, "lt": 1}}}}}
    )
    with pytest.raises(ConfigError, match=r"register_standard_value_source\('q', 'ts'"):
        registry.randomize_queries(_track(op), QueryRandomization())


def test_the_options_fill_the_settings_only_when_enabled():
    defaults = {e.name: e.default for e in RANDOMIZATION_OPTIONS}
    assert pop_query_randomization(dict(defaults)) is None
    opts = {**defaults, "randomization_enabled": True, "randomization_n": 10, "randomization_alpha": 2.5}
    assert pop_query_randomization(opts) == QueryRandomization(repeat_frequency=0.3, n=10, alpha=2.5)
    assert opts == {}
    rf = next(e for e in RANDOMIZATION_OPTIONS if e.name == "randomization_repeat_frequency")
    with pytest.raises(click.BadParameter):
        rf.click_option().type_cast_value(click.Context(click.Command("race")), "1.5")
