"""Builds git repositories of tracks for tests (no network).

* :func:`make_track_repository`: the rally-tracks layout. Branches ``master``, ``8``, ``8.17`` and
  ``9`` each hold the track ``tiny`` (a copy of ``tests/resources/tracks/compare-tiny`` whose
  description names the branch) and ``group/other``.
* :func:`make_workload_repository`: OSB's opensearch-benchmark-workloads layout. Branches ``main``,
  ``1``, ``2`` and ``3`` each hold the workloads ``eventdata`` (two searches) and ``tiny``
  (compare-tiny as a ``workload.json``), whose descriptions name the branch, and ``group/nested``
  (below the top level: OSB does not see it).
* :func:`snapshot_repository`: a bare repository with one commit per named branch of a mirror
  (/work/.mirror/elastic+rally-tracks, .../opensearch-project+opensearch-benchmark-workloads), each
  without history and without the blobs the mirror lacks (its largest files), so that git can clone it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

TINY = Path(__file__).resolve().parent / "resources" / "tracks" / "compare-tiny"
BRANCHES = ("master", "8", "8.17", "9")


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    env = {
        **os.environ,
        **(env or {}),
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


def configure(home: Path, name: str, url: str, section: str = "tracks") -> None:
    """Add ``[SECTION] NAME.url`` to ``home/esbench.ini`` (``tracks``, or OSB's ``workloads``)."""
    import configparser

    ini = configparser.ConfigParser(interpolation=None)
    ini.read(home / "esbench.ini")
    if not ini.has_section(section):
        ini.add_section(section)
    ini.set(section, f"{name}.url", url)
    with (home / "esbench.ini").open("w") as f:
        ini.write(f)


OSB_BRANCHES = ("main", "1", "2", "3")
WORKLOAD = Path(__file__).resolve().parent / "resources" / "tracks" / "osb-store-tiny" / "workload.json"


def make_workload_repository(base: Path) -> tuple[str, dict[str, str]]:
    """Create ``base/workloads.git`` (bare, OSB's layout, module doc); its ``file://`` URL and branch
    -> commit sha."""
    work = base / "work"
    work.mkdir(parents=True)
    _git(work, "init", "--quiet", "--initial-branch=main")
    shas = {}
    for branch in OSB_BRANCHES:
        if branch != "main":
            _git(work, "checkout", "--quiet", "-B", branch, "main")
        for name in ("eventdata", "group/nested"):
            spec = json.loads(WORKLOAD.read_text())
            spec["description"] = f"[branch {branch}] OSB workload {name}"
            (work / name).mkdir(parents=True, exist_ok=True)
            (work / name / "workload.json").write_text(json.dumps(spec))
        # tiny: compare-tiny (a corpus of 1,000 documents) as an OSB workload.
        tiny = work / "tiny"
        shutil.rmtree(tiny, ignore_errors=True)
        shutil.copytree(TINY, tiny)
        text = (tiny / "track.json").read_text()
        (tiny / "track.json").unlink()
        text = text.replace(
            '"description": "Tiny track', f'"description": "[branch {branch}] OSB workload tiny', 1
        )
        (tiny / "workload.json").write_text(text)
        _git(work, "add", "-A")
        _git(work, "commit", "--quiet", "-m", f"workloads for {branch}")
        shas[branch] = _git(work, "rev-parse", "HEAD").strip()
        if branch != "main":
            _git(work, "checkout", "--quiet", "main")
    bare = base / "workloads.git"
    _git(base, "clone", "--quiet", "--bare", str(work), str(bare))
    return f"file://{bare}", shas


RALLY_TRACKS_MIRROR = Path(
    os.environ.get("ESBENCH_TEST_RALLY_TRACKS", "/work/.mirror/elastic+rally-tracks/repo")
)
OSB_WORKLOADS_MIRROR = Path(
    os.environ.get(
        "ESBENCH_TEST_OSB_WORKLOADS", "/work/.mirror/opensearch-project+opensearch-benchmark-workloads/repo"
    )
)


def mirror_branches(mirror: Path) -> list[str]:
    """The branch names of a mirror (its ``refs/heads``)."""
    refs = _git(mirror, "for-each-ref", "--format=%(refname:short)", "refs/heads")
    return refs.split()


def snapshot_repository(mirror: Path, branches: list[str], base: Path) -> str:
    """A bare repository ``base/snapshot.git`` with one parentless commit per branch of ``mirror``
    holding that branch's files but those whose blob the mirror lacks; its ``file://`` URL."""
    bare = base / "snapshot.git"
    # A local clone copies the object store as it is (no check of unreachable or missing blobs).
    _git(base, "clone", "--quiet", "--bare", "--no-tags", str(mirror), str(bare))
    index = base / "snapshot.index"
    for branch in branches:
        entries = _git(bare, "ls-tree", "-r", f"refs/heads/{branch}").splitlines()
        shas = "\n".join(line.split()[2] for line in entries) + "\n"
        checked = subprocess.run(
            ["git", "cat-file", "--batch-check"],
            cwd=bare,
            input=shas,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        missing = [
            entry.split("\t", 1)[1]
            for entry, state in zip(entries, checked, strict=True)
            if "missing" in state
        ]
        # An index of its own and an empty work tree: a bare repository refuses index commands.
        (base / "snapshot.tree").mkdir(exist_ok=True)
        env = {
            "GIT_INDEX_FILE": str(index),
            "GIT_DIR": str(bare),
            "GIT_WORK_TREE": str(base / "snapshot.tree"),
        }
        _git(bare, "read-tree", f"refs/heads/{branch}", env=env)
        if missing:
            _git(bare, "update-index", "--force-remove", "--", *missing, env=env)
        tree = _git(bare, "write-tree", env=env).strip()
        commit = _git(bare, "commit-tree", tree, "-m", f"snapshot of {branch}").strip()
        _git(bare, "update-ref", f"refs/heads/{branch}", commit)
    for branch in set(mirror_branches(bare)) - set(branches):
        _git(bare, "update-ref", "-d", f"refs/heads/{branch}")
    return f"file://{bare}"
