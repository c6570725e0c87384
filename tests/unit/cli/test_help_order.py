"""Each planning command lists its own options first in --help; the race options follow."""

from __future__ import annotations

import click
import pytest

from esbench.cli import main
from esbench.cli._planning_options import race_options


def _race_block() -> set[str]:
    """The parameter names ``race_options`` adds to a command."""

    @click.command()
    @race_options
    def probe(**_: object) -> None:
        pass

    return {p.name or "" for p in probe.params}


RACE_BLOCK = _race_block()


def _command(path: list[str]) -> click.Command:
    command: click.Command = main
    for name in path:
        assert isinstance(command, click.Group)
        found = command.get_command(click.Context(command), name)
        assert found is not None
        command = found
    return command


@pytest.mark.parametrize(
    ("path", "first"),
    [
        (["size"], "--raw-gb-per-day"),
        (["find-max"], "--slo"),
        (["sweep"], "--track-params"),
        (["optimize", "bulk-size"], "--start"),
        (["optimize", "clients"], "--start"),
    ],
)
def test_own_options_come_before_the_race_options(path: list[str], first: str) -> None:
    options = [p for p in _command(path).params if isinstance(p, click.Option)]
    assert max(options[0].opts, key=len) == first
    names = [p.name for p in options]
    # --track-params follows the race block, except in sweep, where it is a dimension of its own.
    own_at = [i for i, n in enumerate(names) if n not in RACE_BLOCK and n != "track_params"]
    race_at = [i for i, n in enumerate(names) if n in RACE_BLOCK]
    assert len(race_at) == len(RACE_BLOCK) - (path == ["sweep"])  # sweep's --nodes is a list
    assert max(own_at) < min(race_at), names


def test_sweep_lists_nodes_with_the_other_dimensions() -> None:
    flags = [max(p.opts, key=len) for p in _command(["sweep"]).params]
    at = flags.index("--bulk-size")
    assert flags[at + 1] == "--nodes" and flags.count("--nodes") == 1
