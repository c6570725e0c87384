"""Live progress: a rich display on a terminal, plain lines otherwise, nothing when quiet."""

from __future__ import annotations

import io

from esbench.console import Console
from esbench.driver.driver import Progress
from esbench.live_progress import LiveProgress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _reports() -> list[Progress]:
    return [
        Progress(
            task="index-append",
            percent_done=42.0,
            elapsed_s=65.2,
            throughput=12345.0,
            unit="docs/s",
            samples=10,
            errors=3,
        ),
        Progress(task="term-query", percent_done=None, elapsed_s=1.0, throughput=None, unit="ops/s"),
    ]


def test_terminal_gets_a_rich_display_with_every_field() -> None:
    stream = _Terminal()
    with LiveProgress(Console(stream)) as show:
        for report in _reports():
            show(report)
    out = stream.getvalue()
    assert "\x1b[" in out  # drawn with terminal control sequences, in place
    for text in ("index-append", "42%", "1:05", "12,345 docs/s", "3 errors", "term-query", "no errors"):
        assert text in out, text


def test_plain_lines_when_not_a_terminal() -> None:
    stream = io.StringIO()
    with LiveProgress(Console(stream)) as show:
        for report in _reports():
            show(report)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and "\x1b[" not in stream.getvalue()
    assert lines[0].startswith("Running index-append") and "[ 42.0%]" in lines[0]
    assert "12,345 docs/s" in lines[0] and "3 errors" in lines[0]
    assert lines[1].startswith("Running term-query") and "errors" not in lines[1]


def test_quiet_shows_nothing() -> None:
    stream = _Terminal()
    with LiveProgress(Console(stream, quiet=True)) as show:
        for report in _reports():
            show(report)
    assert stream.getvalue() == ""
