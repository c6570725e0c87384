"""What the Rally and OSB option-coverage tests share: a plausible command line for each of a
peer's options, running it at esbench's command with that command's callback replaced, and the
check that a refused option or command gives its reason and exit 64 without running anything, and
Rally's Python for tests that run Rally's own functions as the oracle (:func:`rally_python_or_skip`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner
from peer_pythons import peer_python_or_skip

from esbench.cli import main
from esbench.cli.options.coverage import RALLY, Coverage, PeerArgument, Status, command_at

Case = tuple[str, list[str], Coverage]


def plausible_args(arg: PeerArgument, flag: str, plausible: Mapping[str, str]) -> list[str]:
    """``flag`` with a plausible value: ``plausible[flag]``, else the first choice, else a non-empty
    default, else ``x``; a flag without a value alone. A short spelling takes its value as the next
    argument (argparse and click both read it so)."""
    if arg.kind in ("_StoreTrueAction", "BooleanOptionalAction"):
        return [flag]
    value = plausible.get(flag)
    if value is None and arg.choices:
        value = str(arg.choices[0])
    if value is None and isinstance(arg.default, str | int) and not isinstance(arg.default, bool):
        value = str(arg.default)
    value = value or "x"
    return [f"{flag}={value}"] if flag.startswith("--") else [flag, value]


def cases(rows: list[Coverage], status: Status, plausible: Mapping[str, str]) -> list[Case]:
    """``(esbench command path, args, row)`` for every flag of every row with ``status``."""
    return [
        (path, plausible_args(r.rally, flag, plausible), r)
        for r in rows
        if r.status is status and not r.rally.positional
        for path in r.paths
        for flag in r.rally.flags
    ]


def invoke(
    path: str,
    args: list[str],
    monkeypatch: pytest.MonkeyPatch,
    required: Mapping[str, list[str]],
    *,
    invoked_as: str | None = None,
) -> tuple[int, str, bool]:
    """Run ``esbench <invoked_as or path> <required[path]> <args>`` with the command's callback
    replaced; ``(exit code, output, whether the callback ran)``."""
    command = command_at(main, path)
    assert command is not None, path
    ran: list[bool] = []
    monkeypatch.setattr(command, "callback", lambda *_, **__: ran.append(True))
    result = CliRunner().invoke(main, [*(invoked_as or path).split(), *required.get(path, []), *args])
    return result.exit_code, result.output, bool(ran)


def refusal_problems(
    refused: list[Case],
    refused_commands: Mapping[str, str],
    run: Callable[[str, list[str]], tuple[int, str, bool]],
) -> list[str]:
    """The refused options (or whole commands) that did not stop with exit 64 and exactly their
    reason before running anything; ``run(path, args)`` invokes one (see :func:`invoke`)."""
    problems = []
    for path, args, row in refused:
        if path in refused_commands:
            # A command refused as a whole: its own reason, whatever the options.
            result = CliRunner().invoke(main, [*path.split(), *args])
            code, output, ran = result.exit_code, result.output, False
            expected = f"[ERROR] {path}: {refused_commands[path]}"
        else:
            code, output, ran = run(path, args)
            entry = next(e for e in row.entries if e.refused is not None and path in e.commands)
            expected = f"[ERROR] {entry.long}: {entry.refused}"
        if code != 64 or ran or output.strip() != expected:
            problems.append(f"esbench {path} {args} -> {code}: {output!r}")
    return problems


def rally_python_or_skip() -> Path:
    """Rally 2.13's Python for a test that runs Rally's own functions as the oracle
    (:func:`peer_pythons.peer_python_or_skip`)."""
    return peer_python_or_skip(RALLY)
