"""The track fingerprint planning compares before reusing a race: it follows what the track sends,
not where it lives or the documents it indexes."""

import shutil
from pathlib import Path

from esbench.track.loader import load_track
from esbench.track.warmup import short_bulk_warnings

MINIMAL = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "minimal"


def fingerprint(directory: Path, **params: object) -> str:
    return load_track(path=directory, params=params).fingerprint


def test_fingerprint_follows_content_params_and_plugin_files(tmp_path: Path) -> None:
    track = tmp_path / "a" / "minimal"
    shutil.copytree(MINIMAL, track)
    first = fingerprint(track)
    assert len(first) == 40 and fingerprint(track) == first  # stable

    # Elsewhere, with its corpus documents beside it: the same track.
    moved = tmp_path / "b" / "minimal"
    shutil.copytree(track, moved)
    (moved / "mini.json").write_text('{"a": 1}\n')
    (moved / "mini.json.offset").write_text("0\n")
    assert fingerprint(moved) == first

    assert fingerprint(track, bulk_size=200) != first  # a track param
    (track / "track.py").write_text("def register(registry):\n    pass\n")
    with_plugin = fingerprint(track)
    assert with_plugin != first  # a plugin file
    (track / "track.py").write_text("def register(registry):\n    return None\n")
    assert fingerprint(track) not in (first, with_plugin)  # its content
    (track / "track.py").unlink()
    text = (track / "track.json").read_text()
    (track / "track.json").write_text(text.replace('"match_all": {}', '"term": {"a": 1}'))
    assert fingerprint(track) != first  # the query


def test_a_bulk_task_with_few_bulks_per_client_and_a_warmup_is_named(tmp_path: Path) -> None:
    track = tmp_path / "minimal"
    shutil.copytree(MINIMAL, track)
    text = (track / "track.json").read_text()
    (track / "track.json").write_text(
        text.replace('"clients": {{ clients | default(2) }}', '"clients": 2, "warmup-time-period": 5')
    )
    # 5,000 documents in bulks of 1,000 over 2 clients: 3 bulks each, all likely inside 5 s.
    small = load_track(path=track, params={"bulk_size": 1000})
    (warning,) = short_bulk_warnings(small, small.default_challenge)
    assert warning.startswith("Task 'bulk' sends only about 3 bulk requests per client (5,000 documents")
    assert "warms up for 5 s" in warning
    # Bulks of 100: 25 per client, enough to outlast a warmup.
    large = load_track(path=track, params={"bulk_size": 100})
    assert short_bulk_warnings(large, large.default_challenge) == []
