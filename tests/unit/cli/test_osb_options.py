"""OpenSearch Benchmark 2.4.0's own argument parser is the oracle: every option of every OSB
sub-command is either taken by esbench (and parses with a plausible value, at the esbench command
that serves the sub-command, under OSB's spelling) or refused with its reason.

OSB is read from its own Python, not imported here (opensearch-benchmark pins its own
opensearch-py, numpy and more). ``.ci/run`` creates that venv once (cached in
``~/.cache/esbench/osb-2.4.0``; ``ESBENCH_OSB_PYTHON`` names another interpreter) and
:func:`esbench.cli.options.coverage.read_parser` dumps the parser there in a subprocess with a scratch
HOME (OSB's parser reads ~/.benchmark/benchmark.ini).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from peer_options import cases, invoke, refusal_problems

from esbench.cli import main
from esbench.cli.options.commands import OSB_REFUSED_COMMANDS, OSB_TO_ESBENCH
from esbench.cli.options.coverage import (
    OSB,
    Coverage,
    PeerArgument,
    Status,
    command_at,
    coverage,
    read_parser,
    render_markdown,
)

TRACK = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "planning-search"

#: Values for options whose OSB default is empty or not a plausible value on its own.
PLAUSIBLE: dict[str, str] = {
    "--randomization-repeat-frequency": "0.3",
    "--workload-path": str(TRACK),
    "--workload": "geonames",
    "-w": "geonames",
    "--target-hosts": "127.0.0.1:9200",
    "-t": "127.0.0.1:9200",
    "--distribution-version": "2.18.0",
    "--workload-params": "search_clients:2",
    "-wp": "search_clients:2",
    "--cluster-config-params": "heap_size:'2g'",
    "--client-options": "timeout:60",
    "--telemetry": "node-stats",
    "--telemetry-params": "node-stats-sample-interval:2",
    "--include-tasks": "infix-search",
    "--exclude-tasks": "type:bulk",
    "--user-tag": "env:ci",
    "--results-file": "/tmp/esbench-report.md",
    "--output-path": "/tmp/esbench-out",
    "--installation-id": "0e5b6c9a-2f31-4c59-9c2a-1d1c2b3a4d5e",
    "--test-run-id": "0e5b6c9a-2f31-4c59-9c2a-1d1c2b3a4d5e",
    "-tid": "0e5b6c9a-2f31-4c59-9c2a-1d1c2b3a4d5e",
    "--runtime-jdk": "21",
    "--worker-ips": "localhost",
    "--pipeline": "benchmark-only",
    "--target-os": "linux",
    "--target-arch": "x86_64",
    "--cluster-config-path": str(Path(__file__).resolve().parents[2] / "resources" / "teams" / "sample"),
    "--plugin-params": "wire_level:2",
    "--indices": "logs",
    "-i": "logs",
    "--latency-percentiles": "50,99.9",
    "--throughput-percentiles": "25,75",
    "--percentiles": "50,99",
}

#: Per esbench command, what it needs to parse at all (OSB's required options are OSB-spelled).
REQUIRED: dict[str, list[str]] = {
    "compare": ["-b", "a", "-c", "b"],
    "create-track": ["-w", "t", "-t", "127.0.0.1:9200", "-i", "logs"],
    "visualize": ["-tid", "0e5b6c9a"],
    "start": ["--installation-id=0e5b6c9a"],
    "stop": ["--installation-id=0e5b6c9a"],
}


@pytest.fixture(scope="module")
def osb() -> tuple[str, list[PeerArgument]]:
    return read_parser(OSB)


@pytest.fixture(scope="module")
def rows(osb: tuple[str, list[PeerArgument]]) -> list[Coverage]:
    return coverage(main, osb[1], OSB)


def test_the_oracle_is_osb_2_4_0(osb: tuple[str, list[PeerArgument]]) -> None:
    version, arguments = osb
    assert version.startswith(OSB.version_prefix)
    assert {a.command for a in arguments} == set(OSB_TO_ESBENCH)
    # The walk found the parser's options (run alone has more than 60).
    assert sum(a.command == "run" for a in arguments) > 60


def test_every_osb_option_is_taken_or_refused_with_its_reason(rows: list[Coverage]) -> None:
    missing = [
        f"{r.rally.command} {'/'.join(r.rally.flags) or r.rally.dest}"
        for r in rows
        if r.status is Status.MISSING
    ]
    assert not missing, "OSB options esbench neither takes nor refuses: " + ", ".join(missing)


def _osb_name(command: str, path: str) -> str:
    """The esbench command line an OSB user types for ``path``: OSB's own word where esbench has it
    (``run``, ``create-workload``, ``list workloads``), else esbench's."""
    if command == "run":
        return "run"
    if command == "create-workload":
        return "create-workload"
    osb_lists = {
        "list tracks": "list workloads",
        "list races": "list test-runs",
        "list cars": "list cluster-configs",
    }
    return osb_lists.get(path, path)


