"""Commands list only the options they use: a listed option that does nothing misleads."""

import re

from click.testing import CliRunner

from esbench.cli import main


def test_stop_lists_only_what_stop_uses() -> None:
    result = CliRunner().invoke(main, ["stop", "--help"])
    assert result.exit_code == 0
    listed = result.output.split("Options:", 1)[1]
    options = set(re.findall(r"^\s+(?:-\w, )?(--[a-z-]+)", listed, re.MULTILINE))
    # Rally's stop also takes --quiet (here: no progress line), --offline, whose promise (download
    # nothing) stop keeps by what it is, and --skip-telemetry (file nothing under the race id given to
    # start). --configuration-name parses and is refused with its reason.
    rally = {"--quiet", "--offline", "--skip-telemetry", "--configuration-name"}
    assert options == {"--installation-id", "--preserve-install", "--help", *rally}, result.output
    assert "file nothing under the race id given to start" in " ".join(listed.split())
    # An option stop ignored before is now refused instead of silently accepted.
    refused = CliRunner().invoke(main, ["stop", "--distribution-version=8.19.0"])
    assert refused.exit_code != 0 and "No such option" in refused.output
