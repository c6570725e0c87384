"""Which repository a track name means: Rally's rally-tracks for Rally's spelling and command names,
OSB's opensearch-benchmark-workloads for OSB's (``--workload``, ``run``, ``list workloads``), and
``list tracks`` listing the default repository as Rally does.

Local repositories stand in for GitHub (tests/track_repositories.py); the branch choice is compared
with Rally 2.13's and OSB 2.4.0's own ``best_match``, run in their venvs (skipped without them, as
test_osb_options.py). tests/integration/test_peer_track_repositories.py compares the listings with
the peers' own on the real repositories.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from peer_pythons import peer_python_or_skip

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from track_repositories import (
    configure,
    make_track_repository,
    make_workload_repository,
)

from esbench.cli import main
from esbench.cli._track_source import pop_track_source
from esbench.cli.options.coverage import OSB, RALLY, Peer
from esbench.track.repository import RepositoryPeer, TrackRepositorySettings
from esbench.track.versions import OSB_BRANCHES, RALLY_BRANCHES, best_match

BUILTIN_EVENTDATA = "HTTP access logs of a software vendor's web site"


def _run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def workloads(tmp_path: Path, isolated_home: Path) -> dict[str, str]:
    url, shas = make_workload_repository(tmp_path / "osb-git")
    configure(isolated_home, "default", url, section="workloads")
    return shas


@pytest.fixture
def tracks(tmp_path: Path, isolated_home: Path) -> dict[str, str]:
    url, shas = make_track_repository(tmp_path / "rally-git")
    configure(isolated_home, "default", url)
    return shas


# --- the branch for a distribution version: each peer's own best_match is the oracle ---

GRID_BRANCHES = [
    ["main", "1", "2", "3", "5", "6", "7", "ES-6", "ES-7", "OS-1", "OS-2", "OS-3"],  # OSB's repository
    ["main", "2", "2.0", "2.11", "3"],
    ["master", "8", "8.0", "8.17", "9", "9.1"],
    ["master", "7", "7.11", "7.2", "5", "6"],
]
GRID_VERSIONS = [None, "", "1.3.0", "2.0.1", "2.5.0", "2.11.0", "2.18.0", "2.18.0-SNAPSHOT", "3.1.0", "4.0.0"]
GRID_VERSIONS += ["7.1.0", "7.12.0", "8.0.5", "8.19.0", "9.1.0", "9.3.0", "10.0.0", "bogus"]


@pytest.mark.parametrize(
    ("peer", "rule"), [(OSB, OSB_BRANCHES), (RALLY, RALLY_BRANCHES)], ids=["osb", "rally"]
)
def test_the_branch_for_a_version_is_the_one_the_peer_picks(peer: Peer, rule: Any) -> None:
    cases = [(branches, version) for branches in GRID_BRANCHES for version in GRID_VERSIONS]
    module = "osbenchmark" if peer is OSB else "esrally"
    script = (
        f"import json, sys\nfrom {module}.utils import versions\n"
        "print(json.dumps([versions.best_match(b, v) for b, v in json.load(sys.stdin)]))"
    )
    done = subprocess.run(
        [str(peer_python_or_skip(peer)), "-c", script],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    ours = [best_match(branches, version, rule) for branches, version in cases]
    differ = [(c, o, t) for c, o, t in zip(cases, ours, theirs, strict=True) if o != t]
    assert not differ, differ
    # The grid reaches both differences of OSB's rule: "main" and no "X.0" as the nearest minor.
    if peer is OSB:
        assert "main" in theirs and best_match(["main", "2", "2.0", "2.11"], "2.5.0", rule) == "2"


# --- which repository a name means ---


def _peer_of(args: list[str], monkeypatch: pytest.MonkeyPatch) -> RepositoryPeer:
    """The peer of the track source that the command line ``args`` gives (its callback replaced)."""
    seen: list[RepositoryPeer] = []
    command: click.Command = main
    for word in args:
        if not isinstance(command, click.Group):
            break
        command = command.commands[word]
    monkeypatch.setattr(command, "callback", lambda **kw: seen.append(pop_track_source(kw).peer))
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return seen[0]


@pytest.mark.parametrize(
    ("args", "peer"),
    [
        (["race", "--track=geonames"], RepositoryPeer.RALLY),
        (["race", "--workload=geonames"], RepositoryPeer.OSB),
        (["run", "--workload=geonames"], RepositoryPeer.OSB),
        (["run", "-w", "geonames"], RepositoryPeer.OSB),
        (["execute-test", "--workload=geonames"], RepositoryPeer.OSB),
        (["info", "--track=nyc_taxis"], RepositoryPeer.RALLY),
        (["info", "--workload=nyc_taxis"], RepositoryPeer.OSB),
        (["info", "--track=nyc_taxis", "--workload-repository=default"], RepositoryPeer.OSB),
        (["info", "--track=nyc_taxis", "--track-repository=default"], RepositoryPeer.RALLY),
        (["download", "--workload=nyc_taxis"], RepositoryPeer.OSB),
        (["list", "tracks"], RepositoryPeer.RALLY),
        (["list", "workloads"], RepositoryPeer.OSB),
        (["sweep", "--workload=geonames", "--clients=1,2"], RepositoryPeer.OSB),
        (["sweep", "--track=geonames", "--clients=1,2"], RepositoryPeer.RALLY),
    ],
)
def test_osb_names_and_spellings_choose_osbs_repository(
    args: list[str], peer: RepositoryPeer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert _peer_of(args, monkeypatch) is peer


def test_both_spellings_of_one_option_are_refused() -> None:
    result = _run("info", "--track=geonames", "--workload=nyc_taxis")
    assert result.exit_code == 64
    assert (
        "--track=geonames and --workload/-w=nyc_taxis give one option, in Rally's and OSB's spelling, two "
        "values; give it once." in " ".join(result.output.split())
    )


def test_a_workload_name_is_osbs_workload_even_where_esbench_has_a_track_of_that_name(workloads) -> None:
    osb = _run("info", "--workload=eventdata")
    assert osb.exit_code == 0, osb.output
    assert "[branch main] OSB workload eventdata" in osb.output and BUILTIN_EVENTDATA not in osb.output
    # Rally's spelling keeps esbench's built-in track (rally-tracks has no eventdata: see below).
    rally = _run("info", "--track=eventdata")
    assert rally.exit_code == 0, rally.output
    assert BUILTIN_EVENTDATA in rally.output
    # The branch follows the distribution version by OSB's rule.
    assert (
        "[branch 2] OSB workload tiny" in _run("info", "-w", "tiny", "--distribution-version=2.18.0").output
    )
    assert (
        "[branch main] OSB workload tiny" in _run("info", "-w", "tiny", "--distribution-version=9.0.0").output
    )


def test_an_unknown_workload_names_osbs_repository_and_the_rally_spelling(workloads) -> None:
    result = _run("info", "--workload=geonamez")
    assert result.exit_code == 64
    text = " ".join(result.output.split())
    assert "has no workload 'geonamez'. Its workloads: eventdata, tiny." in text
    assert "looked for it in OSB's workload repository 'default', as OSB does" in text
    assert "esbench race --track=geonamez" in text
    # OSB sees top-level workloads only (GitWorkloadRepository.workload_names).
    nested = _run("info", "--workload=group/nested")
    assert nested.exit_code == 64 and "has no workload 'group/nested'" in " ".join(nested.output.split())


def test_a_user_workload_under_the_esbench_home_is_a_local_track_for_rallys_spelling(
    isolated_home: Path,
) -> None:
    mine = isolated_home / "tracks" / "mine"
    mine.mkdir(parents=True)
    (mine / "workload.json").write_text(json.dumps({"description": "my workload", "schedule": []}))
    # Found by name without any repository (before: looked for in rally-tracks).
    assert TrackRepositorySettings().resolve("mine", offline=True, distribution_version=lambda: None) == (
        None,
        None,
    )


def test_list_workloads_lists_osbs_repository_on_the_branch_for_the_version(workloads, isolated_home) -> None:
    listed = _run("list", "workloads")
    assert listed.exit_code == 0, listed.output
    rows = [line.split()[0] for line in listed.output.splitlines()[4:] if line.strip()]
    # Top-level workloads only (group/nested is not one for OSB), and no esbench built-in.
    assert rows == ["eventdata", "tiny"]
    assert "[branch main]" in listed.output
    clone = isolated_home / "benchmarks" / "workloads" / "default"
    assert (clone / "tiny" / "workload.json").is_file()
    old = _run("list", "workloads", "--distribution-version=1.3.0")
    assert old.exit_code == 0 and "[branch 1] OSB workload tiny" in old.output, old.output
    # Offline, OSB still checks out the branch for the version (from the last fetch).
    offline = _run("list", "workloads", "--distribution-version=3.0.0", "--offline")
    assert offline.exit_code == 0 and "[branch 3] OSB workload tiny" in offline.output, offline.output


# --- list tracks: the default repository too, on the branch for --distribution-version ---


def test_list_tracks_lists_the_default_repository_beside_the_built_in_tracks(tracks) -> None:
    listed = _run("list", "tracks")
    assert listed.exit_code == 0, listed.output
    rows = {line.split()[0]: line for line in listed.output.splitlines()[4:] if line.strip()}
    assert sorted(rows) == ["eventdata", "group/other", "tiny"]
    assert "[branch master] Tiny track" in rows["tiny"]
    versioned = _run("list", "tracks", "--distribution-version=8.8.2")
    assert versioned.exit_code == 0 and "[branch 8] Tiny track" in versioned.output, versioned.output
    # Offline, Rally uses the clone as it is (the version is not looked at).
    offline = _run("list", "tracks", "--distribution-version=9.1.0", "--offline")
    assert offline.exit_code == 0 and "[branch 8] Tiny track" in offline.output, offline.output


def test_list_tracks_without_the_default_repository_still_lists_esbenchs_tracks(
    isolated_home: Path, tmp_path: Path
) -> None:
    offline = _run("list", "tracks", "--offline")
    assert offline.exit_code == 0
    assert "not listed: --offline and no clone in" in offline.output
    assert any(line.startswith("eventdata ") for line in offline.output.splitlines())
    configure(isolated_home, "default", f"file://{tmp_path / 'gone.git'}")
    unreachable = _run("list", "tracks")
    assert unreachable.exit_code == 0
    assert "[WARNING] The tracks of the track repository 'default' are not listed: Could not clone" in (
        unreachable.output
    )
    assert any(line.startswith("eventdata ") for line in unreachable.output.splitlines())
    # A repository the command line names must be there.
    named = _run("list", "tracks", "--track-repository=default")
    assert named.exit_code == 64 and "Could not clone the track repository 'default'" in named.output
