"""Unique prefixes of long options (esbench/cli/_abbreviations.py, argparse's ``allow_abbrev`` as
Rally 2.13 and OSB 2.4.0 parse): the command lines of the peers' docs give the settings of the full
spellings, an ambiguous prefix is one paragraph naming the candidates with exit 64, and only tokens
in option position are written out. The peers' own parsers are the oracle in
test_abbreviations_peers.py."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from test_option_table import race_of

from esbench.cli import main
from esbench.cli._abbreviations import AmbiguousOption, expand_abbreviations

TRACK = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "planning-search"


# Rally's docs/cluster_management.rst: esrally race --pipeline=benchmark-only
# --target-host=127.0.0.1:39200 --track=geonames (``--track`` is also the prefix of --track-path...:
# the whole name wins).
def test_rallys_doc_line_races_as_its_full_spelling() -> None:
    doc = race_of("--pipeline=benchmark-only", "--target-host=127.0.0.1:39200", "--track=geonames")
    full = race_of("--pipeline=benchmark-only", "--target-hosts=127.0.0.1:39200", "--track=geonames")
    assert doc == full
    assert doc.target_hosts == ("127.0.0.1:39200",) and doc.track_name == "geonames"


# OSB's docs: opensearch-benchmark run ... --target-host=http://localhost:9200
def test_osbs_doc_line_runs_as_its_full_spelling() -> None:
    args = ("--pipeline=benchmark-only", "--workload=geonames")
    doc = race_of(*args, "--target-host=http://localhost:9200", command="run")
    full = race_of(*args, "--target-hosts=http://localhost:9200", command="run")
    assert doc == full
    assert doc.target_hosts == ("http://localhost:9200",)


@pytest.mark.parametrize(
    ("abbreviated", "full"),
    [
        (["--pipe=benchmark-only"], ["--pipeline=benchmark-only"]),
        (["--pipe", "benchmark-only"], ["--pipeline=benchmark-only"]),
        (["--report-form=csv"], ["--report-format=csv"]),
        (["--report-form", "csv"], ["--report-format=csv"]),
        (["--track-param=a:1"], ["--track-params=a:1"]),
        (["--track-param", "a:1"], ["--track-params=a:1"]),
        # Two spellings of one option (Rally's --user-tags/--user-tag; Rally's --show-in-report and
        # OSB's --show-in-results) are one candidate, not an ambiguity.
        (["--user-t=env:ci"], ["--user-tags=env:ci"]),
        (["--show-in-re=all"], ["--show-in-report=all"]),
    ],
)
def test_an_abbreviated_option_gives_the_settings_of_its_full_spelling(
    abbreviated: list[str], full: list[str]
) -> None:
    base = (f"--track-path={TRACK}", "--target-hosts=127.0.0.1:9")
    got = race_of(*base, *abbreviated)
    assert got == race_of(*base, *full)
    # The option was given: its setting is not the default.
    assert got != race_of(*base)


def test_a_value_that_looks_like_an_option_is_left_as_it_is() -> None:
    got = race_of(f"--track-path={TRACK}", "--target-hosts=127.0.0.1:9", "--challenge", "--pipe")
    assert got.challenge == "--pipe"
    assert got.pipeline == race_of(f"--track-path={TRACK}", "--target-hosts=127.0.0.1:9").pipeline


@pytest.mark.parametrize(
    ("args", "prefix", "named", "where"),
    [
        (
            ["race", "--re=csv"],
            "--re",
            ["--report-format", "--results-format", "--report-file", "--revision"],
            "race",
        ),
        (
            ["list", "races", "--metrics-store-p", "x"],
            "--metrics-store-p",
            ["--metrics-store-password", "--metrics-store-prefix"],
            "list races",
        ),
        (["--ver", "race"], "--ver", ["--version", "--verbose"], ""),
    ],
)
def test_an_ambiguous_prefix_is_one_paragraph_naming_the_candidates_exit_64(
    args: list[str], prefix: str, named: list[str], where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[bool] = []
    for command in (main.commands["race"], main.commands["list"].commands["races"]):  # type: ignore[attr-defined]
        monkeypatch.setattr(command, "callback", lambda *_, **__: ran.append(True))
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 64, result.output
    assert not ran
    (line,) = result.output.splitlines()
    assert line.startswith(f"[ERROR] ambiguous option: {prefix} could match ")
    assert line.endswith(
        f". Write more of the option's name. (See '{' '.join(['main', where]).strip()} --help'.)"
    )
    listed = line.split(" could match ")[1].split(". Write")[0].split(", ")
    assert set(named) <= set(listed) and all(n.startswith(prefix) for n in listed)
    # The value is not repeated (it may be a secret: --client-options, --metrics-store-password).
    assert "csv" not in line and "Traceback" not in result.output


def test_an_ambiguous_prefix_exits_as_an_unknown_option_does() -> None:
    unknown = CliRunner().invoke(main, ["race", "--no-such-option=1"])
    ambiguous = CliRunner().invoke(main, ["race", "--re=csv"])
    assert unknown.exit_code == ambiguous.exit_code == 64
    assert unknown.output.startswith("[ERROR] No such option '--no-such-option'.")


def test_a_prefix_of_help_shows_the_help() -> None:
    result = CliRunner().invoke(main, ["list", "races", "--he"])
    assert result.exit_code == 0 and result.output.startswith("Usage: main list races [OPTIONS]")


# The rules on a command of their own: every kind of option click has.
@click.group()
@click.option("--verbose", is_flag=True)
def _root(verbose: bool) -> None:
    """A group with one option."""


@_root.command("leaf")
@click.option("--target", "-t")
@click.option("--tag")
@click.option("--label", "--labels", "labels", multiple=True)
@click.option("--nodes/--no-nodes", default=True)
@click.option("--redline", is_flag=False, flag_value="", default=None)
@click.option("--pair", nargs=2)
@click.option("--quiet", "-q", is_flag=True)
@click.argument("rest", nargs=-1)
def _leaf(**_: object) -> None:
    """A command with every kind of option."""


def _expand(*args: str, resilient: bool = False) -> list[str]:
    return expand_abbreviations(
        _root, click.Context(_root, info_name="root", resilient_parsing=resilient), args
    )


@pytest.mark.parametrize(
    ("args", "expanded"),
    [
        # The group's options, then the sub-command's.
        (
            ["--verb", "leaf", "--tar=x", "--pa", "a", "b"],
            ["--verbose", "leaf", "--target=x", "--pair", "a", "b"],
        ),
        # Two spellings of one option: the first that matches.
        (["leaf", "--lab=a", "--labels=b"], ["leaf", "--label=a", "--labels=b"]),
        # A switch: each polarity is its own candidate.
        (["leaf", "--nod", "--no-n"], ["leaf", "--nodes", "--no-nodes"]),
        # Values are not options, whatever they look like; nargs=2 takes two.
        (
            ["leaf", "--tar", "--nod", "--pa", "--x", "--y", "--nod"],
            ["leaf", "--target", "--nod", "--pair", "--x", "--y", "--nodes"],
        ),
        (["leaf", "--target", "--nod", "--nod"], ["leaf", "--target", "--nod", "--nodes"]),
        # An optional value is not taken from an option-like token (click's rule).
        (["leaf", "--red", "--tar=x"], ["leaf", "--redline", "--target=x"]),
        (["leaf", "--red", "v", "--tar=x"], ["leaf", "--redline", "v", "--target=x"]),
        # Short options are left alone, and their values skipped; -qt is -q -t VALUE.
        (
            ["leaf", "-t", "--nod", "-qt", "--nod", "-tx", "--nod"],
            ["leaf", "-t", "--nod", "-qt", "--nod", "-tx", "--nodes"],
        ),
        # Arguments between options; nothing after --.
        (["leaf", "pos", "--tar=x", "--", "--tar=y"], ["leaf", "pos", "--target=x", "--", "--tar=y"]),
        # No candidate, or no such command: left for click to refuse.
        (["leaf", "--zzz", "--tar=x"], ["leaf", "--zzz", "--target=x"]),
        (["nope", "--tar=x"], ["nope", "--tar=x"]),
        # --target is exact, though a prefix of nothing else; -- alone and "-" are not options.
        (["leaf", "-", "--target=x"], ["leaf", "-", "--target=x"]),
    ],
)
def test_only_long_options_in_option_position_are_written_out(args: list[str], expanded: list[str]) -> None:
    assert _expand(*args) == expanded


def test_an_ambiguous_prefix_names_every_candidate_spelling_in_declaration_order() -> None:
    with pytest.raises(AmbiguousOption) as e:
        _expand("leaf", "--no")
    assert e.value.format_message() == (
        "ambiguous option: --no could match --nodes, --no-nodes. Write more of the option's name."
    )
    assert e.value.ctx is not None and e.value.ctx.command_path == "root leaf"
    with pytest.raises(AmbiguousOption, match=r"^ambiguous option: --ta could match --target, --tag\. Write"):
        _expand("leaf", "--ta=x")


def test_shell_completion_leaves_an_ambiguous_prefix_alone() -> None:
    assert _expand("leaf", "--no", "--tar=x", resilient=True) == ["leaf", "--no", "--target=x"]
