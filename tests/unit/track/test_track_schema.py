"""Schema validation (JSON paths) and JSON syntax errors (line, column, offending line)."""

from __future__ import annotations

import pytest
from track_test_helpers import simple_track

from esbench.exceptions import TrackSyntaxError, TrackValidationError
from esbench.track import load_track
from esbench.track.schema import json_path, validate_track


def test_json_path_format() -> None:
    assert json_path(["challenges", 0, "schedule", 2, "clients"]) == "$.challenges[0].schedule[2].clients"
    assert json_path(["a b", 1]) == '$["a b"][1]'


def test_valid_track_passes_and_one_wrong_value_fails_it() -> None:
    spec = simple_track()
    assert validate_track(spec, file="t.json") is None  # no exception: valid
    # The same track with one value of the wrong type must fail, or the validator checks nothing.
    spec["schedule"][0]["clients"] = "eight"
    with pytest.raises(TrackValidationError, match=r"\$\.schedule\[0\]\.clients"):
        validate_track(spec, file="t.json")


def test_error_names_file_and_path() -> None:
    spec = simple_track(
        schedule=None,
        challenges=[
            {
                "name": "c1",
                "schedule": [
                    {"operation": "refresh"},
                    {"operation": "refresh", "name": "r2"},
                    {"name": "bad", "operation": "search", "clients": 0},
                ],
            }
        ],
    )
    with pytest.raises(TrackValidationError) as e:
        validate_track(spec, file="/x/track.json")
    message = str(e.value)
    assert "'/x/track.json'" in message
    assert "$.challenges[0].schedule[2].clients" in message
    assert "'c1' > 'bad'" in message
    assert "less than the minimum of 1" in message


@pytest.mark.parametrize(
    ("overrides", "path", "fragment"),
    [
        (
            {"corpora": [{"name": "c", "documents": [{"source-file": "d.json"}]}]},
            "$.corpora[0].documents[0]",
            "document-count",
        ),
        ({"schedule": [{"operation": {"bulk-size": 1}}]}, "$.schedule[0].operation", "operation-type"),
        ({"schedule": [{"parallel": {"tasks": []}}]}, "$.schedule[0].parallel.tasks", "should be non-empty"),
        (
            {"schedule": [{"operation": "x", "time-period": "10"}]},
            "$.schedule[0].time-period",
            "not of type 'integer'",
        ),
        ({"operations": [{"operation-type": "search"}]}, "$.operations[0]", "'name' is a required property"),
        ({"indices": [{"name": "i", "body": 3}]}, "$.indices[0].body", "not of type 'string'"),
    ],
)
def test_schema_violations(overrides: dict, path: str, fragment: str) -> None:
    with pytest.raises(TrackValidationError) as e:
        validate_track(simple_track(**overrides), file="t.json")
    assert path in str(e.value)
    assert fragment in str(e.value)


def test_invalid_json_shows_line_column_and_offending_line(make_track) -> None:
    root = make_track(
        {
            "track.json": (
                '{\n  "indices": [{"name": "i"}],\n  "schedule": [\n'
                '    {{ rally.collect(parts="s/*.json") }}\n  ]\n}'
            ),
            "s/a.json": '{"operation": "refresh"}',
            "s/b.json": '{"operation": "force-merge",}',
        }
    )
    with pytest.raises(TrackSyntaxError) as e:
        load_track(path=root)
    message = str(e.value)
    assert "is not valid JSON after rendering" in message
    assert "line 5, column 29" in message
    assert '5 | {"operation": "force-merge",}' in message
    assert "^" in message
    assert "b.json', line 1" in message


def test_invalid_json_in_index_body_names_the_body_file(make_track) -> None:
    root = make_track(
        {
            "track.json": {
                "indices": [{"name": "i", "body": "idx.json"}],
                "schedule": [{"operation": "refresh"}],
            },
            "idx.json": '{"settings": {"a": {{ shards | default(1) }} "b": 2}}',
        }
    )
    with pytest.raises(TrackSyntaxError, match=r"idx.json' \(the body of index 'i'\) is not valid JSON"):
        load_track(path=root)


def test_version_must_be_2(make_track) -> None:
    with pytest.raises(TrackValidationError, match="version 1"):
        load_track(path=make_track({"track.json": simple_track(version=1)}))
    with pytest.raises(TrackValidationError, match="non-numeric version"):
        load_track(path=make_track({"track.json": simple_track(version="two")}, name="t2"))
