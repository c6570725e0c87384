"""The meanings of Rally options that esbench takes (issue 38): each test fails if the option parsed
but did not do what Rally's does."""

from __future__ import annotations

import os
import pstats
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from esbench.cli import main
from esbench.cli.provision import for_target
from esbench.driver.worker.profiling import worker_profile
from esbench.exceptions import JavaError, UserError
from esbench.provision.cluster import _node_name
from esbench.provision.java import runtime_java
from esbench.provision.settings import DistributionRepository, ProvisionSettings
from esbench.racecontrol.leftovers import is_esbench_race, leftover_races, stop_leftovers
from esbench.records import RaceResult, TaskResult
from esbench.reporting.compare_render import _pipe
from esbench.reporting.formats import NumbersAlign, ShowInReport, pipe_table
from esbench.reporting.summary import HEADERS, render_summary, summary_rows
from esbench.results.store import ResultsStore
from esbench.settings import RaceSettings

sys.path.append(str(Path(__file__).resolve().parents[1] / "results"))
from racefactory import make_race

TRACK = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "planning-search"


# ----------------------------------------------------------------------- --show-in-report, numbers


def _race() -> RaceResult:
    few = TaskResult(
        task="few-samples",
        operation="few-samples",
        operation_type="search",
        latency_ms={"50": 3.0, "100": 9.0},
        service_time_ms={"50": 2.0, "100": 8.0},
        sample_count=5,
    )
    return RaceResult(race_id="r", timestamp="2026-01-01T00:00:00Z", track="t", challenge="c", tasks=(few,))


def _metrics(show: ShowInReport) -> list[tuple[str, object]]:
    return [(r[0], r[2]) for r in summary_rows(_race(), show=show)]


def test_show_in_report_available_shows_the_rows_with_a_value() -> None:
    rows = _metrics(ShowInReport.AVAILABLE)
    assert [m for m, _ in rows if "latency" in m] == ["50th percentile latency", "100th percentile latency"]
    assert not any("Throughput" in m for m, _ in rows)


def test_show_in_report_all_percentiles_shows_every_percentile_row_without_a_value() -> None:
    rows = dict(_metrics(ShowInReport.ALL_PERCENTILES))
    for p in ("50", "90", "99", "99.9", "99.99", "100"):
        assert f"{p}th percentile latency" in rows and f"{p}th percentile service time" in rows
    assert rows["90th percentile latency"] is None and rows["50th percentile latency"] == 3.0
    assert not any("Throughput" in m for m in rows)


def test_show_in_report_all_also_shows_the_throughput_rows_a_task_lacks() -> None:
    rows = dict(_metrics(ShowInReport.ALL))
    assert rows["Mean Throughput"] is None and "99.99th percentile latency" in rows


@pytest.mark.parametrize("align", list(NumbersAlign))
def test_report_numbers_align_is_tabulates_numalign(align: NumbersAlign) -> None:
    text = render_summary(_race(), numbers_align=align)
    expected = pipe_table(HEADERS, summary_rows(_race()), numalign=align.value)
    assert expected in text


def test_numbers_align_changes_the_table() -> None:
    left = render_summary(_race(), numbers_align=NumbersAlign.LEFT)
    right = render_summary(_race(), numbers_align=NumbersAlign.RIGHT)
    assert left != right


def test_compare_aligns_its_number_columns() -> None:
    rows = [["p50", "1.5", "+0.25"], ["p100", "10.25", "-12.5"]]
    left = _pipe(["Metric", "Baseline", "Diff"], rows, NumbersAlign.LEFT).splitlines()
    assert re.search(r"\| 1\.5\s+\|", left[2]) and re.search(r"\| 10\.25\s+\|", left[3])
    decimal = _pipe(["Metric", "Baseline", "Diff"], rows, NumbersAlign.DECIMAL).splitlines()
    assert decimal[2].index("1.5") + 1 == decimal[3].index("10.25") + 2  # the points line up
    # Without the option, the text keeps its right alignment.
    assert _pipe(["Metric", "Baseline", "Diff"], rows) != "\n".join(left)


# ----------------------------------------------------------------------- delete race --id --dry-run


