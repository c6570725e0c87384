"""The track source of a race: one of four, chosen once (esbench.tracksource)."""

from __future__ import annotations

from pathlib import Path

import pytest

from esbench.exceptions import UserError
from esbench.settings import RaceSettings
from esbench.track.model import Track
from esbench.track.repository import TrackRepositorySettings
from esbench.tracksource import (
    BUNDLE_RULE,
    RACE_RULE,
    TRACK_FILE_RULE,
    TrackAtPath,
    TrackByName,
    TrackFromBundle,
    TrackInMemory,
    choose_track_source,
    source_of,
)

REPO = TrackRepositorySettings(repository="mine", branch="8")


def test_each_option_gives_its_own_source() -> None:
    assert choose_track_source(name="geonames", path=None, repository=REPO) == TrackByName("geonames", REPO)
    assert choose_track_source(name=None, path=Path("/t"), repository=REPO) == TrackAtPath(Path("/t"))
    bundle = choose_track_source(name=None, path=None, bundle=Path("/b.tar"), repository=REPO)
    assert bundle == TrackFromBundle(Path("/b.tar"))


@pytest.mark.parametrize(("name", "path"), [(None, None), ("geonames", Path("/t")), ("", None)])
def test_neither_or_both_is_refused_with_the_commands_wording(name: str | None, path: Path | None) -> None:
    with pytest.raises(UserError) as race:
        choose_track_source(name=name, path=path, repository=REPO)
    assert str(race.value) == RACE_RULE
    with pytest.raises(UserError) as info:
        choose_track_source(name=name, path=path, repository=REPO, rule=TRACK_FILE_RULE)
    assert str(info.value) == TRACK_FILE_RULE


@pytest.mark.parametrize(("name", "path"), [("geonames", None), (None, Path("/t"))])
def test_a_bundle_brings_its_own_track(name: str | None, path: Path | None) -> None:
    with pytest.raises(UserError, match="--track-bundle brings its own track") as e:
        choose_track_source(name=name, path=path, bundle=Path("/b.tar"), repository=REPO)
    assert str(e.value) == BUNDLE_RULE


def test_settings_hold_one_source() -> None:
    track = Track(name="adhoc", root=Path("/adhoc"), challenges=())
    assert source_of(RaceSettings(track_name="geonames", track_source=REPO)) == TrackByName("geonames", REPO)
    assert source_of(RaceSettings(track_path=Path("/t"))) == TrackAtPath(Path("/t"))
    # A track in memory wins over a name (``esbench query`` keeps its base settings' fields).
    assert source_of(RaceSettings(track=track, track_name="ignored")) == TrackInMemory(track)
    for settings in (RaceSettings(), RaceSettings(track_name="geonames", track_path=Path("/t"))):
        with pytest.raises(UserError) as e:
            source_of(settings)
        assert str(e.value) == TRACK_FILE_RULE
