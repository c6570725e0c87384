"""``esbench list tracks``: Rally's columns and formatting (esrally/track/loader.py ``list_tracks``)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from track_test_helpers import TRACKS_DIR, simple_track

from esbench.cli import main
from esbench.exceptions import TrackSyntaxError
from esbench.track.listing import TrackEntry, rally_number, rally_size, track_listing
from esbench.track.loader import load_track

RALLY = Path(os.environ.get("ESBENCH_RALLY", "/work/venvs/rally/bin/esrally"))


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (None, "N/A"),
        (0, "0B"),
        (1023, "1023B"),
        (1024, "1.0KB"),
        (1536, "1.5KB"),
        (265_208_777, "252.9MB"),
        (3_547_613_828, "3.3GB"),
        (5 * 1024**5, "5120.0TB"),
    ],
)
def test_sizes_are_binary_with_one_decimal_and_no_space(n: int | None, text: str) -> None:
    assert rally_size(n) == text


def test_document_counts_have_thousands_separators() -> None:
    assert (rally_number(11_396_503), rally_number(0), rally_number(None)) == ("11,396,503", "0", "N/A")


def _track(tmp_path: Path, name: str, spec: dict) -> TrackEntry:
    root = tmp_path / name
    root.mkdir()
    (root / "track.json").write_text(json.dumps(spec))
    return TrackEntry(name=name, track=load_track(path=root))


def test_rows_are_sorted_and_sizes_unknown_for_one_file_are_na(tmp_path: Path) -> None:
    docs = [
        {
            "source-file": "a.json.bz2",
            "document-count": 1500,
            "compressed-bytes": 2048,
            "uncompressed-bytes": 4096,
        },
        {"source-file": "b.json", "document-count": 500, "uncompressed-bytes": 1000},
    ]
    challenges = [
        {"name": "zeta", "schedule": [{"operation": {"operation-type": "refresh"}}]},
        {"name": "alpha", "default": True, "schedule": [{"operation": {"operation-type": "refresh"}}]},
    ]
    entries = [
        _track(tmp_path, "second", simple_track(description="two", schedule=None, challenges=challenges)),
        _track(
            tmp_path, "first", simple_track(description="one", corpora=[{"name": "c", "documents": docs}])
        ),
    ]
    listing = track_listing(entries)
    assert listing.headers[-2:] == ("Default Challenge", "All Challenges")
    assert listing.rows == (
        ("first", "one", "2,000", "N/A", "5.0KB", "default", "default"),
        ("second", "two", "10", "N/A", "N/A", "alpha", "alpha,zeta"),
    )
    assert listing.align[2] == "left"  # "2,000" is no number to Rally's tabulate


def test_challenge_columns_are_left_out_when_every_track_only_has_a_schedule(tmp_path: Path) -> None:
    listing = track_listing([_track(tmp_path, "plain", simple_track(description="d", corpora=None))])
    assert listing.headers == ("Name", "Description", "Documents", "Compressed Size", "Uncompressed Size")
    assert listing.rows == (("plain", "d", "0", "0B", "0B"),)
    assert listing.align[2] == "right"


def test_a_track_that_cannot_load_keeps_its_row() -> None:
    error = TrackSyntaxError("track.json line 1: Expecting value\nmore detail")
    listing = track_listing([TrackEntry(name="broken", error=error)])
    assert listing.rows[0][:3] == ("broken", "(cannot load: track.json line 1: Expecting value)", "N/A")


def test_list_tracks_with_a_track_path_lists_that_track_only() -> None:
    result = CliRunner().invoke(main, ["list", "tracks", f"--track-path={TRACKS_DIR / 'poi'}"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "Available tracks:"
    assert lines[2].split() == [
        "Name", "Description", "Documents", "Compressed", "Size", "Uncompressed", "Size",
        "Default", "Challenge", "All", "Challenges",
    ]  # fmt: skip
    assert [line.split()[0] for line in lines[4:]] == ["poi"]


@pytest.mark.skipif(not RALLY.exists(), reason=f"Rally 2.13 is not installed at {RALLY} (ESBENCH_RALLY)")
@pytest.mark.parametrize("track", ["poi", "minimal", "rallyplugins"])
def test_the_table_is_rallys(track: str, tmp_path: Path) -> None:
    path = TRACKS_DIR / track
    rally = subprocess.run(
        [str(RALLY), "list", "tracks", f"--track-path={path}", "--offline"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path)},
        check=False,
    )
    assert rally.returncode == 0, rally.stdout + rally.stderr
    ours = CliRunner().invoke(main, ["list", "tracks", f"--track-path={path}"])
    assert ours.exit_code == 0, ours.output

    def table(text: str) -> list[str]:
        lines = text.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("Name "))
        return [line.rstrip() for line in lines[start : start + 3]]

    assert table(ours.output) == table(rally.stdout)
