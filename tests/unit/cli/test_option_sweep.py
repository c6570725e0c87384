"""Every option of every command, given a bad value, is refused while the command line is parsed.

The cases are generated from the click definitions (``esbench.cli.main`` walked recursively), so a
new option or command is swept without editing this file. Each class of bad value applies to the
options whose type can be wrong that way:

- empty: every option that takes a value, except those whose empty value means "none";
- negative: numbers, and text holding numbers (``--clients=1,5``, ``--hot=30d``);
- wrong type: numbers given a word, choices given a non-choice, files given a directory (and
  directories a file), validated text given the example of its type
  (:attr:`esbench.cli._params.ValidatedText.wrong_example`);
- missing file: existing-path options, and text that names files (``--track-params=x.json``,
  ``ca_certs`` in ``--client-options``).

The command body is replaced by one that fails the test: a bad value must stop esbench before it
does anything (prepares a corpus, starts a node). The message must be one paragraph that names the
option, with a non-zero exit and no traceback. Unreachable hosts are swept in
test_option_sweep_hosts.py (they need the command to run).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from esbench.cli import main
from esbench.cli._params import ValidatedText
from esbench.cli.options.commands import OSB_REFUSED_COMMANDS, REFUSED_COMMANDS

MISSING = "/nonexistent/esbench-option-sweep/file.json"


def commands(
    group: click.Group = main, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every leaf command with its path of names (``("optimize", "bulk-size")``), except Rally's and
    OSB's commands that esbench refuses as a whole (they take any argument and fail with their reason,
    tests/unit/cli/test_rally_options.py, test_osb_options.py) and other names of the same command
    (OSB's ``run`` for ``race``)."""
    for name, command in sorted(group.commands.items()):
        if command.name != name:
            continue
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))
        elif " ".join((*path, name)) not in {**REFUSED_COMMANDS, **OSB_REFUSED_COMMANDS}:
            yield (*path, name), command


def value_params(command: click.Command) -> list[click.Parameter]:
    """The parameters that take a value (flags and --help excluded)."""
    return [
        p
        for p in command.params
        if not (isinstance(p, click.Option) and (p.is_flag or p.count)) and p.name != "help"
    ]


def bad_values(param: click.Parameter, existing_dir: Path, existing_file: Path) -> dict[str, str]:
    """Class of bad value -> the value to try, for the classes that apply to ``param``."""
    t = param.type
    numeric = isinstance(t, click.types.IntParamType | click.types.FloatParamType)
    values: dict[str, str] = {}
    if not (isinstance(t, ValidatedText) and t.empty_ok):
        values["empty"] = ""
    if numeric or (isinstance(t, ValidatedText) and t.numbers):
        values["negative"] = "-1"
    if numeric:
        values["wrong-type"] = "abc"
    elif isinstance(t, click.Choice):
        values["wrong-type"] = "no-such-choice"
    elif isinstance(t, click.Path | click.File):
        dir_okay = getattr(t, "dir_okay", False)
        file_okay = getattr(t, "file_okay", True)
        if not dir_okay:
            values["wrong-type"] = str(existing_dir)
        elif not file_okay:
            values["wrong-type"] = str(existing_file)
    elif isinstance(t, ValidatedText) and t.wrong_example is not None:
        values["wrong-type"] = t.wrong_example
    if (isinstance(t, click.Path) and t.exists) or (isinstance(t, click.File) and "r" in t.mode):
        values["missing-file"] = MISSING
    elif isinstance(t, ValidatedText) and t.missing_file_example is not None:
        values["missing-file"] = t.missing_file_example
    return values


def _cases() -> list[tuple[str, tuple[str, ...]]]:
    """(class, command path) for every command with an option that the class applies to."""
    return sorted(
        {
            (bad, path)
            for path, command in commands()
            for p in value_params(command)
            for bad in bad_values(p, Path("/"), Path(__file__))
        }
    )


_CLASSES = ("empty", "negative", "wrong-type", "missing-file")


def test_every_option_has_a_checked_type() -> None:
    # New plain-text options get a validated type from esbench.cli._params; none is left unchecked.
    unchecked = [
        f"{' '.join(path)} {p.name}"
        for path, command in commands()
        for p in value_params(command)
        if isinstance(p.type, click.types.StringParamType) and not isinstance(p.type, ValidatedText)
    ]
    assert not unchecked


def test_the_sweep_covers_every_command_and_class() -> None:
    names = {path for path, command in commands() if value_params(command)}
    assert {path for _, path in _cases()} == names
    assert {bad for bad, _ in _cases()} == set(_CLASSES)
    assert len(names) >= 20  # the walk found the commands (race, optimize bulk-size, list races...)


@pytest.mark.parametrize(
    ("bad", "path"),
    _cases(),
    ids=lambda v: v if isinstance(v, str) else "-".join(v),
)
def test_bad_value_is_one_paragraph_naming_the_option(
    bad: str, path: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = main
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]

    ran: list[bool] = []
    monkeypatch.setattr(command, "callback", lambda **_: ran.append(True))
    existing_file = tmp_path / "a-file"
    existing_file.write_text("x")
    tried, problems = 0, []
    for param in value_params(command):
        value = bad_values(param, tmp_path, existing_file).get(bad)
        if value is None:
            continue
        tried += 1
        if isinstance(param, click.Argument):
            args, names = [value], [param.human_readable_name]
        else:
            args, names = [max(param.opts, key=len), value], list(param.opts)
        ran.clear()
        result = CliRunner().invoke(main, [*path, *args])
        ok = (
            not ran
            and result.exit_code != 0
            and isinstance(result.exception, SystemExit)
            and "Traceback" not in result.output
            and any(n in result.output for n in names)
            and result.output.startswith("[ERROR] ")
            and "\n" not in result.output.strip()
        )
        if not ok:
            problems.append(f"esbench {' '.join(path)} {args} -> {result.exit_code}: {result.output!r}")
    assert tried and not problems, "\n".join(problems)
