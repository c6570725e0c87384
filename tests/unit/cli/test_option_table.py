"""The option table (esbench/cli/options) is what the commands take: every entry is an option of
each command it names, with every spelling; its settings field exists; a refused option parses and
then stops the command with its reason (exit 64) before the command does anything; aliases (Rally's
``--user-tag``, OSB's ``--test-procedure``) fill the same setting."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from esbench.cli import main
from esbench.cli.options import OPTIONS, CliOption, Kind, entries_for
from esbench.driver.settings import DriverSettings
from esbench.exceptions import UserError
from esbench.provision.settings import ProvisionSettings
from esbench.reporting.formats import NumbersAlign, ShowInReport
from esbench.reporting.percentiles import ReportPercentiles
from esbench.settings import Pipeline, RaceSettings, ReportSettings
from esbench.telemetry.settings import TelemetrySettings
from esbench.track.repository import TrackRepositorySettings

MINIMAL = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "minimal"
TRACK = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "planning-search"


def command_at(path: str) -> click.Command:
    """The click command at ``path`` (``"list races"``)."""
    command: click.Command = main
    for name in path.split():
        assert isinstance(command, click.Group), path
        command = command.commands[name]
    return command


def _params(path: str) -> dict[str, click.Parameter]:
    return {p.name or "": p for p in command_at(path).params}


@pytest.mark.parametrize("entry", OPTIONS, ids=lambda e: e.long)
def test_each_entry_is_an_option_of_every_command_it_names(entry: CliOption) -> None:
    for path in entry.commands:
        param = _params(path).get(entry.name)
        assert isinstance(param, click.Option), f"{path} lacks {entry.long}"
        spellings = set(param.opts) | set(param.secondary_opts)
        assert set(entry.spellings_at(path)) <= spellings, (path, entry.spellings_at(path), spellings)


_SETTINGS: dict[str, type] = {
    "RaceSettings": RaceSettings,
    "ProvisionSettings": ProvisionSettings,
}
_NESTED: dict[str, type] = {
    "driver": DriverSettings,
    "report": ReportSettings,
    "provision": ProvisionSettings,
    "track_source": TrackRepositorySettings,
    "telemetry": TelemetrySettings,
    "percentiles": ReportPercentiles,
}


@pytest.mark.parametrize(
    "entry",
    [e for e in OPTIONS if e.refused is None and e.field.split(".")[0] in _SETTINGS],
    ids=lambda e: e.long,
)
def test_the_settings_field_of_an_entry_exists(entry: CliOption) -> None:
    first, *rest = entry.field.split(" ")[0].split(".")
    cls = _SETTINGS[first]
    for i, name in enumerate(rest):
        fields = {f.name for f in dataclasses.fields(cls)}
        assert name in fields, f"{entry.field}: {cls.__name__} has no field {name!r}"
        if i < len(rest) - 1:
            cls = _NESTED[name]


def race_of(*args: str, command: str = "race") -> RaceSettings:
    """The settings ``esbench COMMAND ARGS`` (``race`` or OSB's ``run``) starts a race with (the race
    itself is not run)."""
    seen: list[RaceSettings] = []

    def fake_race(settings: RaceSettings, console: Any = None) -> None:
        seen.append(settings)
        raise UserError("captured")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("esbench.racecontrol.run_race", fake_race)
        result = CliRunner().invoke(main, [command, *args])
    assert result.exit_code == 64 and "captured" in result.output, (args, result.output)
    return seen[0]


def _race(*args: str) -> RaceSettings:
    return race_of(f"--track-path={TRACK}", "--target-hosts=127.0.0.1:9", *args)


def _sample(entry: CliOption) -> list[str]:
    if entry.kind is Kind.VALUE:
        return [entry.long, "anything"]
    return [entry.long]


@pytest.mark.parametrize(
    ("path", "entry"),
    [(p, e) for e in OPTIONS if e.refused is not None for p in e.commands],
    ids=lambda v: v if isinstance(v, str) else v.long,
)
def test_a_refused_option_parses_then_stops_the_command_with_its_reason(
    path: str, entry: CliOption, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = command_at(path)
    ran: list[bool] = []
    monkeypatch.setattr(command, "callback", lambda **_: ran.append(True))
    result = CliRunner().invoke(main, [*path.split(), *_sample(entry)])
    assert result.exit_code == 64, result.output
    assert not ran
    assert result.output == f"[ERROR] {entry.long}: {entry.refused}\n"


def test_a_refused_reason_is_one_paragraph_that_says_what_to_do() -> None:
    for entry in OPTIONS:
        if entry.refused is not None:
            assert "\n" not in entry.refused and len(entry.refused) > 80, entry.long


def test_osb_test_procedure_is_the_challenge() -> None:
    assert _race("--test-procedure=bulk").challenge == "bulk"
    assert _race("--challenge=bulk").challenge == "bulk"


@pytest.mark.parametrize("flag", ["--user-tags", "--user-tag"])
def test_rally_spells_user_tags_both_ways(flag: str) -> None:
    assert dict(_race(f"{flag}=env:ci,disk:ssd").user_tags) == {"env": "ci", "disk": "ssd"}


def test_report_options_reach_the_report_settings() -> None:
    report = _race("--report-numbers-align=left", "--show-in-report=all-percentiles").report
    assert report.numbers_align is NumbersAlign.LEFT
    assert report.show_in_report is ShowInReport.ALL_PERCENTILES
    default = _race().report
    assert (default.numbers_align, default.show_in_report) == (NumbersAlign.DECIMAL, ShowInReport.AVAILABLE)


def test_race_id_and_provisioning_options_reach_the_settings() -> None:
    settings = _race(
        "--race-id=nightly-2024.05.01",
        "--cluster-name=bench",
        "--runtime-jdk=21",
        "--distribution-repository=release",
        "--no-quiet",
    )
    assert settings.race_id == "nightly-2024.05.01"
    assert settings.provision.cluster_name == "bench"
    assert settings.provision.runtime_jdk == "21"
    assert settings.provision.distribution_repository.value == "elastic"  # Rally's release


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--race-id=../x"], "is not a usable id"),
        (["--runtime-jdk=seventeen"], "not a JDK major version"),
        (["--pipeline=from-sources"], "does not build Elasticsearch from sources"),
        (["--pipeline=docker"], "does not run Elasticsearch in Docker"),
        (["--distribution-repository=snapshots"], "rally.ini"),
    ],
)
def test_values_esbench_cannot_serve_are_refused_with_their_reason(
    args: list[str], says: str, captured: list[RaceSettings]
) -> None:
    result = CliRunner().invoke(main, ["race", f"--track-path={TRACK}", *args])
    assert result.exit_code == 64 and says in result.output and not captured, result.output


def test_entries_for_keeps_table_order() -> None:
    names = [e.name for e in entries_for("race")]
    assert names == [e.name for e in OPTIONS if "race" in e.commands]
    assert names.index("track_name") < names.index("quiet")


def _run_osb(*args: str) -> RaceSettings:
    """The settings of ``esbench run ARGS`` as an OSB user types it (OSB's command and spellings)."""
    seen: list[RaceSettings] = []

    def fake_race(settings: RaceSettings, console: Any = None) -> None:
        seen.append(settings)
        raise UserError("captured")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("esbench.racecontrol.run_race", fake_race)
        result = CliRunner().invoke(main, ["run", f"--workload-path={TRACK}", *args])
    assert result.exit_code == 64 and "captured" in result.output, result.output
    return seen[0]


def test_osb_spellings_fill_the_settings_rallys_fill() -> None:
    settings = _run_osb(
        "-t",
        "127.0.0.1:9",
        "-c",
        "timeout:61",
        "-tid",
        "osb-run-1",
        "-wp",
        "search_clients:3",
        "-k",
        "--user-tag=env:osb",
        "--results-format=csv",
        "--results-file=/tmp/esbench-osb-results.csv",
        "--show-in-results=all",
    )
    assert settings.race_id == "osb-run-1"
    assert settings.track_params == {"search_clients": 3}
    assert settings.kill_running_processes
    assert settings.client_options.timeout == 61
    assert dict(settings.user_tags) == {"env": "osb"}
    assert settings.report.fmt.value == "csv"
    assert settings.report.file == Path("/tmp/esbench-osb-results.csv")
    assert settings.report.show_in_report is ShowInReport.ALL


def test_osb_percentile_options_reach_the_report_settings() -> None:
    report = _run_osb(
        "-t", "127.0.0.1:9", "--latency-percentiles=50,99.9", "--throughput-percentiles="
    ).report
    assert report.percentiles == ReportPercentiles(latency=(50.0, 99.9), throughput=())
    assert _run_osb("-t", "127.0.0.1:9").report.percentiles is None


@pytest.mark.parametrize("value", ["50,abc", "101", "-1"])
def test_a_bad_percentile_is_refused_naming_the_option(value: str, captured: list[RaceSettings]) -> None:
    result = CliRunner().invoke(main, ["run", f"--workload-path={TRACK}", f"--latency-percentiles={value}"])
    assert result.exit_code == 64 and "--latency-percentiles" in result.output and not captured, result.output


def test_osbs_run_provisions_opensearch_unless_told_otherwise() -> None:
    # OSB's --distribution-version names an OpenSearch version; under every name a 1.x-3.x version
    # does (no Elasticsearch esbench provisions has that major); Rally's race keeps Elasticsearch else.
    def provisioned(*args: str, version: str = "2.18.0") -> str:
        seen: list[RaceSettings] = []

        def fake_race(settings: RaceSettings, console: Any = None) -> None:
            seen.append(settings)
            raise UserError("captured")

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("esbench.racecontrol.run_race", fake_race)
            result = CliRunner().invoke(
                main, [*args, f"--track-path={TRACK}", f"--distribution-version={version}"]
            )
        assert result.exit_code == 64 and "captured" in result.output, result.output
        return str(seen[0].provision.distribution_flavor)

    assert provisioned("run") == "opensearch"
    assert provisioned("execute-test") == "opensearch"
    assert provisioned("run", "--distribution-flavor=elasticsearch") == "elasticsearch"
    assert provisioned("race") == "opensearch"
    assert provisioned("race", "--distribution-flavor=elasticsearch") == "elasticsearch"
    assert provisioned("race", version="8.19.0") == "elasticsearch"
    assert provisioned("run", version="8.19.0") == "opensearch"


def test_the_pipeline_is_the_one_rally_and_osb_choose() -> None:
    # Rally 2.13 racecontrol.run and OSB 2.4.0 test_run_orchestrator.run: a version without a
    # pipeline means from-distribution; OSB's run without either races benchmark-only.
    def pipeline(command: str, *args: str) -> Pipeline | None:
        return race_of(f"--track-path={TRACK}", *args, command=command).pipeline

    assert pipeline("race", "--distribution-version=8.8.2") is Pipeline.FROM_DISTRIBUTION
    assert (
        pipeline("race", "--distribution-version=8.8.2", "--target-hosts=127.0.0.1:9")
        is Pipeline.FROM_DISTRIBUTION
    )
    assert pipeline("race") is None
    assert pipeline("race", "--pipeline=benchmark-only") is Pipeline.BENCHMARK_ONLY
    assert pipeline("run") is Pipeline.BENCHMARK_ONLY
    assert pipeline("run", "--distribution-version=2.18.0") is Pipeline.FROM_DISTRIBUTION
    assert pipeline("run", "--pipeline=from-distribution") is Pipeline.FROM_DISTRIBUTION
    # OSB's --workload spelling makes the line an OSB user's under esbench's own name too.
    osb_spelled = race_of("--workload=geonames", "--offline")
    assert osb_spelled.pipeline is Pipeline.BENCHMARK_ONLY
    assert str(osb_spelled.provision.distribution_flavor) == "opensearch"


def test_the_planning_commands_choose_the_pipeline_as_race_does(captured: list[RaceSettings]) -> None:
    args = ["--track-path", str(MINIMAL), "--clients=1,2", "--task=count", "--target-hosts=127.0.0.1:9"]
    result = CliRunner().invoke(main, ["sweep", *args, "--distribution-version=8.8.2"])
    assert result.exit_code == 64 and "captured" in result.output, result.output
    assert captured[-1].pipeline is Pipeline.FROM_DISTRIBUTION
