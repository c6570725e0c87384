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
    ("args", "fragment"),
    [
        (
            ["find-max", f"--track-path={TRACK}", HOSTS, "--task=infix-search", "--slo=p99 latency > 5ms"],
            "cannot parse",
        ),
        (
            ["sweep", f"--track-path={TRACK}", HOSTS, "--task=infix-search", "--clients= , "],
            "--clients is empty",
        ),
        (
            ["sweep", f"--track-path={TRACK}", HOSTS, "--task=nope", "--clients=1,2"],
            "Task 'nope' is not in challenge",
        ),
        (["sweep", f"--track-path={TRACK}", HOSTS, "--task=infix-search"], "exactly one dimension"),
        (
            [
                "sweep",
                f"--track-path={TRACK}",
                HOSTS,
                "--task=infix-search",
                "--clients=1,2",
                "--bulk-size=1,2",
            ],
            "exactly one dimension",
        ),
        (["sweep", f"--track-path={TRACK}", HOSTS, "--clients=1,2"], "--task=NAME"),
        (["size", "--raw-gb-per-day=1", "--hot=forever"], "--hot='forever'"),
        (["size", "--raw-gb-per-day=1"], "at least one tier"),
    ],
)
def test_bad_input_gets_one_paragraph_and_exit_64(args: list[str], fragment: str) -> None:
    result = run(*args)
    assert result.exit_code == 64, result.output
    assert fragment in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("[ERROR]")]
    assert len(errors) == 1 and "Traceback" not in result.output


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
