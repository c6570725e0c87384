"""Rally's own argument parser against esbench's command line: which Rally option esbench takes,
which it refuses (and why), which it lacks.

Rally is not a dependency of esbench (esrally 2.13 pins elasticsearch 8.6, tabulate 0.8, psutil 5.9
and more, which conflict with esbench's own), so its parser is read in a subprocess of a separate
Python that has ``esrally==2.13.0`` installed (:func:`rally_python`, :func:`read_rally_parser`).
Used by tests/unit/cli/test_rally_options.py and tools/rally_options_doc.py (docs/rally-options.md).

Source: Rally 2.13 ``esrally/rally.py`` ``create_arg_parser``.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import click

from esbench.cli.options import OPTIONS, CliOption
from esbench.cli.options.commands import RALLY_TO_ESBENCH, REFUSED_COMMANDS
from esbench.exceptions import UserError

#: Where ``.ci/run`` creates the Rally venv (``ESBENCH_RALLY_PYTHON`` overrides the interpreter).
DEFAULT_RALLY_VENV = Path.home() / ".cache" / "esbench" / "rally-2.13"

# Runs inside Rally's Python: prints every sub-command's arguments as JSON.
_DUMP = r"""
import argparse, enum, json
from esrally import rally, version

def plain(v):
    if isinstance(v, enum.Enum):
        return v.value
    return v if isinstance(v, (str, int, float, bool, type(None))) else str(v)

out = {"version": version.__version__, "commands": {}}
parser = rally.create_arg_parser()
for action in parser._actions:
    if not isinstance(action, argparse._SubParsersAction):
        continue
    for name, sub in action.choices.items():
        args = []
        for a in sub._actions:
            if isinstance(a, argparse._HelpAction):
                continue
            args.append({
                "flags": list(a.option_strings),
                "dest": a.dest,
                "kind": type(a).__name__,
                "default": plain(a.default),
                "choices": [plain(c) for c in a.choices] if a.choices else None,
                "help": "" if a.help == argparse.SUPPRESS else (a.help or ""),
                "hidden": a.help == argparse.SUPPRESS,
            })
        out["commands"][name] = args
