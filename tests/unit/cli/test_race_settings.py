"""One path from options to RaceSettings: race, a planning command and query turn the same race
options into the same settings (esbench/cli/_race_settings.py), and the track options are checked once,
with the messages the commands always gave."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from esbench.cli import main
from esbench.driver.settings import OnError
from esbench.settings import Pipeline, RaceSettings

TRACK = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "planning-search"
SHARED = [
    "--target-hosts=127.0.0.1:9",
    "--pipeline=benchmark-only",
    "--client-options=timeout:7",
    "--user-tag=env:ci",
    "--load-driver-workers=2",
    "--offline",
    "--car=4gheap",
]


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 64, result.output
    return result.output


def _shared_fields(settings: RaceSettings) -> tuple[Any, ...]:
    return (
        settings.target_hosts,
        settings.pipeline,
        settings.client_options.timeout,
        dict(settings.user_tags),
        settings.driver.workers,
        settings.offline,
        settings.provision.offline,
        settings.provision.car,
    )


def test_race_planning_and_query_build_the_same_settings(captured: list[RaceSettings]) -> None:
    _run(
        "race",
        f"--track-path={TRACK}",
        "--include-tasks=infix-search",
        "--track-params=search_clients:3",
        *SHARED,
    )
    _run(
        "sweep",
        f"--track-path={TRACK}",
        "--task=infix-search",
        "--clients=1,2",
        "--include-tasks=infix-search",
        "--track-params=search_clients:3",
        *SHARED,
    )
    _run("query", "http://127.0.0.1:9/idx/_search", "--body={}", *SHARED)
    race, sweep, query = captured
    expected = (("127.0.0.1:9",), Pipeline.BENCHMARK_ONLY, 7, {"env": "ci"}, 2, True, True, "4gheap")
    assert _shared_fields(race) == expected
    assert _shared_fields(query) == expected
    # A sweep point adds its own tags (sweep id, group) to the user's.
    assert _shared_fields(sweep)[:3] == expected[:3] and sweep.user_tags["env"] == "ci"
    assert race.track_path == TRACK and race.track_name is None and race.track is None
    assert race.driver.include_tasks == sweep.driver.include_tasks == ("infix-search",)
    assert dict(race.track_params) == dict(sweep.track_params) == {"search_clients": 3}
    assert race.driver.on_error is OnError.CONTINUE and query.driver.on_error is OnError.CONTINUE
    assert query.track is not None and query.track_path is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["race", "--target-hosts=127.0.0.1:9"], "Give exactly one of --track=NAME or --track-path=DIR"),
        (
            ["race", "--track=geonames", f"--track-path={TRACK}"],
            "Give exactly one of --track=NAME or --track-path=DIR (see 'esbench list tracks').",
        ),
        (
            ["sweep", "--task=infix-search", "--clients=1,2", "--target-hosts=127.0.0.1:9"],
            "Give exactly one of --track=NAME or --track-path=DIR",
        ),
        (["info"], "Give exactly one of --track=NAME and --track-path=DIR|FILE."),
    ],
)
def test_the_track_rule_keeps_each_commands_wording(
    args: list[str], message: str, captured: list[RaceSettings]
) -> None:
    output = _run(*args)
    assert f"[ERROR] {message}" in output
    assert captured == []


def test_a_bundle_with_a_track_is_refused_before_anything_is_unpacked(
    tmp_path: Path, captured: list[RaceSettings]
) -> None:
    bundle = tmp_path / "b.tar"
    bundle.write_bytes(b"not a tar")
    output = _run("race", f"--track-bundle={bundle}", "--track=geonames")
    assert "--track-bundle brings its own track: leave out --track and --track-path." in output
    assert captured == []