def test_every_taken_osb_option_parses_with_a_plausible_value_under_osbs_command_name(
    rows: list[Coverage], monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = cases(rows, Status.TAKEN, PLAUSIBLE)
    assert len(taken) > 100
    problems = []
    for path, args, row in taken:
        name = _osb_name(row.rally.command, path)
        code, output, ran = invoke(path, args, monkeypatch, REQUIRED, invoked_as=name)
        if code != 0 or not ran:
            problems.append(f"esbench {_osb_name(row.rally.command, path)} {args} -> {code}: {output!r}")
    assert not problems, "\n".join(problems)


def test_every_refused_osb_option_parses_then_gives_its_reason(
    rows: list[Coverage], monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = cases(rows, Status.REFUSED, PLAUSIBLE)
    assert len(refused) > 40
    problems = refusal_problems(
        refused, OSB.refused_commands, lambda path, args: invoke(path, args, monkeypatch, REQUIRED)
    )
    assert not problems, "\n".join(problems)


def test_osbs_refused_commands_refuse_whatever_follows() -> None:
    for path, reason in OSB_REFUSED_COMMANDS.items():
        result = CliRunner().invoke(main, [*path.split(), "--index-mappings", "m.json", "-s", "1"])
        assert result.exit_code == 64, (path, result.output)
        assert result.output.strip() == f"[ERROR] {path}: {reason}"


def test_every_kind_of_osb_list_is_a_command(rows: list[Coverage]) -> None:
    positional = [r for r in rows if r.rally.positional]
    assert {r.rally.command for r in positional} == {"list"}
    (row,) = positional
    assert row.status is Status.TAKEN
    assert set(row.paths) == {f"list {kind}" for kind in row.rally.choices or ()}


def test_short_osb_spellings_stay_at_osbs_commands() -> None:
    # -t is the client count of esbench query (its own option); OSB's -t (--target-hosts) is only
    # where an OSB sub-command is served.
    query = command_at(main, "query")
    race = command_at(main, "race")
    assert query is not None and race is not None
    target_hosts = next(p for p in race.params if p.name == "target_hosts")
    assert "-t" in target_hosts.opts
    assert all("-t" not in p.opts for p in query.params if p.name == "target_hosts")


def test_the_committed_doc_is_current(osb: tuple[str, list[PeerArgument]], rows: list[Coverage]) -> None:
    doc = Path(__file__).resolve().parents[3] / "docs" / OSB.doc
    assert doc.read_text(encoding="utf-8") == render_markdown(osb[0], rows, OSB), (
        f"docs/{OSB.doc} is out of date: run python3 tools/rally_options_doc.py"
    )


def test_a_refused_option_given_without_its_value_still_gets_its_reason() -> None:
    # OSB's --redline-test takes an optional value (argparse nargs='?', const 1000).
    result = CliRunner().invoke(main, ["run", f"--workload-path={TRACK}", "--redline-test"])
    assert result.exit_code == 64
    assert result.output.startswith("[ERROR] --redline-test: esbench does not ramp clients")
