"""Numbers and units as people read them, for every table, axis and hover of the HTML report.

One rule (:func:`shown`) rounds every number the page shows: values of 100 or more to whole
numbers, smaller ones to 3 significant digits, never in scientific notation. :func:`human` writes
such a number as text (thousands separated by commas). :func:`display_unit` picks the unit a chart
axis is drawn in: bytes in binary steps (B, KiB, MiB, GiB, TiB; IEC 80000-13), KiB converted to bytes
first so both land in one panel, every other unit as stored. Chart data is scaled and rounded with
the same rule before it is written into the page, so a hover shows what a table shows and the page
carries no digits nobody sees.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

#: Significant digits of numbers below :data:`WHOLE_FROM`.
SIGNIFICANT = 3
#: Numbers of this size or more are shown as whole numbers.
WHOLE_FROM = 100.0

_BINARY = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
# Units stored in KiB are shown with the bytes ones (node-stats' fs.io_stats.*_kilobytes).
_TO_BYTES = {"KiB": ("bytes", 1024.0), "KiB/s": ("bytes/s", 1024.0)}
# How an axis names a unit that has a symbol people write differently.
_UNIT_TEXT = {"/s": "per s", "": "count"}


def shown(value: float) -> float:
    """``value`` rounded as the page shows it: whole from :data:`WHOLE_FROM` up, else 3 significant
    digits (``0.005633333`` -> ``0.00563``, ``1234.5`` -> ``1235.0``: whole numbers round halves away
    from zero). NaN and inf pass unchanged."""
    if value == 0 or not math.isfinite(value):
        return value
    if abs(value) >= WHOLE_FROM:
        # Half away from zero, as people round (1234.5 -> 1235; Python's round() gives 1234).
        return math.copysign(math.floor(abs(value) + 0.5), value)
    # The float's exact binary value rounded to 3 significant digits (fast: a chart has 100k points).
    return float(f"{value:.{SIGNIFICANT}g}")


def human(value: float | None, unit: str = "") -> str:
    """``value`` as text (:func:`shown`'s rounding, commas between thousands, no exponent), followed
    by ``unit`` when given (``"%"`` is written without a space). None gives ``"–"``.

    Examples: ``human(0.005633333)`` -> ``"0.00563"``, ``human(8.3333e-05)`` -> ``"0.0000833"``,
    ``human(12345.6, "docs/s")`` -> ``"12,346 docs/s"``, ``human(2.5, "%")`` -> ``"2.5%"``.
    """
    if value is None:
        return "–"
    if not math.isfinite(value):
        text = str(value)
    else:
        v = shown(value)
        if abs(v) >= WHOLE_FROM or v == 0:
            text = f"{v:,.0f}"
        else:
            digits = max(0, SIGNIFICANT - 1 - math.floor(math.log10(abs(v))))
            text = f"{v:.{digits}f}".rstrip("0").rstrip(".")
    if not unit:
        return text
    return f"{text}{unit}" if unit == "%" else f"{text} {unit}"


def signed(value: float | None, unit: str = "") -> str:
    """:func:`human` with an explicit ``+`` on positive values (a difference)."""
    text = human(value, unit)
    return f"+{text}" if value is not None and shown(value) > 0 else text


@dataclass(frozen=True)
class DisplayUnit:
    """How values stored in one unit are drawn: ``drawn = stored * factor`` in ``unit``.

    Attributes:
        unit: the unit people read (``"MiB"``, ``"MiB/s"``, ``"ms"``, ``"%"``).
        factor: multiplier from the stored unit.
    """

    unit: str
    factor: float = 1.0

    @property
    def axis_text(self) -> str:
        """The unit as an axis title writes it in parentheses (``"count"`` for a bare number)."""
        return _UNIT_TEXT.get(self.unit, self.unit)

    def scale(self, values: Iterable[float | None]) -> tuple[float | None, ...]:
        """``values`` in this unit, rounded by :func:`shown` (None stays None: a gap)."""
        return tuple(None if v is None else shown(v * self.factor) for v in values)


def base_unit(unit: str) -> tuple[str, float]:
    """The unit ``unit`` is compared in and the factor to it (KiB -> bytes x 1024, else unchanged)."""
    return _TO_BYTES.get(unit, (unit, 1.0))


def display_unit(unit: str, values: Iterable[float | None]) -> DisplayUnit:
    """The :class:`DisplayUnit` for ``values`` stored in ``unit``: ``bytes``/``bytes/s`` (and KiB)
    step by 1024 until the largest magnitude is below 1024; other units are kept."""
    base, to_base = base_unit(unit)
    if base not in ("bytes", "bytes/s"):
        return DisplayUnit(unit=unit, factor=1.0)
    top = max((abs(v) * to_base for v in values if v is not None and math.isfinite(v)), default=0.0)
    step = 0
    while top >= 1024 and step < len(_BINARY) - 1:
        top /= 1024
        step += 1
    suffix = "/s" if base == "bytes/s" else ""
    return DisplayUnit(unit=_BINARY[step] + suffix, factor=to_base / 1024.0**step)


def log_ticks(low: float, high: float) -> tuple[list[float], list[str]]:
    """Tick values and texts of a log axis from ``low`` to ``high`` (both > 0): powers of ten when
    the range spans 2 decades or more, else 1-2-5 steps, so no tick is labelled with a bare digit."""
    if low <= 0 or high <= 0 or high < low:
        return [], []
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    steps = (1.0,) if math.log10(high / low) >= 2 else (1.0, 2.0, 5.0)
    values = [m * 10.0**e for e in range(first, last + 1) for m in steps]
    values = [v for v in values if low / 1.5 <= v <= high * 1.5]
    return values, [human(v) for v in values]
