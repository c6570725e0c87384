"""Fixtures of the command-line tests."""

from __future__ import annotations

from typing import Any

import pytest

from esbench.exceptions import UserError
from esbench.settings import RaceSettings


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> list[RaceSettings]:
    """The settings of each race a command starts (the race itself stops at once, exit 64)."""
    seen: list[RaceSettings] = []

    def fake_race(settings: RaceSettings, console: Any = None) -> None:
        seen.append(settings)
        raise UserError("captured")

    monkeypatch.setattr("esbench.racecontrol.run_race", fake_race)
    return seen
