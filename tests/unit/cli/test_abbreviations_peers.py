"""Rally 2.13's and OSB 2.4.0's own parsers are the oracle of abbreviated options: for every long
spelling of every option esbench takes, the shortest prefix the peer's parser resolves to that
option (argparse ``allow_abbrev``) names the same option in esbench, written ``--prefix=value`` and
``--prefix value``; where an option only esbench has makes that prefix ambiguous in esbench, the
case is listed below and refused naming the candidates (esbench/cli/_abbreviations.py).

The peer's parser is asked in its own Python (:func:`esbench.cli.options.coverage.peer_json`), with
argparse's ``_parse_optional`` on the top-level parser (which classifies every argument first) and
on the sub-command's parser, their ``error`` made to raise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import click
import pytest
import test_osb_options
import test_rally_options
from click.core import ParameterSource
from click.testing import CliRunner
from peer_options import plausible_args

from esbench.cli import main
from esbench.cli.options.coverage import (
    OSB,
    RALLY,
    Coverage,
    Peer,
    Status,
    command_at,
    coverage,
    peer_json,
    read_parser,
)

# Runs in the peer's Python after its prelude (``parser``, ``peer_version``): for every sub-command,
# every long option string and the shortest prefix (at least ``--x``) the parser resolves to it.
_SHORTEST = r"""
import argparse, json

class _Refused(Exception):
    pass

def _refuse(self, message):
    raise _Refused(message)

argparse.ArgumentParser.error = _refuse

def _resolves(sub, token, action, spelling):
    try:
        parser._parse_optional(token)
        found = sub._parse_optional(token)
    except _Refused:
        return False
    return found is not None and found[0] is action and found[1] == spelling

out = {"version": peer_version, "commands": {}}
for action in parser._actions:
    if isinstance(action, argparse._SubParsersAction):
        for name, sub in action.choices.items():
            out["commands"][name] = [
                [s, next(s[:n] for n in range(3, len(s) + 1) if _resolves(sub, s[:n], a, s))]
                for a in sub._actions
                for s in a.option_strings
                if s.startswith("--")
            ]
