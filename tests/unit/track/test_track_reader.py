"""Track-format rules applied when building the model (Rally's TrackSpecificationReader rules)."""

from __future__ import annotations

from typing import Any

import pytest
from track_test_helpers import simple_track

from esbench.driver.worker.looplimits import loop_limits
from esbench.exceptions import NotFound, TrackValidationError
from esbench.track import load_track
from esbench.track.model import Parallel, Throughput


def _load(make_track, spec: dict[str, Any], files: dict[str, Any] | None = None, *, dirname: str = "t", **kw):
    return load_track(path=make_track({"track.json": spec, **(files or {})}, name=dirname), **kw)


def _schedule_track(*items: Any, **overrides: Any) -> dict[str, Any]:
    return simple_track(schedule=list(items), **overrides)


def test_corpus_defaults_apply_to_documents_and_target_index_defaults_to_only_index(make_track) -> None:
    spec = simple_track(
        corpora=[
            {
                "name": "c",
                "base-url": "https://example.invalid/c",
                "includes-action-and-meta-data": False,
                "meta": {"m": 1},
                "documents": [
                    {
                        "source-file": "a.json.bz2",
                        "document-count": 5,
                        "compressed-bytes": 10,
                        "uncompressed-bytes": 20,
                    },
                    {
                        "source-file": "b.json",
                        "document-count": 7,
                        "base-url": "https://other.invalid",
                        "meta": {"x": 2},
                    },
                    {"source-file": "c.json", "document-count": 9, "includes-action-and-meta-data": True},
                ],
            }
        ]
    )
    corpus = _load(make_track, spec).corpora[0]
    a, b, c = corpus.documents
    assert (a.base_url, a.target_index, a.compressed_bytes, a.uncompressed_bytes) == (
        "https://example.invalid/c",
        "idx",
        10,
        20,
    )
    assert (b.base_url, b.meta, b.target_index) == ("https://other.invalid", {"x": 2}, "idx")
    assert (c.includes_action_and_meta_data, c.target_index) == (True, None)
    assert corpus.meta == {"m": 1}
    assert corpus.root is not None


def test_several_indices_need_a_target_index(make_track) -> None:
    spec = simple_track(indices=[{"name": "a"}, {"name": "b"}])
    with pytest.raises(TrackValidationError, match=r"\$.corpora\[0\].documents\[0\].*no target-index"):
        _load(make_track, spec)


def test_data_stream_target_and_exclusivity(make_track) -> None:
    spec = simple_track(indices=None, **{"data-streams": [{"name": "logs-x"}]})
    assert _load(make_track, spec).corpora[0].documents[0].target_data_stream == "logs-x"
    both = simple_track(**{"data-streams": [{"name": "logs-x"}]})
    with pytest.raises(TrackValidationError, match="cannot both be given"):
        _load(make_track, both)


def test_duplicate_corpus_name(make_track) -> None:
    corpus = {"name": "c", "documents": [{"source-file": "d.json", "document-count": 1}]}
    with pytest.raises(TrackValidationError, match=r"\$.corpora\[1\].name: duplicate corpus name 'c'"):
        _load(
            make_track,
            simple_track(
                corpora=[corpus, {**corpus, "documents": [{"source-file": "e.json", "document-count": 2}]}]
            ),
        )


def test_exactly_one_of_challenges_challenge_schedule(make_track) -> None:
    with pytest.raises(TrackValidationError, match="neither 'challenges', 'challenge' nor 'schedule'"):
        _load(make_track, simple_track(schedule=None))
    both = simple_track(challenge={"name": "x", "schedule": [{"operation": "refresh"}]})
    with pytest.raises(TrackValidationError, match="only one of them is allowed"):
        _load(make_track, both)


def test_schedule_only_track_gets_a_default_challenge(make_track) -> None:
    track = _load(make_track, simple_track())
    assert [c.name for c in track.challenges] == ["default"]
    assert track.default_challenge.default


def _challenges(*challenges: dict[str, Any]) -> dict[str, Any]:
    return simple_track(schedule=None, challenges=list(challenges))


