"""--track=NAME: local names first, a typo suggested without git, a failed clone that explains itself."""

from pathlib import Path

import pytest

from esbench.exceptions import DataError, NotFound
from esbench.track.repository import TrackRepositorySettings


def no_version() -> str | None:
    return None


def test_a_close_local_name_is_suggested_before_any_clone(isolated_home: Path) -> None:
    with pytest.raises(NotFound) as e:
        TrackRepositorySettings().resolve("evendata", offline=False, distribution_version=no_version)
    assert str(e.value).startswith("Unknown track 'evendata'; did you mean 'eventdata'?")
    assert "--track-repository=default" in str(e.value)
    assert not (isolated_home / "benchmarks").exists()  # nothing cloned, no git run
    # The exact local name resolves locally.
    assert TrackRepositorySettings().resolve("eventdata", offline=False, distribution_version=no_version) == (
        None,
        None,
    )


def test_a_failed_clone_says_why_a_repository_was_asked_and_how_to_work_offline(
    isolated_home: Path, tmp_path: Path
) -> None:
    (isolated_home / "esbench.ini").write_text(f"[tracks]\ndefault.url = {tmp_path / 'no-such-repository'}\n")
    with pytest.raises(DataError) as e:
        TrackRepositorySettings().resolve("zzqtrack", offline=False, distribution_version=no_version)
    text = str(e.value)
    assert text.startswith("Track 'zzqtrack' is neither built in nor under")
    assert "so esbench looked for it in the track repository 'default'. Could not clone" in text
    assert "--track-path" in text and "--track-bundle=FILE.tar --offline" in text and "add --offline" in text
