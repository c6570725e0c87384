"""OpenSearch Benchmark's names of esbench's commands, and OSB's columns where its listing differs.

OSB 2.4.0 (``osbenchmark/benchmark.py``) names Rally's commands its own way: ``list workloads``
(``list tracks``), ``list test-runs`` (``list races``), ``list cluster-configs`` (``list cars``),
``list opensearch-plugins`` (``list elasticsearch-plugins``), ``create-workload``
(``create-track``); ``run`` is ``race`` (:mod:`esbench.cli.race`). Each OSB name is the same click
command as esbench's, so it takes the same options (Rally's spellings and OSB's); the listings
print OSB's columns when called by OSB's name (:func:`called_as_osb`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import click

from esbench.cli.options.entry import osb_spelled

if TYPE_CHECKING:
    from esbench.results.race_listing import ListedRace

#: OSB's ``list`` kind -> the esbench ``list`` command it names.
OSB_LIST_NAMES: dict[str, str] = {
    "workloads": "tracks",
    "test-runs": "races",
    "cluster-configs": "cars",
    "opensearch-plugins": "elasticsearch-plugins",
}

#: OSB's top-level command -> the esbench command it names.
OSB_COMMAND_NAMES: dict[str, str] = {"create-workload": "create-track"}

#: OSB's ``list test-runs`` headers (``osbenchmark/metrics.py`` ``list_test_helper``), in order.
TEST_RUN_HEADERS: tuple[str, ...] = (
    "TestRun ID",
    "TestRun Timestamp",
    "Workload",
    "Workload Parameters",
    "TestProcedure",
    "ClusterConfigInstance",
    "User Tags",
    "workload Revision",
    "Cluster Config Revision",
)


#: OSB's names of ``race`` (``run`` since OSB 2.0, ``execute-test`` before).
OSB_RACE_NAMES = ("run", "execute-test")


def is_osb_command_line() -> bool:
    """Whether the running command line is an OSB user's: the command was called by one of OSB's
    names (``run``, ``execute-test``, ``list workloads``, ``create-workload``), or an option that
    says where a named track comes from was given in OSB's spelling (``--workload``/``-w``,
    ``--workload-repository``, ``--workload-revision``: the table's entries with
    ``osb_spelling_matters``, recorded by :class:`~esbench.cli.options.entry.SpelledOption`).

    The one place the CLI tells an OSB user from a Rally user: a track name then means OSB's
    workload repository (docs/tracks.md, "Which track a name means"), and a race without
    ``--pipeline`` or ``--distribution-version`` is ``benchmark-only`` against OpenSearch
    (:func:`esbench.cli._race_settings.race_settings`)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return False
    names = (*OSB_RACE_NAMES, *OSB_LIST_NAMES, *OSB_COMMAND_NAMES)
    return ctx.info_name in names or bool(osb_spelled(ctx))


def called_as_osb() -> bool:
    """Whether the running command was called by one of OSB's names (``list test-runs``)."""
    ctx = click.get_current_context(silent=True)
    return ctx is not None and (ctx.info_name in OSB_LIST_NAMES or ctx.info_name in OSB_COMMAND_NAMES)


def _pairs(values: Mapping[str, object]) -> str:
    # OSB's format_dict: sorted key=value pairs, nothing for an empty mapping.
    return ", ".join(f"{k}={v}" for k, v in sorted(values.items()))


def test_run_row(race: ListedRace) -> list[str]:
    """One row of OSB's ``list test-runs`` (:data:`TEST_RUN_HEADERS`) for ``race``."""
    car = race.car
    config = "+".join(str(c) for c in car) if isinstance(car, list) else ("" if car is None else str(car))
    cells = (
        race.race_id,
        race.race_timestamp,
        race.track,
        _pairs(race.track_params),
        race.challenge,
        config,
        _pairs(race.user_tags),
        race.track_revision,
        race.team_revision,
    )
    return ["" if c is None else str(c) for c in cells]


def register_osb_names(main: click.Group, list_group: click.Group) -> None:
    """Add OSB's names of the esbench commands (after every command module has registered)."""
    for osb, esbench in OSB_LIST_NAMES.items():
        command = list_group.commands.get(esbench)
        if command is not None and osb not in list_group.commands:
            list_group.add_command(command, name=osb)
    for osb, esbench in OSB_COMMAND_NAMES.items():
        command = main.commands.get(esbench)
        if command is not None and osb not in main.commands:
            main.add_command(command, name=osb)
