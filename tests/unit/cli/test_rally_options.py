"""Rally 2.13's own argument parser is the oracle: every option of every Rally sub-command is either
taken by esbench (and parses with a plausible value) or refused with its reason; a new Rally release
then shows what it adds.

Rally is read from its own Python, not imported here: esrally 2.13 pins elasticsearch 8.6, tabulate
0.8, psutil 5.9, jsonschema 3.1 and more, which ``pip install --dry-run esrally==2.13.0`` shows would
downgrade esbench's own dependencies in the same environment. ``.ci/run`` creates that venv once
(cached in ``~/.cache/esbench/rally-2.13``; ``ESBENCH_RALLY_PYTHON`` names another interpreter) and
:func:`esbench.cli.options.coverage.read_rally_parser` dumps the parser there in a subprocess.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from peer_options import cases, invoke, refusal_problems

from esbench.cli import main
from esbench.cli.options.commands import RALLY_TO_ESBENCH, REFUSED_COMMANDS
from esbench.cli.options.coverage import (
    Coverage,
    RallyArgument,
    Status,
    coverage,
    read_rally_parser,
    render_markdown,
)

TRACK = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "planning-search"

#: Values for options whose Rally default is empty or not a plausible value on its own.
PLAUSIBLE: dict[str, str] = {
    "--track-path": str(TRACK),
    "--target-hosts": "127.0.0.1:9200",
    "--distribution-version": "8.19.0",
    "--track-params": "search_clients:2",
    "--car-params": "heap_size:'2g'",
    "--client-options": "timeout:60",
    "--telemetry": "node-stats",
    "--telemetry-params": "node-stats-sample-interval:2",
    "--include-tasks": "infix-search",
    "--exclude-tasks": "type:bulk",
    "--user-tags": "env:ci",
    "--user-tag": "env:ci",
    "--report-file": "/tmp/esbench-report.md",
    "--output-path": "/tmp/esbench-out",
    "--installation-id": "0e5b6c9a-2f31-4c59-9c2a-1d1c2b3a4d5e",
    "--race-id": "0e5b6c9a-2f31-4c59-9c2a-1d1c2b3a4d5e",
    "--runtime-jdk": "21",
    "--id": "0e5b6c9a",
    "--load-driver-hosts": "localhost",
    "--pipeline": "benchmark-only",
    "--target-os": "linux",
    "--target-arch": "x86_64",
    "--team-path": str(Path(__file__).resolve().parents[2] / "resources" / "teams" / "sample"),
    "--plugin-params": "wire_level:2",
}

#: Options a command cannot parse without.
REQUIRED: dict[str, list[str]] = {
    "compare": ["--baseline=a", "--contender=b"],
    "create-track": ["--track=t", "--target-hosts=127.0.0.1:9200"],
    "add annotation": ["--race-timestamp=20261128T000000Z", "--message=m"],
    "delete annotation": ["--id=a1"],
}


@pytest.fixture(scope="module")
def rally() -> tuple[str, list[RallyArgument]]:
    return read_rally_parser()


@pytest.fixture(scope="module")
def rows(rally: tuple[str, list[RallyArgument]]) -> list[Coverage]:
    return coverage(main, rally[1])


def test_the_oracle_is_rally_2_13(rally: tuple[str, list[RallyArgument]]) -> None:
    version, arguments = rally
    assert version.startswith("2.13.")
    assert {a.command for a in arguments} == set(RALLY_TO_ESBENCH)
    # The walk found the parser's options (race alone has more than 40).
    assert sum(a.command == "race" for a in arguments) > 40


def test_every_rally_option_is_taken_or_refused_with_its_reason(rows: list[Coverage]) -> None:
    missing = [
        f"{r.rally.command} {'/'.join(r.rally.flags) or r.rally.dest}"
        for r in rows
        if r.status is Status.MISSING
    ]
    assert not missing, "Rally options esbench neither takes nor refuses: " + ", ".join(missing)


def test_hidden_rally_options_are_decided_too(rows: list[Coverage]) -> None:
    hidden = {(r.rally.command, r.rally.flags[0]) for r in rows if r.rally.hidden}
    assert ("race", "--configuration-name") in hidden and ("race", "--effective-start-date") in hidden
    assert all(r.status is not Status.MISSING for r in rows if r.rally.hidden)


def _invoke(path: str, args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, bool]:
    return invoke(path, args, monkeypatch, REQUIRED)


def test_every_taken_rally_option_parses_with_a_plausible_value(
    rows: list[Coverage], monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = cases(rows, Status.TAKEN, PLAUSIBLE)
    assert len(taken) > 100
    problems = []
    for path, args, _ in taken:
        code, output, ran = _invoke(path, args, monkeypatch)
        if code != 0 or not ran:
            problems.append(f"esbench {path} {args} -> {code}: {output!r}")
    assert not problems, "\n".join(problems)


def test_every_refused_rally_option_parses_then_gives_its_reason(
    rows: list[Coverage], monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = cases(rows, Status.REFUSED, PLAUSIBLE)
    assert len(refused) > 40
    problems = refusal_problems(
        refused, REFUSED_COMMANDS, lambda path, args: _invoke(path, args, monkeypatch)
    )
    assert not problems, "\n".join(problems)


def test_every_kind_of_list_delete_and_add_is_a_command(rows: list[Coverage]) -> None:
    positional = [r for r in rows if r.rally.positional]
    assert {r.rally.command for r in positional} == {"list", "delete", "add"}
    for row in positional:
        assert row.status is Status.TAKEN, row
        assert set(row.paths) == {f"{row.rally.command} {kind}" for kind in row.rally.choices or ()}


def test_the_committed_doc_is_current(rally: tuple[str, list[RallyArgument]], rows: list[Coverage]) -> None:
    doc = Path(__file__).resolve().parents[3] / "docs" / "rally-options.md"
    assert doc.read_text(encoding="utf-8") == render_markdown(rally[0], rows), (
        "docs/rally-options.md is out of date: run python3 tools/rally_options_doc.py"
    )
