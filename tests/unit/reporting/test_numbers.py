"""The one number format of the HTML report (esbench/reporting/numbers.py)."""

from __future__ import annotations

import math

import pytest

from esbench.reporting.numbers import DisplayUnit, display_unit, human, log_ticks, shown, signed


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.005633333333333333, "0.00563"),  # the raw floats
        (8.333333333333333e-05, "0.0000833"),
        (0.0, "0"),
        (1.0, "1"),
        (2.5, "2.5"),
        (12.345, "12.3"),
        (99.94, "99.9"),
        (99.96, "100"),  # rounds up into the whole numbers
        (1234.5, "1,235"),
        (13578.4, "13,578"),
        (-0.01234, "-0.0123"),
        (2_147_483_648.0, "2,147,483,648"),  # never "2.1B"
        (None, "–"),
    ],
)
def test_human(value: float | None, text: str) -> None:
    assert human(value) == text


def test_units_and_signs() -> None:
    assert human(13578.4, "docs/s") == "13,578 docs/s"
    assert human(2.5, "%") == "2.5%"
    assert signed(1.234, "%") == "+1.23%" and signed(-1.234) == "-1.23" and signed(0.0) == "0"
    assert math.isnan(shown(math.nan)) and shown(math.inf) == math.inf
    assert shown(0.005633333333333333) == 0.00563 and shown(1234.5) == 1235.0


@pytest.mark.parametrize(
    ("unit", "top", "shown_unit", "factor"),
    [
        ("bytes", 512.0, "B", 1.0),
        ("bytes", 2048.0, "KiB", 1 / 1024),
        ("bytes", 2.0e9, "GiB", 1 / 1024**3),  # the heap: "1.86 GiB", not plotly's "2B"
        ("bytes/s", 5.0e7, "MiB/s", 1 / 1024**2),
        ("KiB/s", 5000.0, "MiB/s", 1024 / 1024**2),  # node-stats' kilobytes join the bytes panels
        ("ms", 5.0e6, "ms", 1.0),
        ("%", 50.0, "%", 1.0),
    ],
)
def test_display_unit_steps_bytes_by_1024(unit: str, top: float, shown_unit: str, factor: float) -> None:
    d = display_unit(unit, [0.0, None, top])
    assert d.unit == shown_unit and d.factor == pytest.approx(factor)


def test_display_unit_scales_and_rounds() -> None:
    assert DisplayUnit("GiB", 1 / 1024**3).scale([2.0e9, None]) == (1.86, None)
    assert DisplayUnit("/s").axis_text == "per s" and DisplayUnit("").axis_text == "count"


def test_log_ticks_never_label_a_bare_minor_digit() -> None:
    # less than 2 decades: 1-2-5 steps, each labelled with its value
    values, texts = log_ticks(0.3, 20)
    assert values == [0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
    assert texts == ["0.2", "0.5", "1", "2", "5", "10", "20"]
    # 2 decades or more: powers of ten only
    values, texts = log_ticks(0.5, 5000)
    assert values == [1.0, 10.0, 100.0, 1000.0] and texts == ["1", "10", "100", "1,000"]
    assert log_ticks(0, 10) == ([], [])
