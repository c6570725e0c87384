"""Rally and OSB commands that esbench does not serve: Rally's ``build``; OSB's ``generate-data``,
``aggregate`` and ``list aggregated-results``.

Each parses whatever options Rally's would take and then fails with its paragraph (what, why, what to
use instead; :data:`esbench.cli.options.commands.REFUSED_COMMANDS`), exit 64, so a Rally script
learns why rather than "no such command". A command that another module registers (when its change
lands) is left alone.
"""

from __future__ import annotations

import click

from esbench.cli import list_group, main
from esbench.cli.options.commands import OSB_REFUSED_COMMANDS, REFUSED_COMMANDS
from esbench.exceptions import UserError


def _group(parent: click.Group, name: str, help_text: str) -> click.Group:
    existing = parent.commands.get(name)
    if isinstance(existing, click.Group):
        return existing
    group = click.Group(name=name, help=help_text)
    parent.add_command(group)
    return group


def _refusing(path: str, reason: str) -> click.Command:
    def refuse(args: tuple[str, ...]) -> None:
        raise UserError(f"{path}: {reason}")

    return click.Command(
        name=path.split()[-1],
        callback=refuse,
        params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        help=f"A peer's command, not served by esbench: {reason}",
        add_help_option=True,
    )


def register_unserved() -> None:
    """Add each command of :data:`REFUSED_COMMANDS` that no module has registered."""
    parents = {
        "list": list_group,
        "delete": _group(main, "delete", "Delete stored races."),
        "add": _group(main, "add", "Add records (Rally's add annotation)."),
    }
    for path, reason in {**REFUSED_COMMANDS, **OSB_REFUSED_COMMANDS}.items():
        *parent, name = path.split()
        group = parents[parent[0]] if parent else main
        if name not in group.commands:
            group.add_command(_refusing(path, reason))
