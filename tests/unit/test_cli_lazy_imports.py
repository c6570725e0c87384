"""The command line imports only click and the option definitions: building ``esbench --help`` and
the help of every sub-command must not import the load driver or a heavy library.

Each check runs in a fresh interpreter (the test session itself has imported everything).
"""

from __future__ import annotations

import json
import subprocess
import sys

#: Modules that only running a command may import.
HEAVY = (
    "esbench.driver.coordinator.run",
    "esbench.driver.worker.executor",
    "esbench.racecontrol",
    "elasticsearch",
    "elastic_transport",
    "aiohttp",
    "plotly",
    "ray",
    "rich",
    "psutil",
    "jinja2",
    "jsonschema",
    "hdrh",
    "otava",
    "numpy",
    "scipy",
    "tabulate",
    "cryptography",
)

_SCRIPT = """
import json, sys, types
import click
for name in sys.argv[2:]:
    sys.modules[name] = types.ModuleType(name)
import esbench.cli

def build_help(command, name, parent=None):
    ctx = click.Context(command, info_name=name, parent=parent)
    command.get_help(ctx)
    if isinstance(command, click.Group):
        for sub in command.list_commands(ctx):
            build_help(command.get_command(ctx, sub), sub, ctx)

build_help(esbench.cli.main, "esbench")
print(json.dumps(sorted(m for m in json.loads(sys.argv[1]) if m in sys.modules)))
"""


def _heavy_after_help(*left_out: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps(HEAVY), *left_out],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(proc.stdout)


def test_help_of_every_command_imports_no_heavy_module() -> None:
    assert _heavy_after_help() == []


#: What a race's coordinator process must not hold while its workers run: a report's table library
#: (printed after the workers exit) and the certificate library of secured provisioning. Together
#: ~16 MiB of the race's process tree (issue 25).
NOT_DURING_A_RACE = ("tabulate", "wcwidth", "cryptography")


def test_race_control_imports_neither_the_report_tables_nor_the_certificate_library() -> None:
    code = (
        "import json, sys; import esbench.cli, esbench.racecontrol, esbench.provision.cluster; "
        f"print(json.dumps(sorted(m for m in {NOT_DURING_A_RACE!r} if m in sys.modules)))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(proc.stdout) == []