def _c(name: str, **kw: Any) -> dict[str, Any]:
    return {"name": name, "schedule": [{"operation": "refresh"}], **kw}


def test_default_challenge_rules(make_track) -> None:
    track = _load(make_track, _challenges(_c("a"), _c("b", default=True)))
    assert track.default_challenge.name == "b"
    assert track.find_challenge("a").name == "a"
    with pytest.raises(NotFound, match=r"no challenge 'zz'.*a, b"):
        track.find_challenge("zz")
    # A single challenge is the default even without "default": true.
    assert _load(make_track, _challenges(_c("only")), dirname="t2").default_challenge.name == "only"


@pytest.mark.parametrize(
    ("challenges", "match"),
    [
        ((_c("a"), _c("b")), "no challenge is marked as default"),
        ((_c("a", default=True), _c("b", default=True)), "both 'a' and 'b' are marked as default"),
        ((_c("a", default=True), _c("a")), "duplicate challenge name 'a'"),
    ],
)
def test_default_challenge_errors(make_track, challenges: tuple, match: str) -> None:
    with pytest.raises(TrackValidationError, match=match):
        _load(make_track, _challenges(*challenges))


def test_challenge_parameters_merge_over_track_parameters(make_track) -> None:
    spec = _challenges(_c("a", parameters={"x": {"b": 2}, "l": [2, 3], "s": "c"}))
    spec["parameters"] = {"x": {"a": 1}, "l": [1, 2], "s": "t", "t": 0}
    params = _load(make_track, spec).default_challenge.parameters
    assert params == {"x": {"a": 1, "b": 2}, "l": [1, 2, 3], "s": "c", "t": 0}


def test_operation_references(make_track) -> None:
    spec = _schedule_track(
        {"operation": "q"},
        {"operation": "force-merge"},
        {"operation": {"operation-type": "search", "index": "x"}, "name": "inline"},
        {"operation": {"operation-type": "sleep", "duration": 1}},
        operations=[{"name": "q", "operation-type": "search", "param-source": "my-source", "meta": {"k": 1}}],
    )
    tasks = _load(make_track, spec).default_challenge.tasks()
    assert [t.name for t in tasks] == ["q", "force-merge", "inline", "sleep"]
    q, fm, inline, sleep = tasks
    assert (q.operation.name, q.operation.param_source, q.operation.meta) == ("q", "my-source", {"k": 1})
    assert (fm.operation.name, fm.operation.operation_type, fm.operation.params) == (
        "force-merge",
        "force-merge",
        {"include-in-reporting": False},
    )
    assert inline.operation.name == "search"
    assert inline.operation.params["index"] == "x"
    assert (sleep.operation.include_in_reporting, q.operation.include_in_reporting) == (False, True)


def test_include_in_reporting_can_be_overridden(make_track) -> None:
    spec = _schedule_track(
        {"operation": {"operation-type": "refresh", "include-in-reporting": True}},
        {"operation": {"operation-type": "search", "include-in-reporting": False}},
        {"operation": {"operation-type": "my-plugin-type"}},
    )
    tasks = _load(make_track, spec).default_challenge.tasks()
    assert [t.operation.include_in_reporting for t in tasks] == [True, False, True]


def test_unknown_bare_operation_is_an_error_unless_the_track_has_plugins(make_track) -> None:
    spec = _schedule_track(
        {"operation": "serch"}, operations=[{"name": "my-query", "operation-type": "search"}]
    )
    with pytest.raises(TrackValidationError) as e:
        _load(make_track, spec)
    assert "$.schedule[0].operation" in str(e.value)
    assert "Did you mean 'search'" in str(e.value)
    assert "Defined operations: my-query" in str(e.value)
    track = _load(make_track, spec, {"track.py": "def register(registry):\n    pass\n"}, dirname="t2")
    assert track.default_challenge.tasks()[0].operation.operation_type == "serch"


