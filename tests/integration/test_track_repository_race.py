"""A track from a track repository (a local bare git repository) raced against the real node."""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harness import esbench
from track_repositories import configure, make_track_repository

from esbench.results.store import ResultsStore


def test_race_info_and_list_use_the_repository_branch_for_the_node_version(es_hosts, tmp_path) -> None:
    home = Path(os.environ["ESBENCH_HOME"])
    url, shas = make_track_repository(tmp_path / "git")
    configure(home, "local-test", url)
    index = f"esbench-it-repo-{uuid.uuid4().hex[:8]}"

    listed = esbench("list", "tracks", "--track-repository=local-test", "--track-branch=9")
    assert listed.returncode == 0, listed.stderr
    assert "[branch 9] Tiny track" in listed.stdout and "group/other" in listed.stdout

    info = esbench("info", "--track=tiny", "--track-repository=local-test", "--distribution-version=8.8.2")
    assert info.returncode == 0, info.stderr
    assert "[branch 8] Tiny track" in info.stdout

    raced = esbench(
        "race", "--track=tiny", "--track-repository=local-test", f"--target-hosts={','.join(es_hosts)}",
        f"--track-params=index_name:{index},search_time_period:1", "--test-mode", "--user-tag=repo:it",
    )  # fmt: skip
    assert raced.returncode == 0, raced.stderr
    (race,) = ResultsStore.open().find(user_tags={"repo": "it"})
    # The node runs 8.19.x; the repository has 8.17 as its nearest earlier minor branch (Rally's rule).
    assert race.track_repository == "local-test" and race.track_revision == shas["8.17"]
    assert race.task("index-append").total_weight == 1000

    # Offline, the clone is used as it is.
    offline = esbench("info", "--track=tiny", "--track-repository=local-test", "--offline")
    assert offline.returncode == 0 and "[branch 8.17] Tiny track" in offline.stdout, offline.stderr
    import urllib.request

    urllib.request.urlopen(urllib.request.Request(f"http://{es_hosts[0]}/{index}", method="DELETE")).read()
