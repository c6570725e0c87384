"""Track repositories against a local bare git repository (branch choice, offline, errors)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from track_repositories import configure, make_track_repository

from esbench.exceptions import DataError, NotFound
from esbench.track.repository import TrackRepositorySettings, check_out, open_repository


@pytest.fixture
def repo_url(tmp_path: Path, isolated_home: Path) -> tuple[str, dict[str, str]]:
    url, shas = make_track_repository(tmp_path / "git")
    configure(isolated_home, "local-test", url)
    return url, shas


@pytest.mark.parametrize(
    ("version", "branch"),
    [("8.19.0", "8.17"), ("8.17.2", "8.17"), ("8.8.2", "8"), ("9.1.0", "9"), (None, "master")],
)
def test_the_branch_follows_the_distribution_version(repo_url, version: str | None, branch: str) -> None:
    _, shas = repo_url
    repo = check_out(open_repository("local-test"), distribution_version=version)
    assert repo.revision == shas[branch]
    assert f"[branch {branch}]" in (repo.track_dir("tiny") / "track.json").read_text()
    assert repo.track_names() == ["group/other", "tiny"]


def test_revision_and_branch_options_win_over_the_version(repo_url) -> None:
    _, shas = repo_url
    repo = open_repository("local-test")
    assert check_out(repo, branch="9", distribution_version="8.19.0").revision == shas["9"]
    assert check_out(repo, revision=shas["8"][:10]).revision == shas["8"]
    with pytest.raises(DataError, match="Could not check out revision 'nope' of the track repository"):
        check_out(repo, revision="nope")


def test_offline_uses_the_clone_and_needs_one(repo_url, isolated_home: Path) -> None:
    _, shas = repo_url
    settings = TrackRepositorySettings(repository="local-test")
    with pytest.raises(DataError, match="runs offline but has no clone of the track repository 'local-test'"):
        settings.resolve("tiny", offline=True, distribution_version=lambda: "8.19.0")
    settings.resolve("tiny", offline=False, distribution_version=lambda: "8.19.0")
    # Offline: no fetch and no branch switch, the clone as it is (8.17 was checked out above).
    track_dir, repo = settings.resolve("tiny", offline=True, distribution_version=lambda: "8.19.0")
    assert repo is not None and repo.revision == shas["8.17"]
    assert track_dir == isolated_home / "benchmarks" / "tracks" / "local-test" / "tiny"


def test_new_commits_arrive_with_the_next_fetch(repo_url, tmp_path: Path) -> None:
    url, _ = repo_url
    repo = check_out(open_repository("local-test"), branch="master")
    work = tmp_path / "git" / "work"
    (work / "tiny" / "NEW").write_text("x")
    env_args = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "add", "tiny/NEW"], cwd=work, check=True)
    subprocess.run(["git", *env_args, "commit", "-qm", "new file"], cwd=work, check=True)
    subprocess.run(["git", "push", "-q", url.removeprefix("file://"), "master"], cwd=work, check=True)
    again = check_out(open_repository("local-test"), branch="master")
    assert again.revision != repo.revision and (again.track_dir("tiny") / "NEW").is_file()


def test_unknown_repository_and_unknown_track_are_clear_errors(repo_url) -> None:
    with pytest.raises(NotFound, match=r"(?s)Unknown track repository 'elsewhere'.*\nelsewhere.url = "):
        open_repository("elsewhere")
    repo = check_out(open_repository("local-test"), branch="master")
    with pytest.raises(NotFound, match=r"has no track 'geonames'. Its tracks: group/other, tiny"):
        repo.track_dir("geonames")


def test_a_local_track_name_needs_no_repository(isolated_home: Path) -> None:
    settings = TrackRepositorySettings()
    resolved = settings.resolve("eventdata", offline=False, distribution_version=lambda: None)
    assert resolved == (None, None)


def test_an_unreachable_repository_names_url_and_directory(isolated_home: Path) -> None:
    configure(isolated_home, "gone", "file:///nonexistent/tracks.git")
    with pytest.raises(DataError) as failed:
        open_repository("gone")
    message = str(failed.value)
    assert "file:///nonexistent/tracks.git" in message
    assert str(isolated_home / "benchmarks" / "tracks" / "gone") in message
    assert "--track-path" in message
