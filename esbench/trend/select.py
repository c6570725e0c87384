"""Which stored races a trend follows, in which order, and the series of each task in them.

Both stores (the SQLite results store and the Elasticsearch metrics store) hand over
:class:`~esbench.records.RaceResult` objects; the rules here are shared: only completed races
(a failed or interrupted race measured part of its schedule), the user tag filter of
``list races --user-tag`` (every key must have one of its values), races ordered by start time
(ties, races started within the same second, by the wall clock of their first task, then id).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from esbench.exceptions import ConfigError
from esbench.records import RaceResult, RaceStatus, tag_text
from esbench.trend.metric import TrendMetric
from esbench.trend.model import TrendPoint, TrendSeries


@dataclass(frozen=True, kw_only=True)
class TrendSelection:
    """The races and tasks a trend follows.

    Attributes:
        track / challenge: only races of this track / challenge (None: any).
        tasks: only these tasks (empty: every reported task).
        user_tags: tag key -> accepted values (``list races --user-tag``'s filter).
        since: only races that started at or after this ISO-8601 UTC time (text comparison of
            the stored ``2026-11-21T20:10:18Z`` form; a date ``2026-11-21`` works too).
        limit: only the newest N races (None: all).
    """

    track: str | None = None
    challenge: str | None = None
    tasks: tuple[str, ...] = ()
    user_tags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    since: str | None = None
    limit: int | None = None


def matches(race: RaceResult, selection: TrendSelection) -> bool:
    """Whether ``race`` completed and passes every filter of ``selection`` but ``tasks``/``limit``."""
    if race.status != RaceStatus.COMPLETED:
        return False
    if selection.track is not None and race.track != selection.track:
        return False
    if selection.challenge is not None and race.challenge != selection.challenge:
        return False
    if selection.since is not None and race.timestamp < selection.since:
        return False
    return all(
        key in race.user_tags and tag_text(race.user_tags[key]) in values
        for key, values in selection.user_tags.items()
    )


def _order_key(race: RaceResult) -> tuple[str, float, str]:
    starts = [t.start_epoch for t in race.tasks if t.start_epoch is not None]
    return (race.timestamp, min(starts) if starts else float("inf"), race.race_id)


def select_races(races: Iterable[RaceResult], selection: TrendSelection) -> list[RaceResult]:
    """The races of ``selection``, oldest first, the newest ``selection.limit`` of them."""
    chosen = sorted((r for r in races if matches(r, selection)), key=_order_key)
    if selection.limit is not None:
        chosen = chosen[-selection.limit :] if selection.limit else []
    return chosen


def build_series(
    races: Sequence[RaceResult], selection: TrendSelection, metric: TrendMetric
) -> list[TrendSeries]:
    """One series per (track, challenge, task) of ``races`` (already selected and ordered), in the
    order tasks first appear; a race that did not measure the metric for a task adds no point, and a
    task no race measured it for has no series.

    Raises:
        ConfigError: a task of ``selection.tasks`` that no selected race ran (the message lists the
            tasks they ran).
    """
    points: dict[tuple[str, str, str], list[TrendPoint]] = {}
    ran: set[str] = set()
    for race in races:
        for task in race.tasks:
            ran.update([task.task] if task.reported else [])
            if not task.reported or (selection.tasks and task.task not in selection.tasks):
                continue
            key = (race.track, race.challenge, task.task)
            value = metric.value(task)
            bucket = points.setdefault(key, [])
            if value is not None:
                unit = metric.unit(task.throughput_unit)
                bucket.append(
                    TrendPoint(race_id=race.race_id, timestamp=race.timestamp, value=value, unit=unit)
                )
    missing = [t for t in selection.tasks if t not in ran]
    if missing:
        raise ConfigError(
            f"No selected race ran the task(s) {', '.join(repr(t) for t in missing)} (--task). "
            f"The selected races ran: {', '.join(sorted(ran)) or 'none'}."
        )
    return [
        TrendSeries(track=track, challenge=challenge, task=task, metric=metric, points=tuple(p))
        for (track, challenge, task), p in points.items()
        if p
    ]
