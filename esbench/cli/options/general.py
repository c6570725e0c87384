"""Options every Rally sub-command takes: ``--quiet``/``--no-quiet``, ``--offline`` and the hidden
``--configuration-name`` (Rally's ``add_common_arguments`` in ``esrally/rally.py``)."""

from __future__ import annotations

from esbench.cli.options.cluster import RACING_ANY
from esbench.cli.options.entry import CliOption, Kind
from esbench.cli.options.track import RACING

GENERAL_OPTIONS: tuple[CliOption, ...] = (
    CliOption(
        name="quiet",
        flags=("--quiet", "-q"),
        commands=RACING_ANY,
        kind=Kind.SWITCH,
        help="No progress output (--no-quiet: the default).",
        field="Console(quiet=...)",
    ),
    CliOption(
        name="offline",
        flags=("--offline",),
        commands=RACING_ANY,
        kind=Kind.FLAG,
        help="Never download anything (corpora, distributions, track repositories).",
        field="RaceSettings.offline",
    ),
    CliOption(
        name="configuration_name",
        flags=("--configuration-name",),
        commands=RACING,
        help="Rally's hidden option naming ~/.rally/rally-NAME.ini.",
        field="none (refused)",
        refused="esbench reads no rally.ini, so there is no configuration to name: its settings live in "
        "<esbench home>/esbench.ini (the home is $ESBENCH_HOME, default ~/.esbench). To keep two setups "
        "apart, run with a different ESBENCH_HOME instead of --configuration-name.",
    ),
)