print(json.dumps(out))
"""

#: (Rally sub-command, Rally spelling, the shortest prefix Rally takes for it) that esbench refuses
#: as ambiguous, and the spellings of other options, not Rally's at that sub-command, that make it so:
#: OSB's (``--cluster-config``, ``--test-procedure``...) or esbench's own (``--run-as-user``,
#: ``--nodes``...). argparse's rule over esbench's options says ambiguous; a longer prefix works.
RALLY_AMBIGUOUS: dict[tuple[str, str, str], str] = {
    ("add", "--message", "--m"): (
        "--metrics-store, --metrics-store-user, --metrics-store-password, --metrics-store-api-key, "
        "--metrics-store-ca-certs, --metrics-store-insecure, --metrics-store-prefix, --metrics-store-layout"
    ),
    ("compare", "--no-quiet", "--n"): "--no-color",
    ("create-track", "--no-quiet", "--n"): "--number-of-docs",
    ("download", "--no-quiet", "--n"): "--nodes",
    ("download", "--offline", "--o"): "--opensearch-plugins",
    ("install", "--cluster-name", "--cl"): (
        "--cluster-config, --cluster-config-params, --cluster-config-path, --cluster-config-repository, "
        "--cluster-config-revision"
    ),
    ("install", "--node-name", "--nod"): "--nodes",
    ("install", "--offline", "--o"): "--opensearch-plugins",
    ("install", "--plugin-params", "--p"): "--preserve-install",
    ("install", "--runtime-jdk", "--ru"): "--run-as-user",
    ("race", "--cluster-name", "--clu"): (
        "--cluster-config, --cluster-config-params, --cluster-config-path, --cluster-config-repository, "
        "--cluster-config-revision"
    ),
    ("race", "--load-driver-hosts", "--l"): (
        "--load-driver-workers, --load-driver, --latency-percentiles, --load-test-qps"
    ),
    ("race", "--no-quiet", "--n"): "--nodes",
    ("race", "--race-id", "--ra"): (
        "--ray-address, --randomization-enabled, --randomization-repeat-frequency, --randomization-n, "
        "--randomization-alpha"
    ),
    ("race", "--runtime-jdk", "--ru"): "--run-as-user",
    ("race", "--show-in-report", "--sh"): "--show-in-results, --show-processing-time",
    ("race", "--test-mode", "--tes"): "--test-procedure, --test-run-id, --test-iterations",
    ("start", "--no-quiet", "--n"): "--nodes",
    ("start", "--offline", "--o"): "--opensearch-plugins",
    ("start", "--runtime-jdk", "--ru"): "--run-as-user",
}

#: The same for OSB: the colliding spellings are Rally's (esbench's own names: ``--track``...) or
#: esbench's own.
OSB_AMBIGUOUS: dict[tuple[str, str, str], str] = {
    ("create-workload", "--target-hosts", "--t"): "--track",
    ("download", "--offline", "--o"): "--opensearch-plugins",
    ("info", "--test-procedure", "--t"): (
        "--track, --track-path, --track-repository, --track-revision, --track-branch, --track-params, "
        "--test-mode, --target-hosts"
    ),
    ("install", "--node-name", "--no"): "--nodes, --no-quiet",
    ("install", "--plugin-params", "--p"): "--preserve-install",
    ("install", "--runtime-jdk", "--ru"): "--run-as-user",
    ("run", "--runtime-jdk", "--ru"): "--run-as-user",
    ("run", "--show-in-results", "--sh"): "--show-in-report, --show-processing-time",
    ("start", "--offline", "--o"): "--opensearch-plugins",
    ("start", "--runtime-jdk", "--r"): "--run-as-user, --race-id",
}

_AMBIGUOUS = re.compile(r"^\[ERROR\] ambiguous option: (--[\w-]+) could match ([\w, -]+)\. Write more")

Case = tuple[str, str, str, str, list[str], str, bool | None]


def _shortest(peer: Peer) -> dict[tuple[str, str], str]:
    data = peer_json(peer, _SHORTEST)
    assert str(data["version"]).startswith(peer.version_prefix)
    return {(command, s): prefix for command, rows in data["commands"].items() for s, prefix in rows}


def _cases(
    rows: list[Coverage], shortest: Mapping[tuple[str, str], str], plausible: Mapping[str, str]
) -> list[Case]:
    """(peer command, esbench path, spelling, prefix, args, esbench parameter name, switch value)
    for every long spelling of every taken option, in both forms of a value option."""
    cases: list[Case] = []
    for row in rows:
        if row.status is not Status.TAKEN or row.rally.positional:
            continue
        for path in row.paths:
            entry = next(e for e in row.entries if e.refused is None and path in e.commands)
            for flag in (f for f in row.rally.flags if f.startswith("--")):
                prefix = shortest[(row.rally.command, flag)]
                full = plausible_args(row.rally, flag, plausible)
                switch = not flag.startswith("--no-") if row.rally.kind == "BooleanOptionalAction" else None
                forms = [[prefix]]
                if full != [flag]:
                    value = full[0].split("=", 1)[1]
                    forms = [[f"{prefix}={value}"], [prefix, value]]
                cases += [(row.rally.command, path, flag, prefix, f, entry.name, switch) for f in forms]
    return cases


def _parsed(
    invoked_as: str, path: str, args: list[str], required: Mapping[str, list[str]], name: str
) -> tuple[int, str, Any]:
    """``esbench <invoked_as> <required[path]> <args>`` with the command's callback replaced:
    exit code, output, and (source, value) of the parameter ``name`` the callback received."""
    command = command_at(main, path)
    assert command is not None, path
    seen: list[tuple[ParameterSource | None, Any]] = []

    def capture(**kwargs: Any) -> None:
        ctx = click.get_current_context()
        seen.append((ctx.get_parameter_source(name), ctx.params.get(name)))

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(command, "callback", capture)
        result = CliRunner().invoke(main, [*invoked_as.split(), *required.get(path, []), *args])
    return result.exit_code, result.output, seen[0] if seen else None


def _check(
    peer: Peer, plausible: Mapping[str, str], required: Mapping[str, list[str]], invoked_as: Any
) -> tuple[list[str], dict[tuple[str, str, str], str], int]:
    """Every case of ``peer``: the problems (a prefix that names no option or another one), the
    ambiguous ones (-> the colliding spellings that are not the peer's at that sub-command) and the
    number of cases."""
    arguments = read_parser(peer)[1]
    own: dict[str, set[str]] = {}
    for argument in arguments:
        own.setdefault(argument.command, set()).update(argument.flags)
    cases = _cases(coverage(main, arguments, peer), _shortest(peer), plausible)
    problems: list[str] = []
    ambiguous: dict[tuple[str, str, str], str] = {}
    for command, path, flag, prefix, args, name, switch in cases:
        code, output, got = _parsed(invoked_as(command, path), path, args, required, name)
        refused = _AMBIGUOUS.match(output)
        if refused is not None and code == 64 and got is None and output.count("\n") == 1:
            candidates = refused.group(2).split(", ")
            assert refused.group(1) == prefix and flag in candidates, output
            ambiguous[(command, flag, prefix)] = ", ".join(c for c in candidates if c not in own[command])
            continue
        if code != 0 or got is None or got[0] is not ParameterSource.COMMANDLINE:
            problems.append(f"{peer.program} {command} {args} (for {flag}) -> {code}: {output!r}")
        elif switch is not None and got[1] is not switch:
            problems.append(f"{peer.program} {command} {args} (for {flag}) gave {name}={got[1]!r}")
    return problems, ambiguous, len(cases)


def test_the_shortest_prefix_rally_takes_names_the_same_option_in_esbench() -> None:
    problems, ambiguous, count = _check(
        RALLY, test_rally_options.PLAUSIBLE, test_rally_options.REQUIRED, lambda _command, path: path
    )
    assert count > 250
    assert not problems, "\n".join(problems)
    assert ambiguous == RALLY_AMBIGUOUS


def test_the_shortest_prefix_osb_takes_names_the_same_option_in_esbench() -> None:
    problems, ambiguous, count = _check(
        OSB, test_osb_options.PLAUSIBLE, test_osb_options.REQUIRED, test_osb_options._osb_name
    )
    assert count > 200
    assert not problems, "\n".join(problems)
    assert ambiguous == OSB_AMBIGUOUS