def test_task_names_must_be_unique(make_track) -> None:
    with pytest.raises(TrackValidationError, match=r"\$.schedule\[1\].*more than one task named 'refresh'"):
        _load(make_track, _schedule_track({"operation": "refresh"}, {"operation": "refresh"}))


def test_task_scheduling_fields(make_track) -> None:
    spec = _schedule_track(
        {
            "operation": "search",
            "clients": 4,
            "warmup-iterations": 10,
            "iterations": 20,
            "target-throughput": "500 docs/s",
            "tags": "a",
            "meta": {"m": 1},
            "schedule": "poisson",
            "custom": "x",
        },
        {"operation": "refresh", "warmup-time-period": 10, "time-period": 60, "target-throughput": 50},
        {"operation": "force-merge", "target-interval": 4, "tags": ["x", "y"]},
        {"operation": "node-stats", "target-throughput": 0},
    )
    a, b, c, d = _load(make_track, spec).default_challenge.tasks()
    assert (a.clients, a.warmup_iterations, a.iterations) == (4, 10, 20)
    assert a.target_throughput == Throughput(value=500.0, unit="docs/s")
    assert (a.tags, a.meta, a.schedule, a.params["custom"]) == (("a",), {"m": 1}, "poisson", "x")
    assert (b.warmup_time_period, b.time_period, b.target_throughput) == (10.0, 60.0, Throughput(value=50.0))
    assert c.target_interval == 4.0
    assert c.target_throughput == Throughput(value=0.25, unit="ops/s")
    assert c.tags == ("x", "y")
    assert (d.target_throughput, d.throttled) == (None, False)
    assert a.throttled and c.throttled


@pytest.mark.parametrize(
    ("task", "match"),
    [
        ({"warmup-iterations": 1, "time-period": 10}, "defines 1 warmup iterations and a time period of 10"),
        (
            {"warmup-time-period": 1, "iterations": 10},
            "defines a warmup time period of 1 s and 10 iterations",
        ),
        ({"ramp-up-time-period": 10}, "no warmup-time-period"),
        ({"ramp-up-time-period": 10, "warmup-time-period": 5}, "shorter than its ramp-up-time-period"),
        ({"ramp-up-time-period": 10, "iterations": 5}, "ramp-up-time-period with iterations"),
        ({"target-throughput": "fast"}, "invalid target throughput"),
        ({"target-throughput": 5, "target-interval": 1}, "both target-throughput and target-interval"),
    ],
)
def test_task_errors(make_track, task: dict[str, Any], match: str) -> None:
    with pytest.raises(TrackValidationError, match=match):
        _load(make_track, _schedule_track({"operation": "search", **task}))


@pytest.mark.parametrize(
    "task", [{"iterations": 100, "time-period": 10}, {"warmup-iterations": 5, "warmup-time-period": 2}]
)
def test_iterations_beside_time_periods_load_as_in_rally(make_track, task: dict[str, Any]) -> None:
    """Rally refuses only warmup iterations with a time period and a warmup time period with
    iterations (rally-tracks' tsdb_k8s_queries gives iterations and a time period); the task is
    time-based, as Rally's schedule_for runs it."""
    loaded = _load(make_track, _schedule_track({"operation": "search", **task})).default_challenge.tasks()[0]
    assert (loaded.warmup_iterations, loaded.iterations) == (
        task.get("warmup-iterations"),
        task.get("iterations"),
    )
    # The time-based branch decides before it looks at the runner or the param source.
    assert loop_limits(loaded, None, None) == (True, None, 0)  # type: ignore[arg-type]


def test_ramp_up_with_enough_warmup(make_track) -> None:
    spec = _schedule_track(
        {"operation": "search", "ramp-up-time-period": 10, "warmup-time-period": 10, "time-period": 30}
    )
    assert _load(make_track, spec).default_challenge.tasks()[0].ramp_up_time_period == 10.0


