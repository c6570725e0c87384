"""The lines that say what a comparison compares: Rally's header block for one baseline race and
one contender race (:func:`rally_header_lines`), esbench's side lines for groups of races
(:func:`side_description`).

Rally 2.13's ``esrally/reporter.py``, ``ComparisonReporter.report``: an empty line, ``Comparing
baseline`` and the baseline's ``Race ID``, ``Race timestamp`` (the race's start, printed as a
naive datetime: ``2026-11-28 12:37:50``), ``Challenge`` (when the race has one), ``Car`` (the car
names joined by ``+``) and ``User tags`` (when there are any: ``key=value`` pairs sorted by key,
``, ``-joined), then an empty line, ``with contender`` and the contender's same lines. Rally prints
its "Final Score" banner after it; esbench's reports have no banner (as its race summary has none).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from esbench.records import RaceResult

if TYPE_CHECKING:
    from esbench.reporting.compare import Comparison, Side

#: The timestamp formats a stored race may carry: esbench's ISO-8601 and Rally's compact one.
_TIMESTAMP_FORMATS = ("%Y-%m-%dT%H:%M:%SZ", "%Y%m%dT%H%M%SZ")


def race_timestamp_text(timestamp: str) -> str:
    """``2026-11-28T12:37:50Z`` (or Rally's ``20261128T123750Z``) as Rally prints a race timestamp,
    ``2026-11-28 12:37:50`` (UTC; Rally's ``Race.race_timestamp``, a naive datetime, formatted with
    ``%s``); any other text as it is."""
    for fmt in _TIMESTAMP_FORMATS:
        try:
            return str(datetime.strptime(timestamp, fmt))
        except ValueError:
            continue
    try:
        parsed = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return timestamp
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return str(parsed)


def _car(car: str) -> str:
    # Rally's Race.car_name: the list of car names joined by "+"; esbench stores them ","-joined.
    return "+".join(c for c in car.split(",") if c) if car else "external"


def _race_lines(race: RaceResult) -> list[str]:
    lines = [f"  Race ID: {race.race_id}", f"  Race timestamp: {race_timestamp_text(race.timestamp)}"]
    if race.challenge:
        lines.append(f"  Challenge: {race.challenge}")
    lines.append(f"  Car: {_car(race.car)}")
    if race.user_tags:
        tags = ", ".join(f"{k}={v}" for k, v in sorted(race.user_tags.items()))
        lines.append(f"  User tags: {tags}")
    return lines


def rally_header_lines(baseline: RaceResult, contender: RaceResult) -> list[str]:
    """The lines Rally prints before the table of ``esrally compare`` (module docstring), starting
    with its empty line; user tag values are printed as stored (``str`` of each value)."""
    return ["", "Comparing baseline", *_race_lines(baseline), "", "with contender", *_race_lines(contender)]


def single_races(comparison: Comparison) -> tuple[RaceResult, RaceResult] | None:
    """(baseline race, contender race) when ``comparison`` is Rally's kind, one race against one
    race; None for several contenders or a side of several races (esbench's comparison of groups)."""
    if len(comparison.contenders) != 1:
        return None
    baseline, contender = comparison.baseline.races, comparison.contenders[0].contender.races
    if len(baseline) != 1 or len(contender) != 1:
        return None
    return baseline[0], contender[0]


def side_description(side: Side) -> str:
    """esbench's description of a side: ``label (N races of track T: id8, id8, ...)`` (six ids at most)."""
    races = side.races
    tracks = ", ".join(sorted({r.track for r in races}))
    ids = ", ".join(r.race_id[:8] for r in races[:6]) + (", ..." if len(races) > 6 else "")
    n = f"{len(races)} race{'s' if len(races) != 1 else ''}"
    return f"{side.label} ({n} of track {tracks}: {ids})"
