"""Options every Rally sub-command takes: ``--quiet``/``--no-quiet``, ``--offline`` and the hidden
``--configuration-name`` (Rally's ``add_common_arguments`` in ``esrally/rally.py``)."""

from __future__ import annotations

from esbench.cli.options.cluster import RACING_ANY
from esbench.cli.options.commands import EVERY_OSB_COMMAND, EVERY_RALLY_COMMAND
from esbench.cli.options.entry import CliOption, Kind
from esbench.cli.options.track import PLANNING, RACING

#: Where ``--quiet`` means "no progress output" (render-track has its own, quiet by default).
#: Every command serving a Rally or an OSB sub-command.
_PEER_COMMANDS = tuple(dict.fromkeys((*EVERY_RALLY_COMMAND, *EVERY_OSB_COMMAND)))
_QUIET = tuple(p for p in (*RACING_ANY, *_PEER_COMMANDS, "bundle", *PLANNING) if p != "render-track")
#: Every command of Rally's and the ad-hoc ones: ``--offline``.
_OFFLINE = (*RACING_ANY, *(p for p in _PEER_COMMANDS if p not in RACING), "bundle", *PLANNING)

GENERAL_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="quiet",
        flags=("--quiet", "-q"),
        commands=_QUIET,
        kind=Kind.SWITCH,
        help="No progress output (--no-quiet: the default); a command that prints only its result "
        "prints the same either way.",
        field="Console(quiet=...)",
    ),
    CliOption(
        name="offline",
        flags=("--offline",),
        commands=_OFFLINE,
        kind=Kind.FLAG,
        help="Never download anything (corpora, distributions, track repositories); commands that "
        "download nothing (list races, compare, stop...) hold to it anyway.",
        field="RaceSettings.offline",
    ),
    CliOption(
        name="configuration_name",
        flags=("--configuration-name",),
        commands=_PEER_COMMANDS,
        help="Rally's hidden option naming ~/.rally/rally-NAME.ini.",
        field="none (refused)",
        refused="esbench reads no rally.ini, so there is no configuration to name: its settings live in "
        "<esbench home>/esbench.ini (the home is $ESBENCH_HOME, default ~/.esbench). To keep two setups "
        "apart, run with a different ESBENCH_HOME instead of --configuration-name.",
    ),
)
