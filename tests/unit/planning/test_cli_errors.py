"""Bad input to the planning commands: one paragraph, exit 64, no traceback, nothing run."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from esbench.cli import main
from esbench.exceptions import UserError

TRACK = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "planning-search"
# Nothing listens there: every error below must come before any connection.
HOSTS = "--target-hosts=127.0.0.1:9"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        # An SLO that does not parse: the option, the clause, and the grammar with an example.
        (
            ["find-max", f"--track-path={TRACK}", HOSTS, "--task=infix-search", "--slo=p99 latency > 5ms"],
            ["'--slo': cannot parse 'p99 latency > 5ms'", "Write clauses like 'p99 latency < 100ms'", "e.g."],
        ),
        (
            ["find-max", f"--track-path={TRACK}", HOSTS, "--task=infix-search", "--slo=error rate < 1%"],
            [
                "--slo 'error rate < 1%' limits only the error rate",
                "add a latency or service-time percentile",
            ],
        ),
        # An empty sweep list, for each list option: the option and an example of a list.
        (
            ["sweep", f"--track-path={TRACK}", HOSTS, "--task=infix-search", "--clients= , "],
            ["--clients is empty", "e.g. --clients=1,2,4,8"],
        ),
        (
            ["sweep", f"--track-path={TRACK}", HOSTS, "--task=infix-search", "--target-throughput="],
            ["--target-throughput is empty", "e.g. --target-throughput="],
        ),
        (["sweep", f"--track-path={TRACK}", "--task=infix-search", "--nodes=,"], ["--nodes is empty"]),
        # A task not in the challenge, for each procedure: the task, the challenge and track, the
        # tasks there are, and the option to fix.
        (
            ["sweep", f"--track-path={TRACK}", HOSTS, "--task=nope", "--clients=1,2"],
            ["Task 'nope' is not in challenge 'search' of track", "infix-search", "with --task"],
        ),
        (
            ["find-max", f"--track-path={TRACK}", HOSTS, "--task=nope", "--slo=p99 latency < 5ms"],
            ["Task 'nope' is not in challenge 'search'", "infix-search", "with --task"],
        ),
        (
            ["optimize", "clients", f"--track-path={TRACK}", HOSTS, "--task=nope", "--max=2"],
            ["Task 'nope' is not in challenge 'search'", "infix-search", "with --task"],
        ),
        (["sweep", f"--track-path={TRACK}", HOSTS, "--task=infix-search"], ["exactly one dimension"]),
        (
            [
                "sweep",
                f"--track-path={TRACK}",
                HOSTS,
                "--task=infix-search",
                "--clients=1,2",
                "--bulk-size=1,2",
            ],
            ["exactly one dimension"],
        ),
        (["sweep", f"--track-path={TRACK}", HOSTS, "--clients=1,2"], ["--task=NAME"]),
        (["size", "--raw-gb-per-day=1", "--hot=forever"], ["--hot='forever'"]),
        (["size", "--raw-gb-per-day=1"], ["at least one tier"]),
    ],
)
def test_bad_input_gets_one_paragraph_and_exit_64(args: list[str], fragments: list[str]) -> None:
    result = run(*args)
    assert result.exit_code == 64, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("[ERROR]")]
    assert len(errors) == 1 and "Traceback" not in result.output, result.output
    for fragment in fragments:
        assert fragment in errors[0], result.output


def test_size_prints_the_seed_004_plan() -> None:
    result = run("size", "--raw-gb-per-day=100", "--hot=30d", "--warm=12m", "--memory-per-node=64")
    assert result.exit_code == 0, result.output
    assert "Data nodes in all: 15" in result.output
    hot = next(line for line in result.output.splitlines() if line.startswith("hot"))
    assert hot.split()[-2:] == ["5", "1"]


def test_the_provisioning_options_reach_each_points_race(monkeypatch: pytest.MonkeyPatch) -> None:
    # --distribution-flavor used to be accepted and dropped; every provisioning option must arrive.
    seen = []

    def fake_race(settings, console=None):
        seen.append(settings)
        raise UserError("stop after the first point")

    monkeypatch.setattr("esbench.racecontrol.run_race", fake_race)
    result = run(
        "sweep",
        f"--track-path={TRACK}",
        "--task=infix-search",
        "--nodes=2,3",
        "--distribution-flavor=opensearch",
        "--distribution-version=2.18.0",
        "--car=defaults",
    )
    assert result.exit_code == 64 and "stop after the first point" in result.output, result.output
    prov = seen[0].provision
    assert (prov.distribution_flavor, prov.distribution_version, prov.nodes) == ("opensearch", "2.18.0", 2)
