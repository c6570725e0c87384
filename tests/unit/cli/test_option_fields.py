"""The option table's ``field`` column is true: an option of ``race`` given alone changes the settings
field its entry names, and no other option table entry claims a field it does not fill.

tests/unit/cli/test_option_table.py checks that the named field exists; this checks that the
command line fills it. Each race option with a ``RaceSettings``/``ProvisionSettings`` field is given
with a value of its own (:data:`_VALUES`), the race stops before it starts (``run_race`` is
replaced), and the field the entry names must differ from a race without the option. A new entry
without a value here fails, so the column cannot drift from the code that fills it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_option_table import race_of

from esbench.cli.options import OPTIONS, CliOption, Kind
from esbench.settings import RaceSettings

TRACK = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "planning-search"
TEAM = Path(__file__).resolve().parents[2] / "resources" / "teams" / "sample"

#: One value per taken race option whose field is a settings field: a value that differs from the
#: option's default. Flags have none.
_VALUES: dict[str, str] = {
    "--track": "geonames",
    "--track-path": str(TRACK),
    "--track-repository": "eventdata",
    "--track-revision": "a1b2c3d",
    "--track-branch": "8.x",
    "--track-params": "bulk_size:10",
    "--challenge": "bulk",
    "--include-tasks": "type:search",
    "--exclude-tasks": "tag:setup",
    "--target-hosts": "10.0.0.7:9200",
    "--pipeline": "benchmark-only",
    "--distribution-version": "8.8.2",
    "--distribution-repository": "maven",
    "--distribution-path": str(TRACK / "track.json"),  # the option checks only that it exists
    "--car": "4gheap",
    "--car-params": "heap_size:'2g'",
    "--team-path": str(TEAM),
    "--team-repository": "mine",
    "--team-revision": "a1b2c3d",
    "--elasticsearch-plugins": "analysis-icu",
    "--plugin-params": "a:1",
    "--nodes": "2",
    "--cluster-name": "bench",
    "--runtime-jdk": "21",
    "--run-as-user": "elasticsearch",
    "--distribution-flavor": "opensearch",
    "--client-options": "timeout:61",
    "--race-id": "nightly-1",
    "--on-error": "abort",
    "--load-driver-workers": "3",
    "--load-driver": "local",
    "--ray-address": "10.0.0.8:6379",
    "--load-driver-hosts": "10.0.0.9",
    "--randomization-repeat-frequency": "0.5",
    "--randomization-n": "100",
    "--randomization-alpha": "2.0",
    "--user-tags": "env:ci",
    "--report-format": "csv",
    "--report-numbers-align": "left",
    "--show-in-report": "all",
    "--report-file": "/tmp/esbench-report.csv",
    "--latency-percentiles": "50,99",
    "--throughput-percentiles": "50",
    "--metrics-store": "http://10.0.0.10:9200",
    "--telemetry": "node-stats",
    "--telemetry-params": "node-stats-sample-interval:5",
}

#: Options that need another one to mean anything (given together, the field is still checked).
_WITH: dict[str, tuple[str, ...]] = {
    "--telemetry-params": ("--telemetry=node-stats",),
    "--randomization-repeat-frequency": ("--randomization-enabled",),
    "--randomization-n": ("--randomization-enabled",),
    "--randomization-alpha": ("--randomization-enabled",),
}

#: Entries whose value cannot be given in a unit test, and where it is tested instead.
_ELSEWHERE = {
    "--track-bundle": "a real archive, unpacked into the home: tests/integration/test_bundle_offline.py",
}

_SETTINGS = ("RaceSettings", "ProvisionSettings")
_TRACK_SOURCES = {"--track", "--track-path", "--track-repository", "--track-revision", "--track-branch"}


def _race_options() -> list[CliOption]:
    return [
        e
        for e in OPTIONS
        if e.refused is None
        and "race" in e.commands
        and e.field.startswith(_SETTINGS)
        and e.long not in _ELSEWHERE
    ]


def _field(settings: RaceSettings, entry: CliOption) -> Any:
    """The value at the entry's field path (``RaceSettings.report.fmt``; a ``ProvisionSettings``
    field is the race's ``provision``)."""
    first, *path = entry.field.split(" ")[0].split(".")
    value: Any = settings.provision if first == "ProvisionSettings" else settings
    for name in path:
        value = getattr(value, name) if value is not None else None
    return value


def _args(entry: CliOption) -> list[str]:
    given = [entry.long] if entry.kind is not Kind.VALUE else [f"{entry.long}={_VALUES[entry.long]}"]
    return [*given, *_WITH.get(entry.long, ())]


def _base(entry: CliOption) -> list[str]:
    """The rest of the command line: a track by path, or by name for the track-source options."""
    if entry.long == "--track":
        return [f"--track-path={TRACK}"]
    return ["--track=geonames"] if entry.long in _TRACK_SOURCES else [f"--track-path={TRACK}"]


@pytest.mark.parametrize("entry", _race_options(), ids=lambda e: e.long)
def test_a_race_option_fills_the_field_its_entry_names(entry: CliOption) -> None:
    if entry.kind is Kind.VALUE:
        assert entry.long in _VALUES, f"{entry.long}: add a value to _VALUES"
    base = [] if entry.long in {"--track", "--track-path"} else _base(entry)
    without = race_of(*_base(entry), *_WITH.get(entry.long, ()))
    given = race_of(*base, *_args(entry))
    assert _field(given, entry) != _field(without, entry), (entry.field, _field(given, entry))


def test_every_field_entry_is_checked_here_or_elsewhere() -> None:
    checked = {e.long for e in _race_options()} | set(_ELSEWHERE)
    claimed = {
        e.long
        for e in OPTIONS
        if e.refused is None and "race" in e.commands and e.field.startswith(_SETTINGS)
    }
    assert claimed == checked
