"""``list tracks`` and ``list workloads`` against the real repositories: the mirrors of rally-tracks
and opensearch-benchmark-workloads (``ESBENCH_TEST_RALLY_TRACKS``, ``ESBENCH_TEST_OSB_WORKLOADS``;
default /work/.mirror/...; skipped without them, as CI has no GitHub), each served to esbench as a
local repository (tests/track_repositories.py ``snapshot_repository``), with Rally 2.13's ``esrally
list tracks --offline`` and OSB 2.4.0's ``opensearch-benchmark list workloads --offline`` run on a
clone of the same repository as the oracles (skipped without their venvs). These need no node; one
test races a workload of a local OSB-layout repository with ``esbench run --workload`` on ``es_hosts``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from peer_pythons import peer_python_or_skip

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import esbench
from track_repositories import (
    OSB_WORKLOADS_MIRROR,
    RALLY_TRACKS_MIRROR,
    configure,
    make_workload_repository,
    mirror_branches,
    snapshot_repository,
)

from esbench.cli import main
from esbench.cli.options.coverage import OSB, RALLY
from esbench.home import builtin_tracks_dir
from esbench.results.store import ResultsStore
from esbench.track.versions import OSB_BRANCHES, best_match


def _run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


needs_rally_tracks = pytest.mark.skipif(
    not RALLY_TRACKS_MIRROR.exists(), reason=f"no rally-tracks mirror at {RALLY_TRACKS_MIRROR}"
)
needs_osb_workloads = pytest.mark.skipif(
    not OSB_WORKLOADS_MIRROR.exists(),
    reason=f"no opensearch-benchmark-workloads mirror at {OSB_WORKLOADS_MIRROR}",
)


def _listed_names(output: str) -> list[str]:
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Name ")) + 2
    rows = []
    for line in lines[start:]:
        if not line.strip():
            break  # the peers print their status lines after a blank line
        rows.append(line.split()[0])
    return sorted(rows)


def _peer_listing(program: Path, home: Path, *args: str) -> list[str]:
    done = subprocess.run(
        [str(program), "list", *args, "--offline"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HOME": str(home)},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return _listed_names(done.stdout)


@needs_rally_tracks
def test_list_tracks_names_rallys_tracks_of_rally_tracks(isolated_home: Path, tmp_path: Path) -> None:
    url = snapshot_repository(RALLY_TRACKS_MIRROR, ["master"], tmp_path)
    configure(isolated_home, "default", url)
    ours = _run("list", "tracks")
    assert ours.exit_code == 0, ours.output
    names = _listed_names(ours.output)
    assert len(names) > 30 and "elastic/logs" in names and "geonames" in names
    rally = peer_python_or_skip(RALLY).parent / "esrally"
    home = tmp_path / "rally-home"
    subprocess.run(
        ["git", "clone", "-q", url, str(home / ".rally" / "benchmarks" / "tracks" / "default")], check=True
    )
    assert [n for n in names if n != "eventdata"] == _peer_listing(rally, home, "tracks")


@needs_osb_workloads
def test_list_workloads_names_osbs_workloads_on_osbs_branch(isolated_home: Path, tmp_path: Path) -> None:
    branches = mirror_branches(OSB_WORKLOADS_MIRROR)
    url = snapshot_repository(OSB_WORKLOADS_MIRROR, branches, tmp_path)
    configure(isolated_home, "default", url, section="workloads")
    ours = _run("list", "workloads")
    assert ours.exit_code == 0, ours.output
    names = _listed_names(ours.output)
    assert "nyc_taxis" in names and "geonames" in names and "eventdata" in names
    osb = peer_python_or_skip(OSB).parent / "opensearch-benchmark"
    home = tmp_path / "osb-home"
    clone = home / ".benchmark" / "benchmarks" / "workloads" / "default"
    subprocess.run(["git", "clone", "-q", url, str(clone)], check=True)
    assert names == _peer_listing(osb, home, "workloads")
    # The branch for an OpenSearch version: OSB checks out the one its best_match picks.
    ours = _run("list", "workloads", "--distribution-version=2.18.0")
    assert ours.exit_code == 0, ours.output
    ours_head = subprocess.run(
        ["git", "-C", str(isolated_home / "benchmarks" / "workloads" / "default"), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    expected = best_match(branches, "2.18.0", OSB_BRANCHES)
    assert expected == "2"
    assert (
        ours_head
        == subprocess.run(
            ["git", "rev-parse", f"origin/{expected}"], cwd=clone, capture_output=True, text=True, check=True
        ).stdout.strip()
    )


@needs_rally_tracks
def test_rally_tracks_has_no_track_named_like_a_built_in_track() -> None:
    """Why Rally's --track keeps esbench's built-in tracks (docs/tracks.md): no branch of rally-tracks
    has a track of their names, so Rally 2.13 fails where esbench races its own."""
    builtins = {
        p.parent.relative_to(builtin_tracks_dir()).as_posix()
        for p in builtin_tracks_dir().rglob("track.json")
    }
    assert "eventdata" in builtins
    clashes = {}
    for branch in mirror_branches(RALLY_TRACKS_MIRROR):
        files = subprocess.run(
            ["git", "ls-tree", "-r", "--name-only", f"refs/heads/{branch}"],
            cwd=RALLY_TRACKS_MIRROR,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        names = {f.rsplit("/", 1)[0] for f in files if f.endswith("/track.json")}
        if names & builtins:
            clashes[branch] = sorted(names & builtins)
    assert not clashes


def test_run_races_the_workload_of_osbs_repository_on_osbs_branch(es_hosts, tmp_path: Path) -> None:
    home = Path(os.environ["ESBENCH_HOME"])
    url, shas = make_workload_repository(tmp_path / "git")
    configure(home, "default", url, section="workloads")
    # The index it makes is deleted after the test (tests/integration/conftest.py).
    index = f"esbench-it-osbrepo-{uuid.uuid4().hex[:8]}"
    raced = esbench(
        "run", "--workload=tiny", f"--target-hosts={','.join(es_hosts)}", "--test-mode",
        f"--workload-params=index_name:{index},search_time_period:1", "--user-tag=osbrepo:it",
    )  # fmt: skip
    assert raced.returncode == 0, raced.stderr
    (race,) = ResultsStore.open().find(user_tags={"osbrepo": "it"})
    # The node's major (8) is newer than every version branch (1, 2, 3): OSB's last resort, main.
    assert race.track_repository == "default" and race.track_revision == shas["main"]
    assert race.task("index-append").total_weight == 1000
    assert (home / "benchmarks" / "workloads" / "default" / "tiny" / "workload.json").is_file()
