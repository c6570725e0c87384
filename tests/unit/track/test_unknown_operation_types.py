"""Unknown operation types: found per task with a did-you-mean; `esbench info` warns about them."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from track_test_helpers import TRACKS_DIR

from esbench.cli import main
from esbench.track import load_track
from esbench.track.optypes import unknown_operation_types

TYPO = TRACKS_DIR / "operation-type-typo"


def test_a_misspelt_type_is_found_with_the_closest_known_type() -> None:
    track = load_track(path=TYPO)
    (unknown,) = unknown_operation_types(track.challenges)
    assert (unknown.challenge, unknown.task, unknown.operation_type) == ("default", "query", "serach")
    assert unknown.suggestions[0] == "search"
    assert "Task 'query' of challenge 'default'" in unknown.describe()
    assert unknown.describe().endswith("Did you mean 'search'?")


def test_a_type_a_plugin_registers_is_known_when_the_registry_says_so() -> None:
    track = load_track(path=TYPO)
    assert unknown_operation_types(track.challenges, ["create-index", "serach"]) == ()


def test_a_type_like_no_other_gets_no_suggestion(tmp_path: Path) -> None:
    (tmp_path / "track.json").write_text(
        '{"version": 2, "schedule": [{"operation": {"name": "x", "operation-type": "zzzzqqq"}}]}'
    )
    (unknown,) = unknown_operation_types(load_track(path=tmp_path).challenges)
    assert unknown.suggestions == ()
    assert "Did you mean" not in unknown.describe()


def test_info_warns_with_a_did_you_mean() -> None:
    result = CliRunner().invoke(main, ["info", f"--track-path={TYPO}"])
    assert result.exit_code == 0, result.output
    assert (
        "[WARNING] Task 'query' of challenge 'default' has the operation-type 'serach', which is neither "
        "one of Rally's or esbench's operation types nor registered by the track's plugins. "
        "Did you mean 'search'?"
    ) in result.output


def test_info_knows_the_types_a_tracks_plugin_registers() -> None:
    # The rallyplugins fixture's track.py registers runners for its own operation types.
    result = CliRunner().invoke(main, ["info", f"--track-path={TRACKS_DIR / 'rallyplugins'}"])
    assert result.exit_code == 0, result.output
    assert "[WARNING] Task" not in result.output