def test_parallel_defaults_and_completed_by(make_track) -> None:
    spec = _schedule_track(
        {
            "parallel": {
                "clients": 3,
                "warmup-time-period": 20,
                "time-period": 100,
                "ramp-up-time-period": 10,
                "completed-by": "index",
                "tasks": [
                    {"name": "index", "operation": "bulk"},
                    {"operation": "search", "time-period": 50, "clients": 2},
                ],
            }
        },
        {
            "parallel": {
                "iterations": 5,
                "completed-by": "any",
                "tasks": [{"name": "s2", "operation": "search"}, {"operation": "refresh"}],
            }
        },
    )
    block, anyblock = _load(make_track, spec).default_challenge.schedule
    assert isinstance(block, Parallel) and isinstance(anyblock, Parallel)
    index, search = block.tasks
    assert block.clients == 3 and anyblock.clients is None
    assert (index.warmup_time_period, index.time_period, index.ramp_up_time_period) == (20.0, 100.0, 10.0)
    assert (search.time_period, search.clients) == (50.0, 2)
    assert (index.completes_parent, search.completes_parent) == (True, False)
    assert all(t.any_completes_parent and t.iterations == 5 for t in anyblock.tasks)
    assert block.name == "parallel(index, search)"


@pytest.mark.parametrize(
    ("parallel", "match"),
    [
        ({"completed-by": "nope", "tasks": [{"operation": "search"}]}, "no such task"),
        (
            {"tasks": [{"operation": "search", "ramp-up-time-period": 5, "warmup-time-period": 5}]},
            "only allowed on the 'parallel'",
        ),
        ({"tasks": [{"parallel": {"tasks": [{"operation": "search"}]}}]}, "cannot be nested"),
    ],
)
def test_parallel_errors(make_track, parallel: dict[str, Any], match: str) -> None:
    with pytest.raises(TrackValidationError, match=match):
        _load(make_track, _schedule_track({"parallel": parallel}))


def test_templates_and_template_path(make_track) -> None:
    spec = simple_track(
        templates=[{"name": "legacy", "index-pattern": "l-*", "template": "t/legacy.json"}],
        **{
            "composable-templates": [
                {
                    "name": "comp",
                    "index-pattern": "c-*",
                    "template": "t/comp.json",
                    "template-path": "outer.inner",
                    "delete-matching-indices": False,
                }
            ],
            "component-templates": [{"name": "part", "template": "t/part.json"}],
        },
    )
    files = {
        "t/legacy.json": '{"index_patterns": ["l-*"], "settings": {"n": {{ n | default(1) }}}}',
        "t/comp.json": '{"outer": {"inner": {"index_patterns": ["c-*"]}, "other": 1}}',
        "t/part.json": '{"template": {"settings": {}}, "flavor": "{{ build_flavor }}"}',
    }
    track = _load(make_track, spec, files, params={"n": 2})
    (legacy,), (comp,), (part,) = track.templates, track.composable_templates, track.component_templates
    assert (legacy.pattern, legacy.delete_matching_indices, legacy.content["settings"]) == (
        "l-*",
        True,
        {"n": 2},
    )
    assert (comp.content, comp.template_path, comp.delete_matching_indices) == (
        {"index_patterns": ["c-*"]},
        "outer.inner",
        False,
    )
    assert (part.pattern, part.content["flavor"]) == (None, "default")


def test_template_path_must_exist(make_track) -> None:
    spec = simple_track(
        **{"component-templates": [{"name": "p", "template": "p.json", "template-path": "nope"}]}
    )
    with pytest.raises(TrackValidationError, match=r"component-templates\[0\].template-path.*no key 'nope'"):
        _load(make_track, spec, {"p.json": "{}"})


def test_missing_body_file(make_track) -> None:
    spec = simple_track(indices=[{"name": "i", "body": "missing.json"}])
    with pytest.raises(TrackValidationError, match=r"'missing.json', which does not exist"):
        _load(make_track, spec)


def test_track_metadata(make_track) -> None:
    spec = simple_track(description="d", meta={"a": 1}, dependencies=["x==1"])
    track = _load(make_track, spec)
    assert (track.name, track.description, track.meta, track.dependencies) == ("t", "d", {"a": 1}, ("x==1",))
