"""The ``esbench`` command line: a thin layer that turns options into settings and calls the API.

Sub-command modules register themselves on :data:`main` (and on the ``list`` group) when imported
at the bottom of this file. User errors (:class:`~esbench.exceptions.EsbenchError`) are printed as
one paragraph without traceback and exit with their ``exit_code`` (64; 130 for Ctrl-C). Option
values are checked while the command line is parsed (:mod:`esbench.cli._params`); a bad one is one
paragraph naming the option, exit code 64 like every user error.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, NoReturn

import click

from esbench.cli._abbreviations import AmbiguousOption, expand_abbreviations
from esbench.exceptions import EsbenchError, UserError, UserInterrupted
from esbench.version import __version__


def _usage_error(ctx: click.Context, e: click.UsageError) -> NoReturn:
    # One paragraph instead of click's usage block: what, which option, where the help is.
    where = e.ctx.command_path if e.ctx is not None else ctx.command_path
    click.echo(f"[ERROR] {e.format_message()} (See '{where} --help'.)", err=True)
    # 64 is EX_USAGE (sysexits.h), the exit status of every esbench user error.
    ctx.exit(UserError.exit_code)


class _EsbenchGroup(click.Group):
    """A click group that maps esbench errors to clean messages and exit codes, and takes unique
    prefixes of long options as Rally's and OSB's argparse parsers do (:mod:`esbench.cli._abbreviations`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # The whole command line, before click parses any of it: every sub-command gets it.
        try:
            args = expand_abbreviations(self, ctx, args)
        except AmbiguousOption as e:
            _usage_error(ctx, e)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as e:
            _usage_error(ctx, e)
        except KeyboardInterrupt:
            click.echo("\n[ERROR] Interrupted by the user.", err=True)
            ctx.exit(UserInterrupted.exit_code)
        except EsbenchError as e:
            logging.getLogger("esbench").debug("user error", exc_info=True)
            click.echo(f"[ERROR] {e}", err=True)
            ctx.exit(e.exit_code)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from esbench import _compiled

    click.echo(f"esbench, version {__version__}\n{_compiled.status()}")
    ctx.exit()


@click.group(cls=_EsbenchGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and whether the hot path runs compiled, and exit.",
)
@click.option("--verbose", "-v", is_flag=True, help="Log debug output to stderr.")
def main(verbose: bool) -> None:
    """esbench: benchmark Elasticsearch with Rally-format tracks."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not verbose:
        # The transport logs every failed connection attempt; esbench reports those itself, once.
        logging.getLogger("elastic_transport").setLevel(logging.ERROR)


@main.group(name="list")
def list_group() -> None:
    """List tracks, cars, races..."""


def _register_subcommands() -> None:
    # Imported for their side effect of registering commands on ``main``/``list_group``.
    import importlib
    import pkgutil

    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(f"{__name__}.{mod.name}")


_register_subcommands()

from esbench.cli._osb_names import register_osb_names  # noqa: E402  (after the commands exist)
from esbench.cli._params import apply_option_types  # noqa: E402  (after the commands exist)
from esbench.cli._unserved import register_unserved  # noqa: E402  (after the commands that exist)

register_osb_names(main, list_group)
register_unserved()

apply_option_types(main)
