"""A peer's own argument parser against esbench's command line: which option of Rally 2.13
(``esrally``) or OpenSearch Benchmark 2.4.0 (``opensearch-benchmark``) esbench takes, which it
refuses (and why), which it lacks.

Neither peer is a dependency of esbench (esrally 2.13 pins elasticsearch 8.6, tabulate 0.8, psutil
5.9 and more; opensearch-benchmark pins its own opensearch-py, numpy and more), so each peer's
parser is read in a subprocess of a separate Python that has the peer installed
(:func:`peer_python`, :func:`read_parser`). One reader serves both: a :class:`Peer` says how to
build its parser and which esbench commands serve its sub-commands. Used by
tests/unit/cli/test_rally_options.py, tests/unit/cli/test_osb_options.py and
tools/rally_options_doc.py (docs/rally-options.md, docs/osb-options.md).

Sources: Rally 2.13 ``esrally/rally.py`` ``create_arg_parser``; OSB 2.4.0
``osbenchmark/benchmark.py`` ``create_arg_parser``.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import click

from esbench.cli.options import OPTIONS, CliOption
from esbench.cli.options.commands import (
    OSB_REFUSED_COMMANDS,
    OSB_TO_ESBENCH,
    RALLY_TO_ESBENCH,
    REFUSED_COMMANDS,
)
from esbench.exceptions import UserError

#: Where ``.ci/run`` creates the Rally venv (``ESBENCH_RALLY_PYTHON`` overrides the interpreter).
DEFAULT_RALLY_VENV = Path.home() / ".cache" / "esbench" / "rally-2.13"
#: Where ``.ci/run`` creates the OSB venv (``ESBENCH_OSB_PYTHON`` overrides the interpreter).
DEFAULT_OSB_VENV = Path.home() / ".cache" / "esbench" / "osb-2.4.0"

# Runs inside the peer's Python after the peer's prelude has set ``parser`` and ``peer_version``:
# prints every sub-command's arguments as JSON.
_DUMP = r"""
import argparse, enum, json

def plain(v):
    if isinstance(v, enum.Enum):
        return v.value
    return v if isinstance(v, (str, int, float, bool, type(None))) else str(v)

out = {"version": peer_version, "commands": {}}
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

_RALLY_PRELUDE = """
from esrally import rally, version
parser = rally.create_arg_parser()
peer_version = version.__version__
"""

# OSB's create_arg_parser prints its help and exits when sys.argv has no sub-command, and reads
# ~/.benchmark/benchmark.ini (the subprocess runs with a scratch HOME, so that file is a fresh one).
_OSB_PRELUDE = """
import sys
sys.argv = ["opensearch-benchmark", "run"]
from osbenchmark import benchmark, version
parser = benchmark.create_arg_parser()
peer_version = version.__version__
"""


@dataclass(frozen=True, kw_only=True)
class Peer:
    """A benchmark tool whose command line esbench takes.

    Attributes:
        name: ``"Rally"`` / ``"OSB"``.
        program: its command (``esrally``, ``opensearch-benchmark``).
        requirement: the pip requirement of the version esbench matches (``esrally==2.13.0``).
        version_prefix: the version its parser must report (``"2.13."``).
        env: the variable naming a Python that has it (``ESBENCH_RALLY_PYTHON``).
        venv: the venv ``.ci/run`` makes when ``env`` is unset.
        prelude: Python run in that interpreter that sets ``parser`` and ``peer_version``.
        commands: its sub-command -> the esbench command paths that serve it.
        refused_commands: esbench command paths refused as a whole -> their paragraph.
        doc: the generated document under docs/.
        scratch_home: run the subprocess with an empty HOME (the peer writes under it on import).
    """

    name: str
    program: str
    requirement: str
    version_prefix: str
    env: str
    venv: Path
    prelude: str
    commands: Mapping[str, tuple[str, ...]]
    refused_commands: Mapping[str, str]
    doc: str
    scratch_home: bool = False


RALLY = Peer(
    name="Rally",
    program="esrally",
    requirement="esrally==2.13.0",
    version_prefix="2.13.",
    env="ESBENCH_RALLY_PYTHON",
    venv=DEFAULT_RALLY_VENV,
    prelude=_RALLY_PRELUDE,
    commands=RALLY_TO_ESBENCH,
    refused_commands=REFUSED_COMMANDS,
    doc="rally-options.md",
)

