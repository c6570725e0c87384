"""--track-params parsing (Rally's rules) and the reserved / unused param checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from esbench.exceptions import TrackParamError, UserError
from esbench.track import load_track, parse_track_params
from esbench.track.params import check_track_params, exposed_params, parse_params


def test_key_value_conversion_rules() -> None:
    parsed = parse_track_params("a:1, b:1.5,c:'007',d:true,e:FALSE,f:none,g:text,h:-3,i:1e3,j:'',k:None")
    assert parsed == {
        "a": 1,
        "b": 1.5,
        "c": "007",
        "d": True,
        "e": False,
        "f": None,
        "g": "text",
        "h": -3,
        "i": 1000.0,
        "j": "",
        "k": None,
    }
    assert type(parsed["a"]) is int


def test_value_may_contain_colons_and_trailing_comma_is_ignored() -> None:
    assert parse_track_params("url:http://h:9200,") == {"url": "http://h:9200"}


def test_inline_json_and_json_file(tmp_path: Path) -> None:
    assert parse_track_params('{"a": [1, 2], "b": {"c": null}}') == {"a": [1, 2], "b": {"c": None}}
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"x": 1}))
    assert parse_track_params(str(f)) == {"x": 1}


def test_empty_is_empty() -> None:
    assert parse_track_params("") == {}
    assert parse_track_params("  ") == {}


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("a:1,b", "entry 'b' has no ':'"),
        ("[1, 2]", "must be a JSON object"),
        ("/nonexistent/params.json", "cannot be read"),
    ],
)
def test_errors(text: str, match: str) -> None:
    with pytest.raises(TrackParamError, match=match):
        parse_track_params(text)


def test_invalid_json_file(tmp_path: Path) -> None:
    f = tmp_path / "p.json"
    f.write_text("{nope")
    with pytest.raises(TrackParamError, match=r"not valid JSON: .* line 1, column 2"):
        parse_track_params(str(f))


def test_generic_parser_names_the_option_and_raises_user_error() -> None:
    with pytest.raises(UserError, match="--car-params entry") as e:
        parse_params("x", option="--car-params")
    assert not isinstance(e.value, TrackParamError)


def test_reserved_names_are_rejected() -> None:
    with pytest.raises(TrackParamError, match=r"'build_flavor', 'now'.*defined by esbench"):
        check_track_params({"now": 1, "build_flavor": "x"}, {"now", "build_flavor"}, track_name="t")


def test_unused_params_list_close_matches_and_exposed_params() -> None:
    with pytest.raises(TrackParamError) as e:
        check_track_params(
            {"number_of_shard": 1, "zzz": 2, "bulk_size": 3},
            {"number_of_shards", "bulk_size", "range", "now", "glob"},
            track_name="t",
        )
    message = str(e.value)
    assert "'number_of_shard', 'zzz' are not used by track 't'" in message
    assert "'number_of_shard' → 'number_of_shards'" in message
    assert "reads are: bulk_size, number_of_shards." in message


def test_exposed_params_drop_internal_and_jinja_names() -> None:
    assert exposed_params({"x", "now", "range", "build_flavor", "a"}) == ["a", "x"]


def test_load_track_rejects_unused_param_but_accepts_body_params(make_track) -> None:
    root = make_track(
        {
            "track.json": {
                "indices": [{"name": "i", "body": "index.json"}],
                "schedule": [{"operation": "refresh"}],
            },
            "index.json": '{"settings": {"index.number_of_shards": {{ shards | default(1) }}}}',
        }
    )
    track = load_track(path=root, params={"shards": 3})
    assert track.indices[0].body == {"settings": {"index.number_of_shards": 3}}
    assert track.params == {"shards": 3}
    with pytest.raises(TrackParamError, match="'shard' → 'shards'"):
        load_track(path=root, params={"shard": 3})
