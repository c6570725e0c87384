"""The option table: every option of the command line declared once (:class:`CliOption`).

Commands get their options from the table with :func:`table_options` (``@table_options("race")``
adds every entry whose ``commands`` name ``race``, in table order); the option sweep
(tests/unit/cli/test_option_sweep.py), the Rally and OSB coverage tests
(tests/unit/cli/test_rally_options.py, test_osb_options.py) and docs/rally-options.md and
docs/osb-options.md (tools/rally_options_doc.py) read the same table. The groups of options live
in one module each; :data:`OPTIONS` is their union.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from esbench.cli.options.annotations import ANNOTATION_OPTIONS
from esbench.cli.options.cluster import CLUSTER_OPTIONS
from esbench.cli.options.driver import DRIVER_OPTIONS
from esbench.cli.options.entry import CliOption, Kind
from esbench.cli.options.general import GENERAL_OPTIONS
from esbench.cli.options.osb import OSB_OPTIONS
from esbench.cli.options.provisioning import PROVISIONING_OPTIONS
from esbench.cli.options.randomization import RANDOMIZATION_OPTIONS
from esbench.cli.options.refused import REFUSED_OPTIONS
from esbench.cli.options.report import REPORT_OPTIONS
from esbench.cli.options.stored import STORED_OPTIONS
from esbench.cli.options.track import TRACK_OPTIONS
from esbench.cli.options.tracktools import TRACK_TOOL_OPTIONS

F = TypeVar("F", bound=Callable[..., Any])

#: Every option of the table, in the order commands list them in ``--help``.
OPTIONS: tuple[CliOption, ...] = (
    *TRACK_OPTIONS,
    *TRACK_TOOL_OPTIONS,
    *CLUSTER_OPTIONS,
    *DRIVER_OPTIONS,
    *RANDOMIZATION_OPTIONS,
    *REPORT_OPTIONS,
    *PROVISIONING_OPTIONS,
    *STORED_OPTIONS,
    *GENERAL_OPTIONS,
    *OSB_OPTIONS,
    *REFUSED_OPTIONS,
    *ANNOTATION_OPTIONS,
)

__all__ = ["OPTIONS", "CliOption", "Kind", "entries_for", "table_options"]


def entries_for(path: str) -> tuple[CliOption, ...]:
    """The entries of the command at ``path`` (``"list races"``), in table order."""
    return tuple(e for e in OPTIONS if e.for_command(path))


def table_options(path: str, *, exclude: tuple[str, ...] = ()) -> Callable[[F], F]:
    """A decorator adding the table's options of the command at ``path`` to a click command (placed
    where the decorator is, in table order). ``exclude``: parameter names the command declares
    itself with another meaning (a planning command's ``--nodes`` list)."""

    def decorate(f: F) -> F:
        for entry in reversed(entries_for(path)):
            if entry.name not in exclude:
                add_option(f, entry.click_option(path))
        return f

    return decorate


def add_option(f: Any, option: click.Option) -> None:
    # What click.option does: a decorated function collects its params (in reverse) until
    # click.command builds the command from them.
    if isinstance(f, click.Command):
        f.params.append(option)
    else:
        if not hasattr(f, "__click_params__"):
            f.__click_params__ = []
        f.__click_params__.append(option)
