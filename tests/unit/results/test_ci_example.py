"""examples/ci: the workflow parses and every esbench command line in it is valid for the CLI."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
import yaml

from esbench.cli import main
from esbench.reporting.gate import load_thresholds

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "ci"


def _esbench_commands() -> list[list[str]]:
    workflow = yaml.safe_load((EXAMPLES / "esbench-regression.yml").read_text())
    commands = []
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            for line in step.get("run", "").splitlines():
                m = re.search(r"(?:^|\s|/)esbench (.*)$", line.strip())
                if not m:
                    continue
                text = re.sub(r"\$\{\{[^}]*\}\}", "X", m.group(1))
                text = re.split(r"\s(?:>>?|\|\|)\s", text)[0]
                commands.append(shlex.split(text))
    return commands


def test_workflow_structure() -> None:
    workflow = yaml.safe_load((EXAMPLES / "esbench-regression.yml").read_text())
    assert "pull_request" in workflow[True]  # YAML 1.1 reads the key `on` as True
    steps = workflow["jobs"]["benchmark"]["steps"]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "--fail-on-regression=10" in runs and "--test-mode" in runs and "--user-tag=" in runs
    assert "esbench start" in runs


def test_every_esbench_command_line_parses() -> None:
    commands = _esbench_commands()
    names = {c[0] for c in commands}
    assert {"start", "race", "compare", "list", "stop"} <= names
    for args in commands:
        name, rest = args[0], args[1:]
        assert name in main.commands, f"unknown esbench command in the workflow: {args}"
        cmd = main.commands[name]
        if isinstance(cmd, click.Group):
            name, rest = rest[0], rest[1:]
            cmd = cmd.commands[name]
        # The workflow fills in ES_HOSTS from 'esbench start'; option values are checked when parsed.
        rest = [arg.replace("$ES_HOSTS", "127.0.0.1:9200") for arg in rest]
        try:
            cmd.make_context(name, list(rest))
        except click.UsageError as e:  # pragma: no cover - the assertion message is the point
            pytest.fail(f"invalid command in the workflow: esbench {' '.join(args)}: {e}")


def test_thresholds_example_is_valid() -> None:
    rules = load_thresholds(EXAMPLES / "thresholds.yml")
    assert {r.metric for r in rules} >= {"throughput.median", "latency.tail", "error_rate"}
