"""`esbench render-track`, `esbench info`, `esbench list tracks` through click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from track_test_helpers import TRACKS_DIR, simple_track

from esbench.cli import main


def _run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_render_track_prints_rendered_json() -> None:
    result = _run("render-track", f"--track-path={TRACKS_DIR / 'minimal'}", "--track-params=bulk_size:7")
    assert result.exit_code == 0
    spec = json.loads(result.output)
    assert spec["schedule"][2]["operation"]["bulk-size"] == 7
    assert result.output.startswith('{\n  "description"')


def test_render_track_to_file(tmp_path: Path) -> None:
    out = tmp_path / "rendered.json"
    result = _run(
        "render-track",
        f"--track-path={TRACKS_DIR / 'poi'}",
        f"--output-path={out}",
        "--build-flavor=serverless",
    )
    assert result.exit_code == 0
    assert json.loads(out.read_text())["description"] == "Points of interest (geonames layout)"


def test_render_track_unused_param_fails_cleanly() -> None:
    result = CliRunner().invoke(
        main, ["render-track", f"--track-path={TRACKS_DIR / 'minimal'}", "--track-params=bulk_sise:7"]
    )
    assert result.exit_code == 64
    assert "[ERROR] Track param(s) 'bulk_sise' are not used" in result.output
    assert "Traceback" not in result.output


def test_render_track_needs_a_track() -> None:
    result = CliRunner().invoke(main, ["render-track"])
    assert result.exit_code == 64
    assert "exactly one of --track=NAME and --track-path" in result.output


def test_info_shows_corpora_challenges_and_schedule() -> None:
    result = _run("info", f"--track-path={TRACKS_DIR / 'poi'}", "--track-params=bulk_indexing_clients:3")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "* Description: Points of interest (geonames layout)" in out
    assert "11,396,503" in out and "252.9 MB" in out and "3.3 GB" in out
    assert "Challenge [append-no-conflicts] (run by default)" in out
    assert "Challenge [append-fast-with-conflicts]" in out
    index_row = next(line for line in out.splitlines() if " index-append " in line)
    assert index_row.split()[1:6] == ["index-append", "bulk", "3", "120", "s"]
    term_row = next(line for line in out.splitlines() if " term " in line)
    assert "500 iterations" in term_row and "1000 iterations" in term_row and "200 ops/s" in term_row
    assert "bulk_indexing_clients" in out  # the track params list


def test_info_single_challenge_and_test_mode() -> None:
    result = _run(
        "info", f"--track-path={TRACKS_DIR / 'applogs'}", "--challenge=logging-querying", "--test-mode"
    )
    assert result.exit_code == 0, result.output
    assert "logging-indexing" not in result.output
    assert "completed-by: any; max 2 clients" in result.output
    visualize = next(line for line in result.output.splitlines() if "query-visualize" in line)
    assert "10 s" in visualize and "unthrottled" in visualize


def test_info_unknown_challenge() -> None:
    result = CliRunner().invoke(main, ["info", f"--track-path={TRACKS_DIR / 'poi'}", "--challenge=nope"])
    assert result.exit_code == 64
    assert "has no challenge 'nope'" in result.output


def test_list_tracks_shows_user_tracks(isolated_home: Path) -> None:
    good = isolated_home / "tracks" / "mytrack"
    good.mkdir(parents=True)
    (good / "track.json").write_text(json.dumps(simple_track(description="mine, all mine")))
    broken = isolated_home / "tracks" / "broken"
    broken.mkdir()
    (broken / "track.json").write_text("{")
    # --offline: no clone of the default track repository is made (its tracks are listed too).
    result = _run("list", "tracks", "--offline")
    assert result.exit_code == 0
    row = next(line for line in result.output.splitlines() if line.startswith("mytrack"))
    assert "mine, all mine" in row and "default" in row and "10" in row
    broken_row = next(line for line in result.output.splitlines() if line.startswith("broken"))
    assert "cannot load" in broken_row
