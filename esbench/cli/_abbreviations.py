"""Unique prefixes of long options, as argparse takes them: ``--pipe=benchmark-only`` is
``--pipeline=benchmark-only``.

Rally 2.13 (``esrally/rally.py`` ``create_arg_parser``) and OSB 2.4.0 (``osbenchmark/benchmark.py``
``create_arg_parser``) parse with argparse, whose ``allow_abbrev`` is on by default, so their users
(and their docs: Rally's ``cluster_management.rst`` writes ``--target-host=127.0.0.1:39200``) type
prefixes. click matches only whole names, so :func:`expand_abbreviations` rewrites the command line
before click parses it, walking the command tree the way click will (a group's options, then the
name of its sub-command, ...): every command and sub-command takes prefixes without declaring
anything. The root group calls it once (``esbench.cli._EsbenchGroup.parse_args``).

The rule is CPython's argparse of the Python both peers run (3.12: ``ArgumentParser._parse_optional``
and ``_get_option_tuples``):

- only a token in option position that starts with ``--`` is looked at, as ``--name`` or
  ``--name=value`` (the value is kept as written); short options (``-t``, OSB's ``-tid``) are left
  alone, and so is everything after ``--``;
- a name that is a whole spelling of the command is left alone, also where it is the prefix of a
  longer one (``--track`` beside ``--track-path``);
- otherwise the long spellings of the command that start with the name are the candidates: those
  of one option make the name that option's spelling; those of several options are an error naming
  every candidate (argparse: "ambiguous option: --x could match --a, --b"), a click usage error of
  the command, which esbench prints as one paragraph with exit status 64;
- no candidate: the token is left alone, and click says "No such option" with its suggestions.

One difference, deliberate: argparse counts option strings, not options, so two spellings of one
option are ambiguous there (Rally 2.13 refuses ``--user-t`` for ``--user-tags``/``--user-tag``).
Here the spellings of one esbench option (Rally's, their aliases, OSB's) are one candidate; the
positive and the negative spelling of a switch (``--quiet`` / ``--no-quiet``) stay two.

Which tokens are values (never expanded) follows click's parser (``click.parser``
``_OptionParser``): an option that takes a value consumes the next token(s) whatever they look
like, unless its value is optional and the next token starts with ``-``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import click


@dataclass(frozen=True)
class _Spelling:
    """One spelling of one option of a command: ``negated`` for a switch's ``--no-x``."""

    text: str
    param: click.Option
    negated: bool


class AmbiguousOption(click.UsageError):
    """A long option's prefix matches spellings of more than one option of the command."""


def expand_abbreviations(root: click.Command, ctx: click.Context, args: Sequence[str]) -> list[str]:
    """``args`` (the command line after the program name) with every abbreviated long option of
    the command it runs written out in full (the module's rule: argparse's ``allow_abbrev``).

    ``root`` is the command ``args`` are given to and ``ctx`` its context; the sub-commands are
    found as click finds them (``Group.get_command`` on the first non-option token of a group's
    arguments).

    Raises:
        AmbiguousOption: a prefix matches several options of the command it is given to (not raised
            while ``resilient_parsing``, shell completion, where the token is left alone).
    """
    command, here = root, ctx
    table = _spellings(command, here)
    out: list[str] = []
    rest = list(args)
    i = 0
    while i < len(rest):
        token = rest[i]
        i += 1
        if token == "--":
            return [*out, token, *rest[i:]]
        if token.startswith("-") and len(token) > 1:
            token, consumed = _option_token(token, table, rest[i:], here)
            out += [token, *rest[i : i + consumed]]
            i += consumed
            continue
        out.append(token)
        if isinstance(command, click.Group):
            sub = command.get_command(here, token)
            if sub is None:
                return [*out, *rest[i:]]
            # As click's shell completion makes it (resilient), with the command's settings.
            settings = {"resilient_parsing": here.resilient_parsing, **sub.context_settings}
            here = sub.context_class(sub, info_name=token, parent=here, **settings)
            command = sub
            table = _spellings(command, here)
        elif not here.allow_interspersed_args:
            return [*out, *rest[i:]]
    return out


def _spellings(command: click.Command, ctx: click.Context) -> dict[str, _Spelling]:
    # Every spelling of every option, short ones too (to know what they consume), in the order
    # declared (argparse names the candidates in its order of declaration too).
    table: dict[str, _Spelling] = {}
    for param in command.get_params(ctx):
        if isinstance(param, click.Option):
            for text in param.opts:
                table.setdefault(text, _Spelling(text, param, negated=False))
            for text in param.secondary_opts:
                table.setdefault(text, _Spelling(text, param, negated=True))
    return table


def _option_token(
    token: str, table: dict[str, _Spelling], following: list[str], ctx: click.Context
) -> tuple[str, int]:
    """``token`` written out (or as it is) and how many of the ``following`` tokens its option
    takes as values."""
    name, eq, value = token.partition("=")
    exact = table.get(name)
    if exact is not None:
        return token, _values(exact.param, attached=bool(eq), following=following)
    if not name.startswith("--"):
        return token, _short_values(token, table, following)
    if name == "--":
        return token, 0
    candidates = [s for text, s in table.items() if text.startswith(name)]
    options = {(id(s.param), s.negated) for s in candidates}
    if len(options) > 1:
        if ctx.resilient_parsing:
            return token, 0
        names = ", ".join(s.text for s in candidates)
        raise AmbiguousOption(
            f"ambiguous option: {name} could match {names}. Write more of the option's name.", ctx=ctx
        )
    if not candidates:
        return token, 0
    chosen = candidates[0]
    return chosen.text + eq + value, _values(chosen.param, attached=bool(eq), following=following)


def _values(param: click.Option, *, attached: bool, following: list[str]) -> int:
    # click's _OptionParser._get_value_from_state: a flag takes nothing; an attached value
    # (--opt=v) is the first of nargs; an optional value is not taken from an option-like token.
    if param.is_flag or param.count:
        return 0
    if attached:
        return param.nargs - 1
    if getattr(param, "_flag_needs_value", False) and (not following or _looks_like_option(following[0])):
        return 0
    return min(param.nargs, len(following))


def _short_values(token: str, table: dict[str, _Spelling], following: list[str]) -> int:
    # click's _OptionParser._match_short_opt: -abc is -a -b -c until one takes a value, which is
    # the rest of the token or else the next token(s).
    for pos, char in enumerate(token[1:], start=2):
        spelling = table.get("-" + char)
        if spelling is None:
            return 0
        if not (spelling.param.is_flag or spelling.param.count):
            return 0 if pos < len(token) else _values(spelling.param, attached=False, following=following)
    return 0


def _looks_like_option(token: str) -> bool:
    return token.startswith("-") and len(token) > 1
