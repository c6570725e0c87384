"""Builds a git repository of tracks in the rally-tracks layout for tests (no network).

Branches ``master``, ``8``, ``8.17`` and ``9`` each hold the track ``tiny`` (a copy of
``tests/resources/tracks/compare-tiny`` whose description names the branch) and ``group/other``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

TINY = Path(__file__).resolve().parent / "resources" / "tracks" / "compare-tiny"
BRANCHES = ("master", "8", "8.17", "9")


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def make_track_repository(base: Path) -> tuple[str, dict[str, str]]:
    """Create ``base/tracks.git`` (bare); returns its ``file://`` URL and branch -> commit sha."""
    work = base / "work"
    work.mkdir(parents=True)
    _git(work, "init", "--quiet", "--initial-branch=master")
    shas = {}
    for branch in BRANCHES:
        if branch != "master":
            _git(work, "checkout", "--quiet", "-B", branch, "master")
        tiny = work / "tiny"
        shutil.rmtree(tiny, ignore_errors=True)
        shutil.copytree(TINY, tiny)
        text = (tiny / "track.json").read_text()
        text = text.replace('"description": "Tiny track', f'"description": "[branch {branch}] Tiny track', 1)
        (tiny / "track.json").write_text(text)
        other = work / "group" / "other"
        other.mkdir(parents=True, exist_ok=True)
        (other / "track.json").write_text(
            json.dumps({"description": f"other on {branch}", "schedule": [{"operation": "refresh"}]})
        )
        _git(work, "add", "-A")
        _git(work, "commit", "--quiet", "-m", f"tracks for {branch}")
        shas[branch] = _git(work, "rev-parse", "HEAD").strip()
        if branch != "master":
            _git(work, "checkout", "--quiet", "master")
    bare = base / "tracks.git"
    _git(base, "clone", "--quiet", "--bare", str(work), str(bare))
    return f"file://{bare}", shas


def configure(home: Path, name: str, url: str) -> None:
    """Write ``[tracks] NAME.url`` into ``home/esbench.ini``."""
    (home / "esbench.ini").write_text(f"[tracks]\n{name}.url = {url}\n")