OSB = Peer(
    name="OSB",
    program="opensearch-benchmark",
    requirement="opensearch-benchmark==2.4.0",
    version_prefix="2.4.",
    env="ESBENCH_OSB_PYTHON",
    venv=DEFAULT_OSB_VENV,
    prelude=_OSB_PRELUDE,
    commands=OSB_TO_ESBENCH,
    refused_commands={**REFUSED_COMMANDS, **OSB_REFUSED_COMMANDS},
    doc="osb-options.md",
    scratch_home=True,
)

PEERS: tuple[Peer, ...] = (RALLY, OSB)


@dataclass(frozen=True, kw_only=True)
class PeerArgument:
    """One argument of a peer's sub-command.

    Attributes:
        command: the peer's sub-command (``"race"``, ``"run"``).
        flags: its option strings (``("--user-tags", "--user-tag")``); empty for a positional.
        dest: argparse's ``dest``.
        kind: argparse's action class name (``"_StoreTrueAction"``).
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


#: The name the Rally coverage test has always used.
RallyArgument = PeerArgument


def peer_python(peer: Peer = RALLY) -> Path:
    """The Python that has ``peer``: ``$<peer.env>``, else the venv ``.ci/run`` makes (``peer.venv``).

    Raises:
        UserError: neither exists; the message says how to make the venv.
    """
    given = os.environ.get(peer.env)
    python = Path(given) if given else peer.venv / "bin" / "python"
    if not python.exists():
        raise UserError(
            f"No Python with {peer.requirement} at {python}. Make one: python3.12 -m venv {peer.venv} && "
            f"{peer.venv}/bin/pip install {peer.requirement} (or set {peer.env})."
        )
    return python


def rally_python() -> Path:
    """The Python that has esrally 2.13 (:func:`peer_python` of :data:`RALLY`)."""
    return peer_python(RALLY)


def peer_json(peer: Peer, script: str, python: Path | None = None) -> Any:
    """What ``script`` prints as JSON on its last line of output, run in ``peer``'s Python after
    ``peer.prelude`` (which sets ``parser``, the peer's own argument parser, and ``peer_version``).

    Raises:
        UserError: no Python with the peer (:func:`peer_python`).
        subprocess.CalledProcessError: the script failed (the peer's parser could not be built).
    """
    interpreter = str(python or peer_python(peer))
    with tempfile.TemporaryDirectory(prefix="esbench-peer-home-") as home:
        env = {**os.environ, "HOME": home} if peer.scratch_home else None
        proc = subprocess.run(
            [interpreter, "-c", peer.prelude + script],
            capture_output=True,
            text=True,
            check=True,
            timeout=180,
            env=env,
        )
    # The last line: a peer may print on import (OSB's banner goes to the console on some paths).
    return json.loads(proc.stdout.strip().splitlines()[-1])


def read_parser(peer: Peer, python: Path | None = None) -> tuple[str, list[PeerArgument]]:
    """``peer``'s version and the arguments of each of its sub-commands (``--help`` left out).

    Raises:
        UserError: no Python with the peer (:func:`peer_python`).
        subprocess.CalledProcessError: the peer's parser could not be built.
    """
    data = peer_json(peer, _DUMP, python)
    arguments = [
        PeerArgument(
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


def read_rally_parser(python: Path | None = None) -> tuple[str, list[PeerArgument]]:
    """Rally's version and arguments (:func:`read_parser` of :data:`RALLY`)."""
    return read_parser(RALLY, python)


class Status(StrEnum):
    """What esbench does with a peer's option at one of its commands."""

    TAKEN = "taken"
    REFUSED = "refused"
    MISSING = "missing"


@dataclass(frozen=True, kw_only=True)
class Coverage:
    """esbench's answer to one peer option of one sub-command.

    Attributes:
        rally: the peer's argument (named for Rally, the first peer).
        status: :class:`Status`.
        entries: the table entries that declare it for the command's esbench paths.
        paths: the esbench command paths that take it (or refuse it).
    """

    rally: PeerArgument
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


def coverage(root: click.Group, arguments: list[PeerArgument], peer: Peer = RALLY) -> list[Coverage]:
    """For every option of ``peer``: taken when a table entry declares every spelling for an esbench
    command that serves its sub-command and the command has it; refused when that entry is refused;
    missing otherwise. Positional kinds (``list races``) are taken when the esbench command exists."""
    result = []
    for arg in arguments:
        paths = peer.commands.get(arg.command, ())
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
        unserved = tuple(p for p in paths if p in peer.refused_commands and command_at(root, p) is not None)
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


def _flags(arg: PeerArgument) -> str:
    if arg.positional:
        return " \\| ".join(f"`{c}`" for c in arg.choices or ())
    return ", ".join(f"`{f}`" for f in arg.flags)


def _row(c: Coverage, peer: Peer) -> str:
    arg = c.rally
    where = ", ".join(f"`esbench {p}`" for p in c.paths)
    if c.status is Status.REFUSED:
        reasons = {e.refused for e in c.entries if e.refused is not None} or {
            peer.refused_commands[p] for p in c.paths if p in peer.refused_commands
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
    if peer is RALLY:
        osb = sorted({o for e in c.entries for o in e.osb})
        other = ", ".join(f"`{o}`" for o in osb) or "-"
    else:
        # The esbench (Rally) spelling an OSB option is an alias of.
        rally = sorted({e.long for e in c.entries if e.long not in arg.flags})
        other = ", ".join(f"`{o}`" for o in rally) or "-"
    return f"| {_flags(arg)}{hidden} | {c.status.value} | {where or '-'} | {other} | {_cell(note)} |"


def render_markdown(version: str, rows: list[Coverage], peer: Peer = RALLY) -> str:
    """docs/rally-options.md or docs/osb-options.md: for each of ``peer``'s sub-commands, each option
    with what esbench does with it (taken with its help and settings field, or refused with the
    reason), the esbench commands and the other tool's spelling. Written by
    tools/rally_options_doc.py."""
    test = "test_rally_options.py" if peer is RALLY else "test_osb_options.py"
    if peer is RALLY:
        title = "# Rally's command-line options in esbench"
        intro = f"Every option of every sub-command of Rally {version} (`esrally`), and what `esbench` does "
        intro += "with it:"
        other_note = (
            "OSB spellings are OpenSearch Benchmark's names for the same option, which esbench accepts too."
        )
        column = "| Rally option | esbench | command | OSB spelling | meaning or reason |"
    else:
        title = "# OpenSearch Benchmark's command-line options in esbench"
        intro = (
            f"Every option of every sub-command of OpenSearch Benchmark {version} (`opensearch-benchmark`), "
            "and what `esbench` does with it:"
        )
        other_note = (
            "The Rally spelling is esbench's own name of the option an OSB spelling is an alias of "
            "(`--workload` of `--track`); `esbench --help` shows both."
        )
        other_note += (
            " OSB's command names are esbench's too: `esbench run` (esbench's `race`; it provisions "
            "OpenSearch unless `--distribution-flavor` says otherwise), `list workloads` / `test-runs` / "
            "`cluster-configs` / `opensearch-plugins` (`list tracks` / `races` / `cars` / "
            "`elasticsearch-plugins`, with OSB's columns), `create-workload` (`create-track`), `visualize`; "
            "the command column names the esbench command whose options serve OSB's."
        )
        column = "| OSB option | esbench | command | Rally spelling | meaning or reason |"
    lines = [
        title,
        "",
        f"<!-- Generated by tools/rally_options_doc.py from {peer.name}'s own argument parser and "
        "esbench's option",
        f"     table (esbench/cli/options); tests/unit/cli/{test} checks it is current. -->",
        "",
        intro,
        f"**taken** with {peer.name}'s meaning, or **refused**: the option parses, then the command stops "
        "before doing anything with the paragraph below (exit status 64). " + other_note,
        "",
        f"As with `{peer.program}` (argparse's `allow_abbrev`), a long option may be shortened to a unique "
        "prefix (`--target-host=` for `--target-hosts=`); a prefix of several esbench options, which may "
        f"include ones `{peer.program}` lacks, is refused naming them (exit status 64).",
        "",
    ]
    counts = {s: sum(r.status is s for r in rows) for s in Status}
    lines += [
        f"{counts[Status.TAKEN]} taken, {counts[Status.REFUSED]} refused, {counts[Status.MISSING]} missing.",
        "",
    ]
    for command in peer.commands:
        mine = [r for r in rows if r.rally.command == command]
        if not mine:
            continue
        lines += [
            f"## {peer.program} {command}",
            "",
            column,
            "|---|---|---|---|---|",
            *(_row(r, peer) for r in mine),
            "",
        ]
    return "\n".join(lines)