def test_delete_race_takes_rallys_id_list_and_dry_run(isolated_home: Path) -> None:
    races = [make_race(seed=i) for i in range(3)]
    with ResultsStore.open() as store:
        for race in races:
            store.save(race)
    ids = f"{races[0].race_id},{races[1].race_id}"
    dry = CliRunner().invoke(main, ["delete", "race", f"--id={ids}", "--dry-run"])
    assert dry.exit_code == 0 and dry.output.count("Would delete race") == 2, dry.output
    with ResultsStore.open() as store:
        assert len(store.find()) == 3
    done = CliRunner().invoke(main, ["delete", "race", f"--id={ids}"])
    assert done.exit_code == 0 and done.output.count("Deleted race") == 2, done.output
    with ResultsStore.open() as store:
        assert [r.race_id for r in store.find()] == [races[2].race_id]
    none = CliRunner().invoke(main, ["delete", "race"])
    assert none.exit_code == 64 and "--id=RACE" in none.output


# ----------------------------------------------------------------------- track tools


def test_info_filters_the_schedule_like_a_race() -> None:
    result = CliRunner().invoke(main, ["info", f"--track-path={TRACK}", "--include-tasks=infix-search"])
    assert result.exit_code == 0, result.output
    search = result.output.split("Challenge [search]")[1].split("Challenge [bulk]")[0]
    assert "infix-search" in search and "index-append" not in search
    excluded = CliRunner().invoke(main, ["info", f"--track-path={TRACK}", "--exclude-tasks=type:search"])
    assert "infix-search" not in excluded.output.split("Challenge [search]")[1]
    bad = CliRunner().invoke(main, ["info", f"--track-path={TRACK}", "--include-tasks=no-such-task"])
    assert bad.exit_code == 64 and "matches no task" in bad.output


def test_render_track_is_quiet_by_default_like_rally(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    quiet = CliRunner().invoke(main, ["render-track", f"--track-path={TRACK}", f"--output-path={out}"])
    assert quiet.exit_code == 0 and "written to" not in quiet.output and out.is_file()
    loud = CliRunner().invoke(
        main, ["render-track", f"--track-path={TRACK}", f"--output-path={out}", "--no-quiet"]
    )
    assert f"Rendered track has been written to [{out}]." in loud.output


def test_list_tracks_track_path_lists_that_track() -> None:
    result = CliRunner().invoke(main, ["list", "tracks", f"--track-path={TRACK}"])
    assert result.exit_code == 0
    # Rally's listing of one track: the header, the rule and that track's row only.
    table = [line for line in result.output.splitlines() if line.strip()][1:]
    assert table[0].startswith("Name") and len(table) == 3 and table[2].startswith(TRACK.name)


# ----------------------------------------------------------------------- provisioning


def _fake_jdk(root: Path, major: int) -> Path:
    home = root / f"jdk-{major}"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text("#!/bin/sh\nexit 0\n")
    java.chmod(0o755)
    (home / "release").write_text(f'JAVA_VERSION="{major}.0.2"\n')
    return home


def test_runtime_jdk_n_takes_java_n_home(tmp_path: Path) -> None:
    j17, j21 = _fake_jdk(tmp_path, 17), _fake_jdk(tmp_path, 21)
    env = {"JAVA17_HOME": str(j17), "JAVA21_HOME": str(j21), "PATH": ""}
    picked = runtime_java("21", "8.19.0", env=env, jvm_dirs=())
    assert (picked.path, picked.major, picked.origin) == (j21.resolve(), 21, "JAVA21_HOME")
    assert runtime_java("17", "8.19.0", env=env, jvm_dirs=()).path == j17.resolve()


def test_runtime_jdk_is_checked_against_what_elasticsearch_needs(tmp_path: Path) -> None:
    env = {"JAVA17_HOME": str(_fake_jdk(tmp_path, 17)), "PATH": ""}
    with pytest.raises(JavaError, match=r"cannot run Elasticsearch 9\.1\.0: it needs Java 21 or newer"):
        runtime_java("17", "9.1.0", env=env, jvm_dirs=())
    with pytest.raises(JavaError, match=r"JAVA17_HOME=.* is Java 21, not Java 17"):
        runtime_java("17", "8.19.0", env={"JAVA17_HOME": str(_fake_jdk(tmp_path / "x", 21))}, jvm_dirs=())
    with pytest.raises(JavaError, match=r"no Java 21 found\. Set JAVA21_HOME"):
        runtime_java("21", "8.19.0", env={"PATH": ""}, jvm_dirs=())


def test_runtime_jdk_bundled_takes_the_distributions_jdk(tmp_path: Path) -> None:
    dist = tmp_path / "elasticsearch-8.19.0"
    dist.mkdir()
    _fake_jdk(tmp_path, 24).rename(dist / "jdk")
    picked = runtime_java("bundled", "8.19.0", dist_home=dist, env={"PATH": ""}, jvm_dirs=())
    assert picked.path == (dist / "jdk").resolve() and picked.major == 24
    with pytest.raises(JavaError, match="has no bundled JDK"):
        runtime_java("bundled", "8.19.0", dist_home=tmp_path / "none", env={"PATH": ""}, jvm_dirs=())


def test_node_name_names_the_node_or_numbers_several() -> None:
    assert _node_name(ProvisionSettings(), 0) == "node-0"
    assert _node_name(ProvisionSettings(node_name="rally-node-0"), 0) == "rally-node-0"
    assert [_node_name(ProvisionSettings(node_name="n", nodes=2), i) for i in range(2)] == ["n-0", "n-1"]


def test_download_target_os_and_arch_pick_elastics_archive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ESBENCH_DISTRIBUTION_URL", raising=False)
    settings = for_target(ProvisionSettings(distribution_version="8.19.0"), "darwin", "aarch64")
    from esbench.provision.repositories import elastic_url

    assert settings.distribution_repository is DistributionRepository.ELASTIC
    assert elastic_url("8.19.0", settings.elastic_url_template).endswith(
        "elasticsearch-8.19.0-darwin-aarch64.tar.gz"
    )
    with pytest.raises(UserError, match="same on every platform"):
        for_target(ProvisionSettings(distribution_repository=DistributionRepository.MAVEN), "linux", None)


# ----------------------------------------------------------------------- --race-id


def test_a_race_id_that_exists_is_refused_before_anything_starts(isolated_home: Path) -> None:
    from esbench.racecontrol import run_race

    (isolated_home / "races" / "nightly-1").mkdir(parents=True)
    settings = RaceSettings(track_path=TRACK, target_hosts=("127.0.0.1:9",), race_id="nightly-1")
    with pytest.raises(UserError, match="a race with this id exists already"):
        run_race(settings)


# ----------------------------------------------------------------------- --kill-running-processes


@pytest.mark.parametrize(
    ("cmdline", "race"),
    [
        (["/usr/bin/python3", "/usr/local/bin/esbench", "race", "--track=x"], True),
        (["python", "-m", "esbench", "--verbose", "sweep", "--clients=1,2"], True),
        (["esbench", "list", "races"], False),
        (["esbench", "--help"], False),
        (["/usr/bin/esrally", "race"], False),
        (["vim", "esbench.log"], False),
    ],
)
def test_which_command_lines_are_esbench_races(cmdline: list[str], race: bool) -> None:
    assert is_esbench_race(cmdline) is race


def _spawn(home: Path, *words: str) -> subprocess.Popen[bytes]:
    # A process whose command line reads like an esbench command (python -c ... esbench <words>),
    # with ``home`` as its esbench home.
    env = {**os.environ, "ESBENCH_HOME": str(home)}
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(120)", "esbench", *words], env=env
    )


