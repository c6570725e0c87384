"""Live progress: a rich display on a terminal, plain lines otherwise, nothing when quiet."""

from __future__ import annotations

import io

from esbench.console import Console
from esbench.driver.coordinator.run import Progress
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


def _waiting(elapsed: float) -> Progress:
    return Progress(
        task="check-cluster-health",
        percent_done=0.0,
        elapsed_s=elapsed,
        throughput=0.0,
        unit="ops/s",
        waiting="cluster health is yellow, wanted green: 1 unassigned shard(s), 0 relocating, 1 node(s)",
    )


def test_a_waiting_task_says_why_once_per_interval_on_both_displays() -> None:
    for stream in (io.StringIO(), _Terminal()):
        with LiveProgress(Console(stream)) as show:
            for second in range(3):  # three reports within one WAIT_NOTE_INTERVAL
                show(_waiting(float(second)))
        out = stream.getvalue()
        assert out.count("[WAITING] check-cluster-health: cluster health is yellow, wanted green") == 1, out
        assert "1 unassigned shard(s)" in out and "1 node(s)" in out


def test_a_task_that_does_not_wait_gets_no_waiting_line() -> None:
    stream = io.StringIO()
    with LiveProgress(Console(stream)) as show:
        for report in _reports():
            show(report)
    assert "[WAITING]" not in stream.getvalue()


def test_quiet_shows_no_waiting_line() -> None:
    stream = io.StringIO()
    with LiveProgress(Console(stream, quiet=True)) as show:
        show(_waiting(1.0))
    assert stream.getvalue() == ""


def test_a_rate_of_zero_while_requests_are_in_flight_is_named_as_such() -> None:
    from esbench.live_progress import progress_line

    def report(throughput: float | None, samples: int) -> Progress:
        return Progress(
            task="index-append",
            percent_done=14.3,
            elapsed_s=1.0,
            throughput=throughput,
            unit="docs/s",
            samples=samples,
        )

    # Bulks of 5,000 documents take seconds: nothing has answered yet, the cluster is busy.
    assert progress_line(report(0.0, 0)).endswith("waiting for the first response")
    assert "0 docs/s" not in progress_line(report(0.0, 0))
    assert progress_line(report(0.0, 8)).endswith(
        "no response since the last report (requests in flight or paused)"
    )
    assert progress_line(report(2078.4, 8)).endswith(" 2,078 docs/s")
