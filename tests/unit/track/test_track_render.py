"""The Jinja environment: collect pre-inclusion, helpers, globals, filters, error locations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from esbench.exceptions import TrackSyntaxError
from esbench.track import dates, render_track_source
from esbench.track.assemble import assemble_file
from esbench.track.render import (
    fragment_environment,
    referenced_variables,
    render_assembled,
    track_environment,
)


def _render(root: Path, params: dict | None = None, **kw) -> dict:
    return json.loads(render_track_source(path=root, params=params or {}, clock=lambda: 1700000000.0, **kw))


def test_collect_is_textual_sorted_and_joined_with_comma_newline(make_track) -> None:
    root = make_track(
        {
            "track.json": '{"ops": [\n  {{ rally.collect(parts="ops/*.json") }}\n]}',
            "ops/b.json": '{"n": "b"}',
            "ops/a.json": '{"n": "a"}',
            "ops/c.txt": "not matched",
        }
    )
    source = assemble_file(root / "track.json")
    assert source.text == '{"ops": [\n  {"n": "a"},\n{"n": "b"}\n]}'
    # Line 2 of the assembled text came from ops/a.json line 1.
    assert source.origin(2) == (root / "ops" / "a.json", 1)
    assert source.origin(3) == (root / "ops" / "b.json", 1)


def test_collect_needs_spaces_inside_braces_to_be_textual(make_track) -> None:
    root = make_track({"track.json": '{{rally.collect(parts="x/*.json")}}', "x/a.json": "{}"})
    assert assemble_file(root / "track.json").text == '{{rally.collect(parts="x/*.json")}}'


def test_nested_collect_resolves_relative_to_the_glob_directory(make_track) -> None:
    root = make_track(
        {
            "track.json": '{"ops": [{{ rally.collect(parts="operations/*.json") }}]}',
            "operations/all.json": '{{ rally.collect(parts="search/*.json") }}',
            "operations/search/q1.json": '{"name": "q1"}',
            "operations/search/q2.json": '{"name": "q2"}',
        }
    )
    assert _render(root) == {"ops": [{"name": "q1"}, {"name": "q2"}]}


def test_set_in_one_part_is_visible_in_later_parts(make_track) -> None:
    root = make_track(
        {
            "track.json": """\
                {% set p_clients = (clients | default(4)) %}
                {"parts": [{{ rally.collect(parts="parts/*.json") }}]}
                """,
            "parts/a.json": '{% set p_size = 100 %}{"clients": {{ p_clients }}}',
            "parts/b.json": '{"size": {{ p_size }}, "clients": {{ p_clients }}}',
        }
    )
    assert _render(root) == {"parts": [{"clients": 4}, {"size": 100, "clients": 4}]}
    assert _render(root, {"clients": 9}) == {"parts": [{"clients": 9}, {"size": 100, "clients": 9}]}


def test_exists_set_param(make_track) -> None:
    root = make_track(
        {
            "track.json": """\
                {% import "rally.helpers" as rally with context %}
                {"a": 1 {{ rally.exists_set_param("b", b) }}
                 {{ rally.exists_set_param("c", c, default_value=3) }},
                 "d": { {{ rally.exists_set_param("e", e, comma=false) }} }}
                """
        }
    )
    assert _render(root) == {"a": 1, "c": 3, "d": {}}
    assert _render(root, {"b": {"x": [1]}, "c": None, "e": "s"}) == {
        "a": 1,
        "b": {"x": [1]},
        "c": None,
        "d": {"e": "s"},
    }


def test_runtime_collect_macro_and_glob_are_relative_to_the_track_root(make_track) -> None:
    root = make_track(
        {
            "track.json": """\
                {% import "rally.helpers" as rally with context %}
                {"ops": [{{rally.collect(parts="ops/*.json")}}], "files": {{ glob("ops/*.json") | tojson }}}
                """,
            "ops/a.json": '{"n": {{ n | default(1) }}}',
            "ops/b.json": '{"n": 2}',
        }
    )
    assert _render(root) == {"ops": [{"n": 1}, {"n": 2}], "files": ["ops/a.json", "ops/b.json"]}


def test_include_resolves_relative_to_track_root_and_sees_the_context(make_track) -> None:
    root = make_track(
        {
            "track.json": '{% set x = 5 %}{"c": {% include "challenges/c.json" %}}',
            "challenges/c.json": '{"inner": {% include "tasks/t.json" %}}',
            "tasks/t.json": '{"x": {{ x }}, "p": "{{ p | default("d") }}"}',
        }
    )
    assert _render(root, {"p": "q"}) == {"c": {"inner": {"x": 5, "p": "q"}}}


def test_internal_globals_and_date_filters(make_track) -> None:
    root = make_track(
        {
            "track.json": """\
                {"now": {{ now }}, "flavor": "{{ build_flavor }}", "op": {{ serverless_operator | tojson }},
                 "days": {{ "10-11-2023" | days_ago(now) }},
                 "start": "{{ now | get_start_date }}", "end": "{{ now | get_end_date(2, '%d/%m/%Y') }}",
                 "undefined": "{{ not_given }}"}
                """
        }
    )
    assert _render(root) == {
        "now": 1700000000.0,
        "flavor": "default",
        "op": False,
        "days": 4,
        "start": "2023-11-14",
        "end": "16/11/2023",
        "undefined": "",
    }
    rendered = _render(root, build_flavor="serverless", serverless_operator=True)
    assert (rendered["flavor"], rendered["op"]) == ("serverless", True)


def test_params_cannot_override_internal_globals(tmp_path: Path) -> None:
    env = track_environment(tmp_path, {"now": 1, "build_flavor": "x", "other": 2}, clock=lambda: 42.0)
    assert env.from_string("{{ now }} {{ build_flavor }} {{ other }}").render() == "42.0 default 2"


def test_fragment_environment_has_params_flavor_and_helpers_only() -> None:
    env = fragment_environment({"shards": 3}, build_flavor="serverless")
    text = (
        '{% import "rally.helpers" as rally %}'
        '{"s": {{ shards }}, "f": "{{ build_flavor }}"{{ rally.exists_set_param("r", 1) }}}'
    )
    assert json.loads(env.from_string(text).render()) == {"s": 3, "f": "serverless", "r": 1}
    assert env.from_string("[{{ now }}]").render() == "[]"
    with pytest.raises(Exception, match="days_ago"):
        env.from_string("{{ 1 | days_ago(2) }}").render()


def test_days_ago_rules() -> None:
    assert dates.days_ago("01-01-2020", "03-01-2020") == 2
    assert dates.days_ago("2020-01-03", "2020-01-01", "%Y-%m-%d") == -2
    assert dates.days_ago(0.0, 86400.0 * 3 - 1) == 2  # whole days only
    with pytest.raises(TypeError):
        dates.get_start_date("2020-01-01")


def test_jinja_syntax_error_names_the_part_file_and_line(make_track) -> None:
    root = make_track(
        {
            "track.json": '{\n"ops": [\n  {{ rally.collect(parts="ops/*.json") }}\n]}',
            "ops/a.json": '{"n": 1},\n{"n": 2}',
            "ops/b.json": '{"n": 3},\n{"n": {{ x + }}}',
        }
    )
    with pytest.raises(TrackSyntaxError) as e:
        render_track_source(path=root)
    assert "b.json', line 2" in str(e.value)
    assert "Invalid Jinja2 syntax" in str(e.value)


def test_runtime_error_names_file_and_line(make_track) -> None:
    root = make_track({"track.json": '{\n\n"x": {{ 1 | days_ago("bad") }}}'})
    with pytest.raises(TrackSyntaxError) as e:
        render_track_source(path=root)
    assert "track.json', line 3" in str(e.value)


def test_missing_include_is_reported(make_track) -> None:
    root = make_track({"track.json": '{"c": {% include "challenges/missing.json" %}}'})
    with pytest.raises(TrackSyntaxError, match=r"includes or imports 'challenges/missing.json'"):
        render_track_source(path=root)


def test_referenced_variables_follow_includes_and_runtime_collect(make_track) -> None:
    root = make_track(
        {
            "track.json": "",
            "a.json": '{% include "b.json" %}{{ in_a }}{{ rally.collect(parts="parts/*.json") }}',
            "b.json": "{{ in_b | default(1) }}{% set local = 1 %}{{ local }}",
            "parts/p.json": "{{ in_part }}",
        }
    )
    names = referenced_variables((root / "a.json").read_text(), include_root=root)
    assert {"in_a", "in_b", "in_part"} <= names
    assert "local" not in names
    # Without an include root only the source itself is scanned (Rally's behaviour).
    assert referenced_variables((root / "a.json").read_text()) == {"in_a", "rally"}


def test_render_assembled_uses_given_description(tmp_path: Path) -> None:
    (tmp_path / "f.json").write_text("{{ x.y.z }}")
    env = fragment_environment({})
    with pytest.raises(TrackSyntaxError, match="the body of index 'i'"):
        render_assembled(env, assemble_file(tmp_path / "f.json"), description="the body of index 'i'")


def test_runtime_error_in_included_file_names_that_file(make_track) -> None:
    root = make_track(
        {
            "track.json": '{"a": {% include "tasks/x.json" %}}',
            "tasks/x.json": '{\n"x": {{ 1 | days_ago("zz") }}}',
        }
    )
    with pytest.raises(TrackSyntaxError) as e:
        render_track_source(path=root)
    assert "tasks/x.json', line 2" in str(e.value)