def test_kill_running_processes_stops_this_homes_other_races_only(
    isolated_home: Path, tmp_path: Path
) -> None:
    # Only processes of this test's own (temporary) esbench home can match: the races of every other
    # home on the machine (other people's, other test sessions') are out of reach by construction.
    racing = _spawn(isolated_home, "race", "--track=geonames")
    listing = _spawn(isolated_home, "list", "races")
    elsewhere = _spawn(tmp_path / "another-home", "race", "--track=geonames")
    try:
        deadline = time.monotonic() + 10
        while racing.pid not in {p.pid for p in leftover_races()} and time.monotonic() < deadline:
            time.sleep(0.05)  # until the child's command line is readable
        lines: list[str] = []
        stopped = stop_leftovers(lines.append, grace_s=5)
        assert {pid for pid, _ in stopped.processes} == {racing.pid}
        assert racing.wait(timeout=10) is not None
        assert listing.poll() is None and elsewhere.poll() is None
        assert any(str(racing.pid) in line for line in lines)
    finally:
        for proc in (racing, listing, elsewhere):
            proc.kill()
            proc.wait()


# ----------------------------------------------------------------------- --enable-driver-profiling


def test_worker_profile_keeps_the_profile_with_the_race(tmp_path: Path) -> None:
    log = tmp_path / "race" / "esbench.log"
    log.parent.mkdir()

    def busy_function_to_find() -> int:
        return sum(i * i for i in range(20000))

    with worker_profile(3, str(log)):
        busy_function_to_find()
    stats = pstats.Stats(str(tmp_path / "race" / "profiles" / "worker-3.pstats"))
    assert any(func[2] == "busy_function_to_find" for func in stats.stats)  # type: ignore[attr-defined]
    assert "busy_function_to_find" in (tmp_path / "race" / "profiles" / "worker-3.txt").read_text()
    with worker_profile(4, None):
        busy_function_to_find()
    assert not (tmp_path / "race" / "profiles" / "worker-4.pstats").exists()
