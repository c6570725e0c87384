"""Commands list only the options they use: a listed option that does nothing misleads."""

import re

from click.testing import CliRunner

from esbench.cli import main


def test_stop_lists_only_what_stop_uses() -> None:
    result = CliRunner().invoke(main, ["stop", "--help"])
    assert result.exit_code == 0
    listed = result.output.split("Options:", 1)[1]
    options = set(re.findall(r"^\s+(?:-\w, )?(--[a-z-]+)", listed, re.MULTILINE))
    assert options == {"--installation-id", "--preserve-install", "--help"}, result.output
    # An option stop ignored before is now refused instead of silently accepted.
    refused = CliRunner().invoke(main, ["stop", "--distribution-version=8.19.0"])
    assert refused.exit_code != 0 and "No such option" in refused.output
