"""``--on-error`` takes Rally 2.13's three spellings (esrally ``rally.py``: continue, abort,
continue-on-network), so a Rally command line parses unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from esbench.cli import main
from esbench.driver.settings import OnError


@pytest.mark.parametrize("command", [("race",), ("query",), ("load",)], ids=["race", "query", "load"])
@pytest.mark.parametrize("spelling", ["continue", "abort", "continue-on-network"])
def test_every_rally_spelling_reaches_the_command(
    command: tuple[str, ...], spelling: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    target: Any = main
    for name in command:
        target = target.commands[name]
    # The parse must reach the command body; query also needs its URL argument.
    extra = ["http://127.0.0.1:9/idx/_search"] if command == ("query",) else []
    seen: list[Any] = []
    monkeypatch.setattr(target, "callback", lambda **kw: seen.append(kw.get("on_error")))
    result = CliRunner().invoke(main, [*command, f"--on-error={spelling}", *extra])
    assert result.exit_code == 0, result.output
    assert seen and OnError(seen[0]) is OnError(spelling)


def test_an_unknown_spelling_lists_the_three() -> None:
    result = CliRunner().invoke(main, ["race", "--on-error=ignore"])
    assert result.exit_code != 0
    for spelling in ("continue", "abort", "continue-on-network"):
        assert spelling in result.output
