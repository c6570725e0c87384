"""Go time layouts (``2006-01-02T15:04:05-0700``) as Python formatting, for Loadgen's
``now_with_format`` variable and the ``now_local``/``now_utc`` strings of Go's ``Time.String()``.

Source of the rules: Go's ``time/format.go`` (the reference time ``Mon Jan 2 15:04:05 MST 2006``,
``-0700``; fractional seconds ``.000``/``.999`` where 9s drop trailing zeros). A layout is translated
once into a list of parts; formatting a datetime is then one pass over the parts.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

# Longest tokens first: Go matches "January" before "Jan", "2006" before "2", "-07:00:00" before "-07".
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _offset(
    t: dt.datetime, *, colon: bool, seconds: bool = False, hours_only: bool = False, z: bool = False
) -> str:
    delta = t.utcoffset() or dt.timedelta(0)
    total = int(delta.total_seconds())
    if z and total == 0:
        return "Z"
    sign = "-" if total < 0 else "+"
    total = abs(total)
    h, rem = divmod(total, 3600)
    m, s = divmod(rem, 60)
    if hours_only:
        return f"{sign}{h:02d}"
    sep = ":" if colon else ""
    text = f"{sign}{h:02d}{sep}{m:02d}"
    return text + (f"{sep}{s:02d}" if seconds else "")


def _zone(t: dt.datetime) -> str:
    name = t.tzname() or ""
    if name and name[0].isalpha() and name.upper() == name and len(name) <= 5:
        return name
    # Go prints the numeric offset when the zone has no abbreviation (e.g. "+08").
    return _offset(t, colon=False, hours_only=len(name) <= 3)


def _hour12(t: dt.datetime) -> int:
    return t.hour % 12 or 12


def _with_comma(frac: Callable[[dt.datetime], str]) -> Callable[[dt.datetime], str]:
    """``frac`` with a decimal comma (Go's ``,000`` layouts)."""
    return lambda t: frac(t).replace(".", ",", 1)


def _fraction(digits: int, trim: bool) -> Callable[[dt.datetime], str]:
    def fmt(t: dt.datetime) -> str:
        text = f"{t.microsecond:06d}000"[:digits]
        if trim:
            text = text.rstrip("0")
            return f".{text}" if text else ""
        return f".{text}"

    return fmt


_TOKENS: tuple[tuple[str, Callable[[dt.datetime], str]], ...] = (
    ("January", lambda t: _MONTHS[t.month - 1]),
    ("Monday", lambda t: _DAYS[t.weekday()]),
    ("-07:00:00", lambda t: _offset(t, colon=True, seconds=True)),
    ("Z07:00:00", lambda t: _offset(t, colon=True, seconds=True, z=True)),
    ("-070000", lambda t: _offset(t, colon=False, seconds=True)),
    ("Z070000", lambda t: _offset(t, colon=False, seconds=True, z=True)),
    ("-07:00", lambda t: _offset(t, colon=True)),
    ("Z07:00", lambda t: _offset(t, colon=True, z=True)),
    ("-0700", lambda t: _offset(t, colon=False)),
    ("Z0700", lambda t: _offset(t, colon=False, z=True)),
    ("2006", lambda t: f"{t.year:04d}"),
    ("-07", lambda t: _offset(t, colon=False, hours_only=True)),
    ("Z07", lambda t: _offset(t, colon=False, hours_only=True, z=True)),
    ("Jan", lambda t: _MONTHS[t.month - 1][:3]),
    ("Mon", lambda t: _DAYS[t.weekday()][:3]),
    ("MST", _zone),
    ("002", lambda t: f"{t.timetuple().tm_yday:03d}"),
    ("__2", lambda t: f"{t.timetuple().tm_yday:>3d}"),
    ("_2", lambda t: f"{t.day:>2d}"),
    ("01", lambda t: f"{t.month:02d}"),
    ("02", lambda t: f"{t.day:02d}"),
    ("03", lambda t: f"{_hour12(t):02d}"),
    ("04", lambda t: f"{t.minute:02d}"),
    ("05", lambda t: f"{t.second:02d}"),
    ("06", lambda t: f"{t.year % 100:02d}"),
    ("15", lambda t: f"{t.hour:02d}"),
    ("PM", lambda t: "PM" if t.hour >= 12 else "AM"),
    ("pm", lambda t: "pm" if t.hour >= 12 else "am"),
    ("1", lambda t: str(t.month)),
    ("2", lambda t: str(t.day)),
    ("3", lambda t: str(_hour12(t))),
    ("4", lambda t: str(t.minute)),
    ("5", lambda t: str(t.second)),
)


def compile_layout(layout: str) -> Callable[[dt.datetime], str]:
    """A function formatting an aware datetime like Go's ``t.Format(layout)``.

    Fractional seconds: ``.000``/``,000`` (fixed digits) and ``.999``/``,999`` (trailing zeros
    dropped) after a seconds field, as Go does; digits beyond microseconds are zeros (Python's
    clock resolution).
    """
    parts: list[str | Callable[[dt.datetime], str]] = []
    i = 0
    n = len(layout)
    while i < n:
        ch = layout[i]
        if ch in ".," and i + 1 < n and layout[i + 1] in "09":
            digit = layout[i + 1]
            j = i + 1
            while j < n and layout[j] == digit:
                j += 1
            # Go treats it as a fraction only when no digit follows the run.
            if not (j < n and layout[j].isdigit()):
                frac = _fraction(j - i - 1, trim=digit == "9")
                if ch == ",":
                    parts.append(_with_comma(frac))
                else:
                    parts.append(frac)
                i = j
                continue
        for token, fn in _TOKENS:
            if layout.startswith(token, i):
                parts.append(fn)
                i += len(token)
                break
        else:
            parts.append(ch)
            i += 1
    merged: list[str | Callable[[dt.datetime], str]] = []
    for part in parts:
        if isinstance(part, str) and merged and isinstance(merged[-1], str):
            merged[-1] += part
        else:
            merged.append(part)

    def fmt(t: dt.datetime) -> str:
        return "".join(p if isinstance(p, str) else p(t) for p in merged)

    return fmt


def go_time_string(t: dt.datetime, nanos: int) -> str:
    """Go's ``Time.String()`` without monotonic reading: ``2006-01-02 15:04:05.999999999 -0700 MST``.

    ``nanos`` is the nanosecond part of the second (Go prints up to 9 digits, trailing zeros dropped).
    """
    frac = f"{nanos:09d}".rstrip("0")
    base = t.strftime("%Y-%m-%d %H:%M:%S")
    return f"{base}{'.' + frac if frac else ''} {_offset(t, colon=False)} {_zone(t)}"
