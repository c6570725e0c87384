"""The static analysis of a track: what it needs, with the task or index that needs it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from esbench.requirements.catalog import Kind, analysis_provider
from esbench.requirements.needs import UNKNOWN_MODULE, Need, track_needs
from esbench.track import load_track
from esbench.track.model import Challenge, Index, IndexTemplate, Operation, Task, Track

RESOURCES = Path(__file__).resolve().parents[2] / "resources" / "requirements"


def task(name: str, op_type: str, **params: Any) -> Task:
    return Task(name=name, operation=Operation(name=name, operation_type=op_type, params=params))


def make_track(*tasks: Task, **fields: Any) -> Track:
    return Track(
        name="t",
        root=Path("."),
        challenges=(Challenge(name="c", schedule=tasks, default=True),),
        **fields,
    )


def found(track: Track) -> set[tuple[str, str, str]]:
    return {(n.module, n.feature, n.where) for n in track_needs(track)}


def test_pipeline_processors_nested_processors_conditions_and_scripts() -> None:
    body = {
        "processors": [
            {"set": {"field": "a", "value": 1, "if": "ctx.b != null"}},
            {"grok": {"field": "m", "patterns": ["%{IP:ip}"], "on_failure": [{"fail": {"message": "x"}}]}},
            {"foreach": {"field": "list", "processor": {"geoip": {"field": "_ingest._value"}}}},
            {"script": {"lang": "expression", "source": "doc['a'].value * 2"}},
            {"my_plugin_processor": {}},
        ],
        "on_failure": [{"user_agent": {"field": "ua"}}],
    }
    needs = track_needs(make_track(task("pipe", "put-pipeline", id="p", body=body)))
    where = "task 'pipe'"
    assert {(n.module, n.feature) for n in needs} == {
        ("ingest-common", "ingest processor 'set'"),
        ("lang-painless", "painless condition"),
        ("ingest-common", "ingest processor 'grok'"),
        ("ingest-common", "ingest processor 'fail'"),
        ("ingest-common", "ingest processor 'foreach'"),
        ("ingest-geoip", "ingest processor 'geoip'"),
        ("ingest-common", "ingest processor 'script'"),
        ("lang-expression", "expression script processor"),
        (UNKNOWN_MODULE, "ingest processor 'my_plugin_processor'"),
        ("ingest-user-agent", "ingest processor 'user_agent'"),
    }
    assert all(n.where == where for n in needs)
    # Processors carry their type, so the check can use the cluster's own processor list.
    assert {n.processor for n in needs if n.processor} >= {"set", "grok", "my_plugin_processor"}


def test_scripts_in_search_bodies_by_language() -> None:
    body = {
        "query": {"bool": {"filter": [{"script": {"script": {"source": "doc['x'].value > 1"}}}]}},
        "script_fields": {"f": {"script": {"source": "1", "lang": "expression"}}},
        "runtime_mappings": {"r": {"type": "long", "script": "emit(1)"}},
        "aggs": {"m": {"scripted_metric": {"init_script": "state.x = 0", "map_script": "state.x++"}}},
    }
    needs = found(make_track(task("s", "search", index="i", body=body)))
    assert needs == {
        ("lang-painless", "painless script", "task 's'"),
        ("lang-expression", "expression script", "task 's'"),
    }


@pytest.mark.parametrize(
    "body",
    [
        {"query": {"term": {"script": "x"}}},  # a field called "script"
        {"query": {"match": {"script": "hello"}}},
        {"script_fields": {"f": {"script": {"id": "stored"}}}},  # a stored script: language unknown
        {"query": {"match_all": {}}, "sort": [{"script": {"order": "asc"}}]},  # sort on a field "script"
    ],
)
def test_things_that_look_like_scripts_but_are_not(body: dict[str, Any]) -> None:
    assert track_needs(make_track(task("s", "search", body=body))) == ()


def test_index_analysis_by_name_by_type_and_locally_defined() -> None:
    body = {
        "settings": {
            "index": {
                "analysis": {
                    "analyzer": {
                        "folded": {
                            "tokenizer": "standard",
                            "filter": ["lowercase", "asciifolding", "my_syn"],
                        },
                        "kw": {"type": "custom", "tokenizer": "keyword", "char_filter": ["html_strip"]},
                        "std": {"type": "standard", "stopwords": "_english_"},
                        "icu": {"type": "icu_analyzer"},
                    },
                    "filter": {
                        "my_syn": {"type": "synonym", "synonyms": ["a, b"]},
                        "lc": {"type": "lowercase"},
                    },
                    "normalizer": {"lower": {"type": "custom", "filter": ["lowercase"]}},
                },
                "lifecycle": {"name": "hot-warm"},
            }
        },
        "mappings": {
            "properties": {
                "title": {"type": "text", "analyzer": "english", "fields": {"raw": {"type": "keyword"}}},
                "body": {"type": "text", "analyzer": "folded", "search_analyzer": "whitespace"},
                "tag": {"type": "keyword", "normalizer": "lower"},
                "price": {"type": "scaled_float", "scaling_factor": 100},
                "obj": {"properties": {"n": {"type": "text", "search_quote_analyzer": "snowball"}}},
                "computed": {"type": "long", "script": {"source": "emit(1)"}},
            }
        },
    }
    track = make_track(task("create", "create-index"), indices=(Index(name="docs", body=body),))
    where = "index 'docs'"
    assert found(track) == {
        ("x-pack-ilm", "setting 'index.lifecycle.name'", where),
        ("analysis-common", "token filter 'asciifolding'", where),
        ("analysis-common", "tokenizer 'keyword'", where),
        ("analysis-common", "char filter 'html_strip'", where),
        ("analysis-icu", "analyzer type 'icu_analyzer' (defined as 'icu')", where),
        ("analysis-common", "token filter type 'synonym' (defined as 'my_syn')", where),
        # "lowercase" by name is the server's pre-configured filter; as a type it is analysis-common's.
        ("analysis-common", "token filter type 'lowercase' (defined as 'lc')", where),
        ("analysis-common", "analyzer 'english'", where),
        ("mapper-extras", "field type 'scaled_float'", where),
        ("analysis-common", "analyzer 'snowball'", where),
        ("lang-painless", "painless script", where),
    }


def test_create_index_only_counts_the_indices_it_creates() -> None:
    english = {"mappings": {"properties": {"t": {"type": "text", "analyzer": "english"}}}}
    indices = (Index(name="a", body=english), Index(name="b", body=english))
    only_b = make_track(task("create-b", "create-index", index="b"), indices=indices)
    assert found(only_b) == {("analysis-common", "analyzer 'english'", "index 'b'")}
    inline = make_track(task("create-x", "create-index", index="x", body=english))
    assert found(inline) == {("analysis-common", "analyzer 'english'", "index 'x'")}
    no_task = make_track(task("s", "search", body={}), indices=indices)
    assert found(no_task) == set()


def test_templates_and_data_stream_lifecycle() -> None:
    composable = IndexTemplate(
        name="logs",
        pattern="logs-*",
        content={
            "index_patterns": ["logs-*"],
            "data_stream": {},
            "template": {
                "lifecycle": {"data_retention": "7d"},
                "mappings": {"properties": {"m": {"type": "match_only_text"}}},
            },
        },
    )
    component = IndexTemplate(
        name="analysis",
        content={"template": {"settings": {"analysis": {"analyzer": {"a": {"type": "french"}}}}}},
    )
    legacy = IndexTemplate(name="old", pattern="old-*", content={"settings": {"index.lifecycle.name": "p"}})
    track = make_track(
        task("ct", "create-composable-template"),
        task("cc", "create-component-template"),
        task("cl", "create-index-template"),
        composable_templates=(composable,),
        component_templates=(component,),
        templates=(legacy,),
    )
    assert found(track) == {
        ("mapper-extras", "field type 'match_only_text'", "composable template 'logs'"),
        ("data-streams", "data stream lifecycle", "composable template 'logs'"),
        ("analysis-common", "analyzer type 'french' (defined as 'a')", "component template 'analysis'"),
        ("x-pack-ilm", "setting 'index.lifecycle.name'", "index template 'old'"),
    }


def test_operations_and_raw_requests_served_by_modules() -> None:
    track = make_track(
        task("ds", "create-data-stream", **{"data-stream": "logs-x"}),
        task("ilm", "create-ilm-policy", **{"policy-name": "p", "body": {}}),
        task("job", "create-ml-job", **{"job-id": "j", "body": {}}),
        task("tf", "create-transform", **{"transform-id": "t", "body": {}}),
        task("raw-ml", "raw-request", path="/_ml/anomaly_detectors/j/_open", method="POST"),
        task(
            "raw-pipe",
            "raw-request",
            path="_ingest/pipeline/p",
            method="PUT",
            body={"processors": [{"kv": {"field": "m", "field_split": " ", "value_split": "="}}]},
        ),
        task("raw-search", "raw-request", path="/i/_search", body={"script_fields": {"x": {"script": "1"}}}),
    )
    assert found(track) == {
        ("data-streams", "operation type 'create-data-stream'", "task 'ds'"),
        ("x-pack-ilm", "operation type 'create-ilm-policy'", "task 'ilm'"),
        ("x-pack-ml", "operation type 'create-ml-job'", "task 'job'"),
        ("x-pack-transform", "operation type 'create-transform'", "task 'tf'"),
        ("x-pack-ml", "API /_ml", "task 'raw-ml'"),
        ("ingest-common", "ingest processor 'kv'", "task 'raw-pipe'"),
        ("lang-painless", "painless script", "task 'raw-search'"),
    }


def test_only_the_given_tasks_and_no_duplicates() -> None:
    pipe = {"processors": [{"set": {"field": "a", "value": 1}}, {"set": {"field": "b", "value": 2}}]}
    first = task("pipe", "put-pipeline", body=pipe)
    second = task("painless", "search", body={"script_fields": {"x": {"script": "1"}}})
    track = make_track(first, second)
    assert track_needs(track) == (
        Need(module="ingest-common", feature="ingest processor 'set'", where="task 'pipe'", processor="set"),
        Need(module="lang-painless", feature="painless script", where="task 'painless'"),
    )
    assert [n.where for n in track_needs(track, tasks=[second])] == ["task 'painless'"]


def test_fixture_tracks_and_the_builtin_eventdata_track() -> None:
    needs = found(load_track(path=RESOURCES / "needs-modules"))
    assert needs == {
        ("analysis-common", "token filter 'asciifolding'", "index 'req-docs'"),
        ("analysis-common", "analyzer 'english'", "index 'req-docs'"),
        ("ingest-common", "ingest processor 'set'", "task 'put-log-pipeline'"),
        ("ingest-common", "ingest processor 'grok'", "task 'put-log-pipeline'"),
        ("lang-painless", "painless script", "task 'scripted-search'"),
    }
    assert track_needs(load_track(path=RESOURCES / "needs-nothing")) == ()
    assert track_needs(load_track(name="eventdata")) == ()


@pytest.mark.parametrize(
    ("kind", "name", "by_type", "expected"),
    [
        (Kind.ANALYZER, "standard", True, None),
        (Kind.ANALYZER, "classic", False, None),
        (Kind.ANALYZER, "english", False, "analysis-common"),
        (Kind.TOKENIZER, "standard", False, None),
        (Kind.TOKENIZER, "whitespace", False, "analysis-common"),
        (Kind.FILTER, "lowercase", False, None),
        (Kind.FILTER, "lowercase", True, "analysis-common"),
        (Kind.FILTER, "shingle", True, None),
        (Kind.CHAR_FILTER, "kuromoji_iteration_mark", False, "analysis-kuromoji"),
        (Kind.FILTER, "made_up_by_a_plugin", False, None),
    ],
)
def test_analysis_provider(kind: Kind, name: str, by_type: bool, expected: str | None) -> None:
    assert analysis_provider(kind, name, by_type=by_type) == expected
