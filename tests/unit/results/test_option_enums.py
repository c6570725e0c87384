"""The StrEnums of the fixed option sets: the CLI offers exactly their values, and a race written
with enum members is byte for byte the race written with the plain strings they replaced."""

from __future__ import annotations

import dataclasses
import json
import pickle
from enum import StrEnum
from pathlib import Path

import click
import pytest
from racefactory import make_race

from esbench.cli import main
from esbench.driver.coordinator.pools.base import LoadDriver
from esbench.driver.settings import DriverSettings, OnError
from esbench.provision.settings import DistributionRepository
from esbench.records import RaceResult, RaceStatus
from esbench.reporting.compare_render import CompareTable
from esbench.reporting.formats import ReportFormat
from esbench.results.files import write_results_file
from esbench.results.store import ResultsStore
from esbench.settings import Pipeline
from esbench.track.model import BuildFlavor


def _option(command: tuple[str, ...], name: str) -> click.Option:
    group: click.Command = main
    for part in command:
        assert isinstance(group, click.Group)
        group = group.commands[part]
    return next(p for p in group.params if isinstance(p, click.Option) and p.name == name)


@pytest.mark.parametrize(
    ("command", "option", "enum"),
    [
        (("race",), "on_error", OnError),
        (("race",), "load_driver", LoadDriver),
        (("race",), "report_format", ReportFormat),
        (("race",), "pipeline", Pipeline),
        (("race",), "distribution_repository", DistributionRepository),
        (("list", "races"), "status", RaceStatus),
        (("compare",), "table", CompareTable),
        (("render-track",), "build_flavor", BuildFlavor),
    ],
)
def test_the_cli_offers_exactly_the_enum_values(
    command: tuple[str, ...], option: str, enum: type[StrEnum]
) -> None:
    choice = _option(command, option).type
    assert isinstance(choice, click.Choice)
    assert list(choice.choices) == [member.value for member in enum]


def _race(status: str) -> RaceResult:
    race = make_race(seed=11)
    return dataclasses.replace(race, status=status, race_id="enum-race", timestamp="20261123T000000Z")


@pytest.mark.parametrize("member", list(RaceStatus))
def test_a_race_with_an_enum_status_is_written_and_stored_like_the_plain_string(
    member: RaceStatus, tmp_path: Path
) -> None:
    with_enum, with_str = _race(member), _race(member.value)
    write_results_file(with_enum, tmp_path / "enum.json")
    write_results_file(with_str, tmp_path / "str.json")
    assert (tmp_path / "enum.json").read_bytes() == (tmp_path / "str.json").read_bytes()
    assert json.loads((tmp_path / "enum.json").read_text())["status"] == member.value

    store = ResultsStore.open(tmp_path / "results.db")
    store.save(with_enum)
    back = store.get("enum-race")
    assert back == with_str
    assert back.status == member and type(back.status) is str


def test_driver_settings_with_enum_members_survive_the_trip_to_a_worker() -> None:
    settings = DriverSettings(on_error=OnError.ABORT, load_driver=LoadDriver.RAY)
    copy = pickle.loads(pickle.dumps(settings))
    assert copy == settings
    assert copy.on_error is OnError.ABORT and copy.on_error == "abort"
    assert copy.load_driver is LoadDriver.RAY and f"{copy.load_driver}" == "ray"
