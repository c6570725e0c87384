"""Filters of the track Jinja environment: the date filters ``days_ago``, ``get_start_date``,
``get_end_date``, and OpenSearch Benchmark's ``version_between``.

Semantics follow Rally's ``esrally/time.py`` (the functions behind the filters of the same name):
a value is a :class:`datetime.datetime` (used as is), a unix timestamp in seconds (interpreted in
UTC) or a string parsed with the given format (naive results are taken as UTC).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def _to_datetime(value: object, date_format: str | None) -> datetime:
    if isinstance(value, datetime):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        # Rally accepts floats only (``now`` is a float); ints are the same instant, so accept them too.
        return datetime.fromtimestamp(float(value), UTC)
    if isinstance(value, str):
        if date_format is None:
            raise TypeError(
                f"Cannot convert the string '{value}' to a date without a date format; "
                f"pass a datetime or a unix timestamp (like `now`)."
            )
        parsed = datetime.strptime(value, date_format)
        return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    raise TypeError(f"Cannot convert unrecognized type '{type(value)}' with value '{value}' to datetime.")


def days_ago(start_date: object, end_date: object, date_format: str = "%d-%m-%Y") -> int:
    """Whole days from ``start_date`` to ``end_date`` (negative if end is earlier).

    Example: ``{{ "01-01-2020" | days_ago(now) }}``. Strings are parsed with ``date_format``.
    """
    return (_to_datetime(end_date, date_format) - _to_datetime(start_date, date_format)).days


def get_start_date(the_date: object, date_format: str = "%Y-%m-%d") -> str:
    """``the_date`` (datetime or unix timestamp) formatted with ``date_format``.

    Like Rally, strings are not accepted here (Rally parses them with no format and fails).
    """
    return _to_datetime(the_date, None).strftime(date_format)


def get_end_date(start_date: object, duration_days: float = 1, date_format: str = "%Y-%m-%d") -> str:
    """``start_date`` plus ``duration_days`` days, formatted with ``date_format``."""
    return (_to_datetime(start_date, None) + timedelta(days=duration_days)).strftime(date_format)


def version_between(version: str, frm: str, to: str) -> bool:
    """OpenSearch Benchmark's ``version_between`` filter: ``frm <= version <= to``, comparing the
    dot-separated numbers as lists of ints (``"2.11.0" | version_between("2.0.0", "2.99.0")``).

    Source: OSB 2.4.0 ``osbenchmark/workload/loader.py`` ``version_between``.

    Raises:
        ValueError: a part that is not an integer (as in OSB).
    """

    def parts(text: str) -> list[int]:
        return [int(p) for p in text.split(".")]

    return parts(frm) <= parts(version) <= parts(to)
