"""One command-line option, declared once: :class:`CliOption`, and how it becomes a click option.

An entry says everything esbench knows about an option: its spellings (esbench's, which are
Rally's, and OSB's where OSB's option is a plain alias of Rally's), the commands that take it, its
value parser, the settings field it fills, its help, and, for an option whose meaning cannot be
served here, ``refused``: the paragraph a user gets (exit 64) when the option is given. A refused
option still parses (any value), so the user learns why and what to use instead rather than
"no such option".

Sources: Rally 2.13 ``esrally/rally.py`` ``create_arg_parser`` (spellings, defaults, which
sub-commands take each option); OSB 2.4.0 ``osbenchmark/benchmark.py`` ``create_arg_parser``
(OSB's spellings).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import click

from esbench.cli.options.commands import EVERY_OSB_COMMAND
from esbench.exceptions import UserError

if TYPE_CHECKING:
    _ParamType = click.ParamType[Any]
else:
    _ParamType = click.ParamType


class Kind(StrEnum):
    """How an option is written on the command line."""

    #: ``--opt=VALUE``.
    VALUE = "value"
    #: ``--opt`` (present or not).
    FLAG = "flag"
    #: ``--opt`` / ``--no-opt`` (argparse's ``BooleanOptionalAction``, click's ``--a/--no-a``).
    SWITCH = "switch"


#: The commands of Rally 2.13 whose options esbench takes (``list`` kinds and ``delete``/``add``
#: targets are esbench sub-commands: ``"list races"``).
RALLY_COMMANDS = (
    "race",
    "list",
    "delete",
    "info",
    "render-track",
    "create-track",
    "compare",
    "build",
    "download",
    "install",
    "start",
    "stop",
    "add",
)


@dataclass(frozen=True, kw_only=True)
class CliOption:
    """One option of the command line.

    Attributes:
        name: the click parameter name (the keyword argument the command gets), e.g. ``"user_tag"``.
        flags: esbench's spellings, first the long one Rally uses (``("--user-tags", "--user-tag")``);
            a short alias (``-q``) may follow.
        osb: OSB's spellings where OSB's option is a plain alias of this one
            (``--test-procedure`` for ``--challenge``); they are accepted too. A short one (``-w``)
            only at the commands that serve an OSB sub-command
            (:data:`~esbench.cli.options.commands.EVERY_OSB_COMMAND`).
        commands: the esbench command paths that take the option (``"race"``, ``"list races"``).
        help: the help text.
        kind: :class:`Kind`.
        type: the value parser (a click type; validated text types check with the parser of the
            stage that owns the format, imported lazily, see :mod:`esbench.cli._params`); None:
            plain text, given a checked type by :func:`esbench.cli.options.apply_option_types`.
        default: the value when the option is not given.
        field: the settings field the option fills (``"RaceSettings.challenge"``), or a sentence
            saying what it does when it fills none (a listing filter, a command's own argument).
        refused: None when the option is taken; else the one paragraph (what, why, what to use
            instead) that the command fails with, exit 64, before doing anything.
        rally: the option is one of Rally 2.13's (False: esbench's own).
        show_default: click's ``show_default``.
        metavar: click's ``metavar``.
        envvar: an environment variable that gives the value (``ESBENCH_METRICS_STORE``).
        multiple: the option may be repeated (click's ``multiple``).
        required: the option must be given.
        osb_spelling_matters: the command needs to know whether the value came in OSB's spelling
            (``--workload`` names OSB's workload repository, ``--track`` Rally's): the click option
            records it (:class:`SpelledOption`, :func:`osb_spelled`).
    """

    name: str
    flags: tuple[str, ...]
    commands: tuple[str, ...]
    help: str
    osb: tuple[str, ...] = ()
    kind: Kind = Kind.VALUE
    type: _ParamType | Callable[[], _ParamType] | None = None
    default: Any = None
    field: str = ""
    refused: str | None = None
    rally: bool = True
    show_default: bool = False
    metavar: str | None = None
    envvar: str | None = None
    multiple: bool = False
    required: bool = False
    osb_spelling_matters: bool = False

    @property
    def long(self) -> str:
        """The first spelling (Rally's), e.g. ``"--user-tags"``."""
        return self.flags[0]

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every long spelling esbench accepts (its own and OSB's; ``--no-x`` of a switch too)."""
        own = tuple(f for f in self.flags if f.startswith("--"))
        negated = tuple("--no-" + f[2:] for f in own) if self.kind is Kind.SWITCH else ()
        return own + negated + self.osb

    def spellings_at(self, path: str) -> tuple[str, ...]:
        """The long spellings the command at ``path`` accepts (:attr:`spellings`, with OSB's short
        ones only where :meth:`osb_spellings` keeps them)."""
        return tuple(s for s in self.spellings if s.startswith("--") or s in self.osb_spellings(path))

    def param_type(self) -> _ParamType | None:
        """The value parser (a factory in :attr:`type` is called), or None for plain text."""
        if self.type is None or isinstance(self.type, click.ParamType):
            return self.type
        return self.type()

    def for_command(self, path: str) -> bool:
        """Whether the command at ``path`` (``"list races"``) takes this option."""
        return path in self.commands

    def osb_spellings(self, path: str | None = None) -> tuple[str, ...]:
        """OSB's spellings at the command ``path``: the long ones everywhere, the short ones (``-w``,
        ``-tid``) only at a command serving an OSB sub-command (``query -t`` is its own option)."""
        return tuple(o for o in self.osb if o.startswith("--") or path in EVERY_OSB_COMMAND)

    def click_option(self, path: str | None = None) -> click.Option:
        """The click option of this entry at the command ``path`` (a refused one refuses in its
        callback)."""
        names = [*self.flags, *self.osb_spellings(path)]
        if self.refused is not None:
            return _refused_option(self, names)
        kwargs: dict[str, Any] = {"help": self.help, "show_default": self.show_default}
        if self.required:
            kwargs["required"] = True
        if self.multiple:
            kwargs["multiple"] = True
        if self.envvar:
            kwargs["envvar"] = self.envvar
        if self.metavar:
            kwargs["metavar"] = self.metavar
        if self.kind is Kind.FLAG:
            return click.Option([*names, self.name], is_flag=True, default=bool(self.default), **kwargs)
        if self.kind is Kind.SWITCH:
            long = [n for n in names if n.startswith("--")]
            short = [n for n in names if not n.startswith("--")]
            pair = "/".join([long[0], "--no-" + long[0][2:]])
            decls = [pair, *long[1:], *short, self.name]
            return click.Option(decls, is_flag=True, default=bool(self.default), **kwargs)
        osb = self.osb_spellings(path)
        if osb and self.osb_spelling_matters and not self.multiple:
            return SpelledOption(
                [*names, self.name], osb=osb, type=self.param_type(), default=self.default, **kwargs
            )
        return click.Option([*names, self.name], type=self.param_type(), default=self.default, **kwargs)


#: ``ctx.meta`` key: the parameter names given in OSB's spelling on this command line.
OSB_SPELLED = "esbench.osb_spelled"


def osb_spelled(ctx: click.Context) -> frozenset[str]:
    """The parameter names (``track_name``) given on the command line of ``ctx`` in OSB's spelling
    (``--workload``, ``-w``), recorded by :class:`SpelledOption` while the line was parsed."""
    return frozenset(ctx.meta.get(OSB_SPELLED, ()))


class SpelledOption(click.Option):
    """A value option that knows which spelling gave its value: Rally's (esbench's) or OSB's.

    click keeps one value per option and forgets the spelling, so OSB's spellings are given their
    own slot of the parser's result; :meth:`consume_value` moves the value back and records the
    parameter in ``ctx.meta`` (:func:`osb_spelled`). Both spellings on one line with two values
    (``--track=a --workload=b``) are refused, as which was meant is not clear (the same value twice
    is taken).
    """

    def __init__(self, decls: list[str], *, osb: tuple[str, ...], **kwargs: Any) -> None:
        super().__init__(decls, **kwargs)
        self.osb_opts = osb

    @property
    def _osb_dest(self) -> str:
        return f"{self.name}:osb"

    def add_to_parser(self, parser: Any, ctx: click.Context) -> None:
        own = [o for o in self.opts if o not in self.osb_opts]
        parser.add_option(obj=self, opts=own, dest=self.name, action="store", nargs=self.nargs)
        parser.add_option(
            obj=self, opts=list(self.osb_opts), dest=self._osb_dest, action="store", nargs=self.nargs
        )

    def consume_value(self, ctx: click.Context, opts: Any) -> tuple[Any, click.core.ParameterSource]:
        if self._osb_dest in opts:
            value = opts[self._osb_dest]
            if self.name in opts and opts[self.name] != value:
                own = [o for o in self.opts if o not in self.osb_opts and o.startswith("--")]
                raise UserError(
                    f"{own[0]}={opts[self.name]} and {'/'.join(self.osb_opts)}={value} give one option, in "
                    "Rally's and OSB's spelling, two values; give it once."
                )
            ctx.meta.setdefault(OSB_SPELLED, set()).add(self.name)
            opts = {**opts, self.name: value}
        return super().consume_value(ctx, opts)


class RefusedValue(_ParamType):
    """The type of a refused option: any text (even empty) parses; the callback refuses it."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        return value


REFUSED = RefusedValue()


def _refused_option(entry: CliOption, names: list[str]) -> click.Option:
    def refuse(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        # The default is None, so any other value was given (even "" or --no-x).
        if value is not None and not ctx.resilient_parsing:
            raise UserError(f"{entry.long}: {entry.refused}")

    help_text = f"{entry.help} Not served by esbench: see the message it gives."
    if entry.kind is Kind.VALUE:
        # A bare refused option (OSB's --redline-test takes an optional value) is refused too, with
        # its reason, rather than "requires an argument".
        return click.Option(
            [*names, entry.name],
            type=REFUSED,
            is_flag=False,
            flag_value="",
            expose_value=False,
            callback=refuse,
            help=help_text,
        )
    decls = [*names, entry.name]
    if entry.kind is Kind.SWITCH:
        long = [n for n in names if n.startswith("--")]
        decls = ["/".join([long[0], "--no-" + long[0][2:]]), *long[1:], entry.name]
    return click.Option(
        decls, is_flag=True, default=None, expose_value=False, callback=refuse, help=help_text
    )
