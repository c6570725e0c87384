"""A failed race's reason: in the race log file, not on the console; the printed text report says
only "failed" (the CLI's [ERROR] line gives the reason), the data formats keep it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from esbench import racelog
from esbench.racecontrol.store import printed
from esbench.records import RaceResult
from esbench.reporting.formats import ReportFormat
from esbench.reporting.summary import render_summary

REASON = "Task 'boom' failed: the track plugin raised AssertionError: no data"


def _race(status: str = "failed", error: str | None = REASON) -> RaceResult:
    return RaceResult(
        race_id="r-1", timestamp="2026-11-28T18:00:00Z", track="t", challenge="c", status=status, error=error
    )


def test_the_outcome_goes_to_the_race_log_file_only(tmp_path: Path, capsys) -> None:
    console = logging.StreamHandler()  # what `esbench`'s basicConfig puts on stderr
    root = logging.getLogger()
    root.addHandler(console)
    try:
        log = racelog.start_race_log(tmp_path, ())
        log.finish(_race())
    finally:
        root.removeHandler(console)
    assert REASON not in capsys.readouterr().err
    assert REASON in (tmp_path / racelog.LOG_FILE_NAME).read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", [ReportFormat.TEXT, ReportFormat.MARKDOWN])
def test_the_printed_text_report_of_a_failed_race_leaves_the_reason_out(fmt: ReportFormat) -> None:
    text = render_summary(printed(_race(), fmt), fmt=fmt)
    assert REASON not in text
    assert "failed" in text


@pytest.mark.parametrize("fmt", [ReportFormat.JSON, ReportFormat.CSV])
def test_data_formats_keep_the_reason(fmt: ReportFormat) -> None:
    assert printed(_race(), fmt).error == REASON


def test_an_interrupted_race_keeps_its_reason() -> None:
    race = _race(status="interrupted", error="interrupted by the user (Ctrl-C)")
    assert printed(race) is race
