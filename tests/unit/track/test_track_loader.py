"""Finding tracks by name and path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from track_test_helpers import simple_track

from esbench.exceptions import NotFound, UserError
from esbench.track import load_track
from esbench.track.loader import available_tracks, locate_track


def test_track_path_dir_and_file(make_track) -> None:
    root = make_track({"track.json": simple_track(), "other.json": simple_track(description="other")})
    assert load_track(path=root).name == "t"
    by_file = load_track(path=root / "other.json")
    assert (by_file.name, by_file.description, by_file.root) == ("other", "other", root)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "exactly one of"),
        ({"name": "a", "path": "b"}, "exactly one of"),
        ({"path": "/does/not/exist"}, "does not exist"),
    ],
)
def test_locate_errors(kwargs: dict, match: str) -> None:
    with pytest.raises(UserError, match=match):
        locate_track(**kwargs)


def test_directory_without_track_json_and_non_json_file(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"has no track.json"):
        locate_track(path=tmp_path)
    (tmp_path / "t.yaml").write_text("")
    with pytest.raises(UserError, match=r"must be a .json file"):
        locate_track(path=tmp_path / "t.yaml")


def test_user_tracks_are_found_by_name(isolated_home: Path) -> None:
    user = isolated_home / "tracks" / "mine"
    user.mkdir(parents=True)
    (user / "track.json").write_text(json.dumps(simple_track(description="my track")))
    assert load_track(name="mine").description == "my track"
    assert "mine" in [t.name for t in available_tracks()]
    with pytest.raises(NotFound, match=r"Unknown track 'nope'.*mine"):
        locate_track(name="nope")
