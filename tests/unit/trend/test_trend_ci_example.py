"""examples/ci/esbench-nightly-trend.yml: the workflow parses, its esbench command lines are valid
for the CLI, the gate follows the races the job tags, and the extra it installs exists."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import click
import yaml

from esbench.cli import main

ROOT = Path(__file__).resolve().parents[3]
WORKFLOW = ROOT / "examples" / "ci" / "esbench-nightly-trend.yml"


def _commands() -> list[list[str]]:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    commands = []
    for step in workflow["jobs"]["nightly"]["steps"]:
        for line in step.get("run", "").splitlines():
            m = re.search(r"(?:^|\s)esbench (.*)$", line.strip())
            if m:
                text = re.sub(r"\$\{\{[^}]*\}\}", "X", m.group(1))
                commands.append(shlex.split(re.split(r"\s(?:>>?|\|\|)\s", text)[0]))
    return commands


def test_nightly_schedule_and_history_kept() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    assert "schedule" in workflow[True]  # YAML 1.1 reads the key `on` as True
    uses = [s.get("uses", "") for s in workflow["jobs"]["nightly"]["steps"]]
    assert "actions/cache/restore@v4" in uses and "actions/cache/save@v4" in uses


def test_every_command_line_parses_and_the_gate_follows_the_tagged_races() -> None:
    commands = _commands()
    for args in commands:
        name, rest = args[0], [a.replace("$ES_HOSTS", "127.0.0.1:9200") for a in args[1:]]
        command = main.commands[name]
        assert not isinstance(command, click.Group)
        command.make_context(name, rest)
    races = [a for a in commands if a[0] == "race"]
    gates = [a for a in commands if a[0] == "trend" and "--fail-on-change" in a]
    assert races and len(gates) == 2
    tag = next(a for a in races[0] if a.startswith("--user-tag=")).split("=", 1)[1].split(",")[0]
    assert all(f"--user-tag={tag}" in g for g in gates)
    assert {next(a for a in g if a.startswith("--metric=")) for g in gates} == {
        "--metric=throughput-median",
        "--metric=latency-p90",
    }


def test_the_installed_extra_brings_otava() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert 'pip install --quiet ".[trend]"' in WORKFLOW.read_text()
    assert any(d.startswith("apache-otava") for d in project["optional-dependencies"]["trend"])
    # CI (.ci/run installs the test extra) runs the trend tests with the real library.
    assert any(d.startswith("apache-otava") for d in project["optional-dependencies"]["test"])
