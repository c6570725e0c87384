"""Fixtures for the track tests: write small tracks into a temporary directory."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def make_track(tmp_path: Path) -> Callable[..., Path]:
    """``make_track({"track.json": text_or_obj, "parts/a.json": ...}, name="t")`` → the track directory.

    Text values are dedented; dicts/lists are written as JSON.
    """

    def make(files: dict[str, Any], *, name: str = "t") -> Path:
        root = tmp_path / name
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps(content) if isinstance(content, dict | list) else textwrap.dedent(content)
            path.write_text(text, encoding="utf-8")
        return root

    return make
