"""OpenSearch Benchmark's dialect of the track format: ``workload.json``, ``test_procedures``,
``benchmark.collect``/``benchmark.helpers``, OSB's Jinja environment, ``workload.py``, and messages
in OSB's words. Sources: OSB 2.4.0 ``osbenchmark/workload/loader.py`` (``TemplateSource``,
``render_template``, ``default_internal_template_vars``, ``version_between``) and
``resources/workload-schema.json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from esbench.exceptions import TrackSyntaxError, TrackValidationError, UserError
from esbench.track import load_track, render_track_source
from esbench.track.dates import version_between
from esbench.track.dialect import (
    OSB,
    RALLY,
    dialect_of_directory,
    dialect_of_file,
    in_own_words,
    to_rally_words,
)
from esbench.track.loader import available_tracks, locate_track
from esbench.track.pluginfile import plugin_entry

SCHEDULE = '[{"operation": {"operation-type": "cluster-health"}}]'


def _workload(**extra: str) -> dict[str, str]:
    files = {
        "workload.json": """
            {% import "benchmark.helpers" as benchmark with context %}
            {
              "version": 2,
              "operations": [{{ benchmark.collect(parts="operations/*.json") }}],
              "test_procedures": [{{ benchmark.collect(parts="test_procedures/*.json") }}]
            }
        """,
        "operations/health.json": '{"name": "health", "operation-type": "cluster-health"}',
        "test_procedures/a.json": '{"name": "first", "default": true, "schedule": [{"operation": "health"}]}',
        "test_procedures/b.json": (
            '{"name": "second", "schedule": [{"operation": "health", "iterations": 3}]}'
        ),
    }
    files.update(extra)
    return files


def test_a_directory_with_workload_json_is_an_osb_workload(make_track) -> None:
    root = make_track(_workload(), name="w")
    assert dialect_of_directory(root) is OSB
    location = locate_track(path=root)
    assert location.dialect is OSB and location.track_file == root / "workload.json" and location.name == "w"
    assert dialect_of_file(root / "workload.json") is OSB
    # track.json wins where both are there (a track that ships both is read as Rally's).
    (root / "track.json").write_text("{}", encoding="utf-8")
    assert dialect_of_directory(root) is RALLY


def test_workload_loads_with_test_procedures_collected_by_benchmark_collect(make_track) -> None:
    track = load_track(path=make_track(_workload()))
    assert [c.name for c in track.challenges] == ["first", "second"]
    assert track.default_challenge.name == "first"
    assert track.challenges[1].schedule[0].iterations == 3


def test_a_single_test_procedure_key(make_track) -> None:
    root = make_track(
        {"workload.json": '{"version": 2, "test_procedure": {"name": "only", "schedule": ' + SCHEDULE + "}}"}
    )
    assert [c.name for c in load_track(path=root).challenges] == ["only"]


def test_rally_collect_is_not_expanded_in_a_workload(make_track) -> None:
    # OSB's TemplateSource only knows benchmark.collect; rally.* is undefined there, so the text
    # stays a Jinja expression on an undefined name and rendering fails.
    root = make_track(
        {
            "workload.json": '{"version": 2, "operations": [{{ rally.collect(parts="ops/*.json") }}], '
            '"schedule": ' + SCHEDULE + "}",
            "ops/a.json": '{"name": "a", "operation-type": "cluster-health"}',
        }
    )
    with pytest.raises(TrackSyntaxError, match="rally"):
        load_track(path=root)


def test_osb_environment_autoescapes_values_rendered_into_the_workload(make_track) -> None:
    # select_autoescape(["html", "xml"]) escapes a template rendered from a string (OSB renders the
    # assembled workload with from_string), so a param with a quote renders as &#34;.
    root = make_track(
        {"workload.json": '{"version": 2, "description": "{{ text }}", "schedule": ' + SCHEDULE + "}"}
    )
    spec = json.loads(render_track_source(path=root, params={"text": "a&b"}))
    assert spec["description"] == "a&amp;b"
    rally = make_track(
        {"track.json": '{"version": 2, "description": "{{ text }}", "schedule": ' + SCHEDULE + "}"}, name="r"
    )
    assert json.loads(render_track_source(path=rally, params={"text": "a&b"}))["description"] == "a&b"


def test_osb_filters_and_globals(make_track) -> None:
    root = make_track(
        {
            "workload.json": '{"version": 2, "description": "'
            "{{ '2.11.0' | version_between('2.0.0', '2.99.0') }} {{ build_flavor is defined }}"
            '", "schedule": ' + SCHEDULE + "}"
        }
    )
    # OSB has version_between and no build_flavor global (Rally has build_flavor and no version_between).
    assert json.loads(render_track_source(path=root))["description"] == "True False"


def test_version_between_compares_numbers_not_text() -> None:
    assert version_between("2.10.0", "2.9.0", "2.11.0")
    assert not version_between("2.9.0", "2.10.0", "3.0.0")
    assert version_between("1.0.0", "1.0.0", "1.0.0")
    with pytest.raises(ValueError):
        version_between("2.x", "1.0", "3.0")


def test_schema_errors_name_the_osb_keys(make_track) -> None:
    root = make_track({"workload.json": '{"version": 2, "test_procedures": [{"name": "x", "schedule": 3}]}'})
    with pytest.raises(TrackValidationError) as err:
        load_track(path=root)
    message = str(err.value)
    assert "$.test_procedures[0].schedule" in message and "Workload file" in message
    assert "$.challenges" not in message


def test_a_missing_scenario_is_told_in_osb_words(make_track) -> None:
    root = make_track({"workload.json": '{"version": 2, "description": "no scenario"}'})
    with pytest.raises(TrackValidationError) as err:
        load_track(path=root)
    assert "'test_procedures'" in str(err.value) and "'challenges'" not in str(err.value)


def test_osb_vector_source_formats_load_only_in_a_workload(make_track) -> None:
    corpus = {
        "name": "v",
        "documents": [{"source-file": "v.hdf5.bz2", "source-format": "hdf5", "document-count": 1}],
    }
    body = {"version": 2, "indices": [{"name": "v"}], "corpora": [corpus], "schedule": json.loads(SCHEDULE)}
    workload = make_track({"workload.json": body}, name="w")
    assert load_track(path=workload).corpora[0].documents[0].source_format == "hdf5"
    track = make_track({"track.json": body}, name="t")
    with pytest.raises(TrackValidationError, match="unknown source-format 'hdf5'"):
        load_track(path=track)


def test_workload_plugin_file(make_track) -> None:
    root = make_track(_workload(**{"workload.py": "def register(registry):\n    pass\n"}))
    assert plugin_entry(root) == root / "workload.py"
    # A track.py beside a workload.json is not the workload's plugin (OSB looks for workload.py).
    other = make_track(_workload(**{"track.py": "def register(registry):\n    pass\n"}), name="o")
    assert plugin_entry(other) is None


def test_missing_definition_names_both_file_names(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"track\.json.*workload\.json"):
        locate_track(path=tmp_path)


def test_named_workloads_are_found_beside_tracks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, make_track
) -> None:
    monkeypatch.setenv("ESBENCH_HOME", str(tmp_path / "home"))
    user_tracks = tmp_path / "home" / "tracks"
    user_tracks.mkdir(parents=True)
    root = make_track(_workload(), name="w")
    root.rename(user_tracks / "my_workload")
    found = {t.name: t.dialect for t in available_tracks()}
    assert found["my_workload"] is OSB
    assert locate_track(name="my_workload").track_file.name == "workload.json"


def test_to_rally_words_and_back() -> None:
    spec = {"version": 2, "test_procedures": [{"name": "a"}], "description": "d"}
    assert to_rally_words(spec, OSB) == {"version": 2, "challenges": [{"name": "a"}], "description": "d"}
    assert to_rally_words(spec, RALLY) is spec
    # Both spellings given: OSB's key is left as it is, so the reader reports an unknown key.
    both = {"test_procedures": [], "challenges": []}
    assert to_rally_words(both, OSB) == both
    assert in_own_words("at $.challenges[0].schedule of challenge 'x'", OSB) == (
        "at $.test_procedures[0].schedule of test procedure 'x'"
    )
    assert in_own_words("at $.challenges[0]", RALLY) == "at $.challenges[0]"