print(json.dumps(out))
"""


@dataclass(frozen=True, kw_only=True)
class RallyArgument:
    """One argument of a Rally sub-command.

    Attributes:
        command: Rally's sub-command (``"race"``).
        flags: its option strings (``("--user-tags", "--user-tag")``); empty for a positional.
        dest: argparse's ``dest``.
        default / choices: argparse's (enum values as their ``.value``).
        help: the help text ("" when hidden).
        hidden: the help is ``argparse.SUPPRESS``.
    """

    command: str
    flags: tuple[str, ...]
    dest: str
    kind: str
    default: object
    choices: tuple[object, ...] | None
    help: str
    hidden: bool

    @property
    def positional(self) -> bool:
        """A positional argument (``list``'s kind)."""
        return not self.flags


def rally_python() -> Path:
    """The Python that has esrally 2.13: ``$ESBENCH_RALLY_PYTHON``, else the venv ``.ci/run`` makes
    (:data:`DEFAULT_RALLY_VENV`).

    Raises:
        UserError: neither exists; the message says how to make the venv.
    """
    given = os.environ.get("ESBENCH_RALLY_PYTHON")
    python = Path(given) if given else DEFAULT_RALLY_VENV / "bin" / "python"
    if not python.exists():
        raise UserError(
            f"No Python with esrally 2.13 at {python}. Make one: python3.12 -m venv {DEFAULT_RALLY_VENV} && "
            f"{DEFAULT_RALLY_VENV}/bin/pip install esrally==2.13.0 (or set ESBENCH_RALLY_PYTHON)."
        )
    return python


def read_rally_parser(python: Path | None = None) -> tuple[str, list[RallyArgument]]:
    """Rally's version and the arguments of each of its sub-commands (``--help`` left out).

    Raises:
        UserError: no Rally Python (:func:`rally_python`).
        subprocess.CalledProcessError: Rally's parser could not be built.
    """
    proc = subprocess.run(
        [str(python or rally_python()), "-c", _DUMP], capture_output=True, text=True, check=True, timeout=120
    )
    data = json.loads(proc.stdout)
    arguments = [
        RallyArgument(
            command=command,
            flags=tuple(a["flags"]),
            dest=a["dest"],
            kind=a["kind"],
            default=a["default"],
            choices=tuple(a["choices"]) if a["choices"] is not None else None,
            help=a["help"],
            hidden=a["hidden"],
        )
        for command, args in data["commands"].items()
        for a in args
    ]
    return str(data["version"]), arguments


class Status(StrEnum):
    """What esbench does with a Rally option at one of its commands."""

    TAKEN = "taken"
    REFUSED = "refused"
    MISSING = "missing"


@dataclass(frozen=True, kw_only=True)
class Coverage:
    """esbench's answer to one Rally option of one sub-command.

    Attributes:
        rally: the Rally argument.
        status: :class:`Status`.
        entries: the table entries that declare it for the command's esbench paths.
        paths: the esbench command paths that take it (or refuse it).
    """

    rally: RallyArgument
    status: Status
    entries: tuple[CliOption, ...]
    paths: tuple[str, ...]


def command_at(root: click.Group, path: str) -> click.Command | None:
    """The click command at ``path`` (``"list races"``), or None."""
    command: click.Command = root
    for name in path.split():
        if not isinstance(command, click.Group) or name not in command.commands:
            return None
        command = command.commands[name]
    return command


def _spellings(command: click.Command) -> set[str]:
    return {s for p in command.params for s in (*getattr(p, "opts", ()), *getattr(p, "secondary_opts", ()))}


def coverage(root: click.Group, arguments: list[RallyArgument]) -> list[Coverage]:
    """For every Rally option: taken when a table entry declares every spelling for an esbench
    command that serves its sub-command and the command has it; refused when that entry is refused;
    missing otherwise. Positional kinds (``list races``) are taken when the esbench command exists."""
    result = []
    for arg in arguments:
        paths = RALLY_TO_ESBENCH.get(arg.command, ())
        if arg.positional:
            kinds = tuple(f"{arg.command} {c}" for c in (arg.choices or ()))
            there = tuple(p for p in kinds if command_at(root, p) is not None)
            status = Status.TAKEN if kinds and there == kinds else Status.MISSING
            result.append(Coverage(rally=arg, status=status, entries=(), paths=there))
            continue
        entries = tuple(
            e for e in OPTIONS if set(arg.flags) <= set(e.spellings) and any(p in e.commands for p in paths)
        )
        served = tuple(
            p
            for p in paths
            for e in entries
            if p in e.commands and (c := command_at(root, p)) is not None and set(arg.flags) <= _spellings(c)
        )
        unserved = tuple(p for p in paths if p in REFUSED_COMMANDS and command_at(root, p) is not None)
        if (not entries or not served) and unserved:
            # A command refused as a whole parses any option and fails with its reason.
            result.append(Coverage(rally=arg, status=Status.REFUSED, entries=(), paths=unserved))
            continue
        if not entries or not served:
            status = Status.MISSING
        elif all(e.refused is not None for e in entries):
            status = Status.REFUSED
        else:
            status = Status.TAKEN
        result.append(Coverage(rally=arg, status=status, entries=entries, paths=tuple(dict.fromkeys(served))))
    return result


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _flags(arg: RallyArgument) -> str:
    if arg.positional:
        return " \\| ".join(f"`{c}`" for c in arg.choices or ())
    return ", ".join(f"`{f}`" for f in arg.flags)


def _row(c: Coverage) -> str:
    arg = c.rally
    osb = sorted({o for e in c.entries for o in e.osb})
    where = ", ".join(f"`esbench {p}`" for p in c.paths)
    if c.status is Status.REFUSED:
        reasons = {e.refused for e in c.entries if e.refused is not None} or {
            REFUSED_COMMANDS[p] for p in c.paths if p in REFUSED_COMMANDS
        }
        note = "refused: " + " / ".join(sorted(str(r) for r in reasons))
    elif arg.positional:
        note = "each kind is a sub-command"
    else:
        taken = [e for e in c.entries if e.refused is None]
        note = " / ".join(dict.fromkeys(e.help for e in taken))
        fields = [e.field for e in taken if e.field]
        if fields:
            note += " (fills " + ", ".join(f"`{f}`" for f in dict.fromkeys(fields)) + ")"
    hidden = " (hidden)" if arg.hidden else ""
    return (
        f"| {_flags(arg)}{hidden} | {c.status.value} | {where or '-'} | "
        f"{', '.join(f'`{o}`' for o in osb) or '-'} | {_cell(note)} |"
    )


def render_markdown(version: str, rows: list[Coverage]) -> str:
    """docs/rally-options.md: for each Rally sub-command, each option with what esbench does with it
    (taken with its help and settings field, or refused with the reason), the esbench commands and
    OSB's spellings. Written by tools/rally_options_doc.py."""
    lines = [
        "# Rally's command-line options in esbench",
        "",
        "<!-- Generated by tools/rally_options_doc.py from Rally's own argument parser and esbench's option",
        "     table (esbench/cli/options); tests/unit/cli/test_rally_options.py checks it is current. -->",
        "",
        f"Every option of every sub-command of Rally {version} (`esrally`), and what `esbench` does with it:",
        "**taken** with Rally's meaning, or **refused**: the option parses, then the command stops before "
        "doing anything with the paragraph below (exit status 64). OSB spellings are OpenSearch "
        "Benchmark's names for the same option, which esbench accepts too.",
        "",
    ]
    counts = {s: sum(r.status is s for r in rows) for s in Status}
    lines += [
        f"{counts[Status.TAKEN]} taken, {counts[Status.REFUSED]} refused, {counts[Status.MISSING]} missing.",
        "",
    ]
    for command in RALLY_TO_ESBENCH:
        mine = [r for r in rows if r.rally.command == command]
        if not mine:
            continue
        lines += [
            f"## esrally {command}",
            "",
            "| Rally option | esbench | command | OSB spelling | meaning or reason |",
            "|---|---|---|---|---|",
            *(_row(r) for r in mine),
            "",
        ]
    return "\n".join(lines)
