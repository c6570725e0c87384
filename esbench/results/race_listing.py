"""Which races to list or read, and one listed race as Rally shows it: :class:`RaceFilter`,
:class:`ListedRace`.

The filters are Rally 2.13's ``list races`` filters (``esrally/rally.py``, ``list_parser``;
``esrally/metrics.py``, ``EsRaceStore.list`` and ``FileRaceStore._to_races``): ``--track``,
``--challenge``, ``--benchmark-name`` (user tag ``name`` or ``benchmark-name``), ``--from-date`` and
``--to-date`` (``yyyyMMdd``, both days included), ``--user-tag`` and the environment (Rally's
``env.name``), plus esbench's status and start time. Both stores apply them: the metrics store in
its query (:mod:`esbench.results.es_read`), the results store with :meth:`RaceFilter.matches`.

A listed race has Rally's columns (``esrally/metrics.py``, ``list_races``: Race ID, Race Timestamp,
Track, Challenge, Car, ES Version, Revision, Rally Version, Track Revision, Team Revision, User Tags)
and, for ``--format=json``, the keys of Rally's ``Race.as_dict`` as ``FileRaceStore.list`` gives them
(``esrally/metrics.py``: the race documents Rally keeps in ``races/<id>/race.json``, with their
``environment`` and ``results``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from esbench.exceptions import UserError
from esbench.records import RaceResult, tag_text
from esbench.results.store_layout import RALLY, StoreLayout
from esbench.results.store_races import car_name, iso_timestamp, rally_timestamp

#: Rally's ``list races`` columns, in order (``esrally/metrics.py``, ``list_races``).
LIST_HEADERS: tuple[str, ...] = (
    "Race ID",
    "Race Timestamp",
    "Track",
    "Challenge",
    "Car",
    "ES Version",
    "Revision",
    "Rally Version",
    "Track Revision",
    "Team Revision",
    "User Tags",
)

#: Rally's default ``env.name`` (``esrally/resources/rally.ini``).
DEFAULT_ENVIRONMENT = "local"


def parse_list_date(text: str, option: str) -> date:
    """``"20261128"`` (Rally's ``yyyyMMdd``) -> a date.

    Raises:
        UserError: another format; names ``option``.
    """
    try:
        return datetime.strptime(text.strip(), "%Y%m%d").date()
    except ValueError:
        raise UserError(
            f"Invalid {option} value {text!r}: write the date as yyyyMMdd, e.g. {option}=20261128 "
            "(Rally's format)."
        ) from None


def race_datetime(timestamp: str) -> datetime | None:
    """An esbench (ISO-8601) or Rally (``20261128T123750Z``) race timestamp as an aware UTC
    datetime; None if it is neither."""
    try:
        parsed = datetime.fromisoformat(iso_timestamp(timestamp).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


@dataclass(frozen=True, kw_only=True)
class RaceFilter:
    """Which races to read or list (every given filter must match).

    Attributes:
        track / challenge / status: exact values (None: any). Races Rally stored have status
            ``completed`` (Rally stores only races that ended).
        environment: Rally's ``env.name`` of the race (None: any). Races without one (esbench's
            results store and its ``esbench-*`` layout) match every environment.
        benchmark_name: the user tag ``name`` or ``benchmark-name`` has this value.
        user_tags: tag key -> accepted values (one of them must match).
        from_date / to_date: the race started on or after / on or before this UTC day.
        since: the race started at or after this ISO-8601 UTC time (``esbench trend --since``).
    """

    track: str | None = None
    challenge: str | None = None
    status: str | None = None
    environment: str | None = None
    benchmark_name: str | None = None
    user_tags: Mapping[str, Sequence[str]] = field(default_factory=dict)
    from_date: date | None = None
    to_date: date | None = None
    since: str | None = None

    def matches(self, race: RaceResult) -> bool:
        """Whether ``race`` (of the results store) passes every filter but ``environment``."""
        if self.track is not None and race.track != self.track:
            return False
        if self.challenge is not None and race.challenge != self.challenge:
            return False
        if self.status is not None and race.status != self.status:
            return False
        tags = race.user_tags
        if self.benchmark_name is not None and self.benchmark_name not in (
            tags.get("name"),
            tags.get("benchmark-name"),
        ):
            return False
        if any(k not in tags or tag_text(tags[k]) not in values for k, values in self.user_tags.items()):
            return False
        return self._time_matches(race_datetime(race.timestamp))

    def _time_matches(self, started: datetime | None) -> bool:
        if self.from_date is None and self.to_date is None and self.since is None:
            return True
        if started is None:
            return False
        if self.from_date is not None and started.date() < self.from_date:
            return False
        if self.to_date is not None and started.date() > self.to_date:
            return False
        if self.since is not None:
            since = race_datetime(self.since) or race_datetime(f"{self.since}T00:00:00Z")
            if since is None or started < since:
                return False
        return True


@dataclass(frozen=True, kw_only=True)
class ListedRace:
    """One race of ``list races``: Rally's header fields (``esrally/metrics.py``, ``Race``).

    Attributes:
        race_timestamp: Rally's format, ``20261128T123750Z`` (UTC).
        car: Rally's ``car`` value (a list of names, or a name).
        distribution_version: the cluster's version (Rally: ``cluster.distribution-version``).
        revision / team_revision / distribution_flavor: ``cluster.*`` of Rally's document (None for
            esbench races).
        rally_version / rally_revision: the tool that ran the race (esbench's version for esbench
            races).
        environment: Rally's ``env.name`` (None for esbench races that have none).
        results: Rally's ``results`` of the race (``GlobalStats.as_dict``), None when not read.
        layout: the layout the race was read from (Rally's for esbench races of the results
            store); :meth:`as_dict` gives its field names.
    """

    race_id: str
    race_timestamp: str
    track: str
    challenge: str | None
    car: Any
    pipeline: str
    user_tags: Mapping[str, Any]
    distribution_version: str | None = None
    distribution_flavor: str | None = None
    revision: str | None = None
    rally_version: str | None = None
    rally_revision: str | None = None
    track_revision: str | None = None
    team_revision: str | None = None
    environment: str | None = None
    track_params: Mapping[str, Any] = field(default_factory=dict)
    car_params: Mapping[str, Any] = field(default_factory=dict)
    plugin_params: Mapping[str, Any] = field(default_factory=dict)
    results: Mapping[str, Any] | None = None
    layout: StoreLayout = RALLY

    @classmethod
    def from_race(
        cls, race: RaceResult, *, environment: str | None = None, results: bool = False
    ) -> ListedRace:
        """The listing of an esbench race (results store, or the ``esbench-*`` layout).

        Args:
            environment: the environment of a race that recorded none (stored before esbench
                recorded it), e.g. the ``env.name`` of esbench.ini now.
            results: add Rally's ``results`` (:func:`~esbench.results.store_documents.global_stats`;
                ``race`` must have its tasks and cluster rows).
        """
        # Here, not at the top: store_documents reads histograms (hdrh), which `esbench --help`
        # must not import (esbench.cli._store_options imports this module).
        from esbench.results.store_documents import global_stats

        return cls(
            race_id=race.race_id,
            race_timestamp=rally_timestamp(race.timestamp),
            track=race.track,
            challenge=race.challenge or None,
            car=race.car.split(",") if race.car else [],
            pipeline=race.pipeline,
            user_tags=dict(race.user_tags),
            distribution_version=race.cluster_version or race.distribution_version,
            rally_version=race.esbench_version or None,
            track_revision=race.track_revision,
            environment=race.environment or environment,
            track_params=dict(race.track_params),
            car_params=dict(race.car_params),
            results=global_stats(race) if results else None,
        )

    @classmethod
    def from_rally_document(cls, doc: Mapping[str, Any], layout: StoreLayout = RALLY) -> ListedRace:
        """The listing of a race document of ``layout`` (``rally-races-*``, ``benchmark-test-runs-*``);
        missing fields stay None. OSB's cluster config revision is the team revision."""
        f = layout.fields
        cluster: Mapping[str, Any] = doc.get("cluster") or {}
        return cls(
            race_id=str(doc.get(f.race_id)),
            race_timestamp=str(doc.get(f.race_timestamp)),
            track=str(doc.get(f.track)),
            challenge=doc.get(f.challenge),
            car=doc.get(f.car),
            pipeline=str(doc.get("pipeline") or ""),
            user_tags=dict(doc.get("user-tags") or {}),  # as stored: Rally's values are typed
            distribution_version=cluster.get("distribution-version"),
            distribution_flavor=cluster.get("distribution-flavor"),
            revision=cluster.get("revision"),
            rally_version=doc.get(f.tool_version),
            rally_revision=doc.get(f.tool_revision),
            track_revision=doc.get(f.track_revision),
            team_revision=cluster.get(f.config_revision),
            environment=doc.get("environment"),
            track_params=doc.get(f.track_params) or {},
            car_params=doc.get(f.car_params) or {},
            plugin_params=doc.get("plugin-params") or {},
            results=doc.get("results") or None,
            layout=layout,
        )

    @property
    def started(self) -> datetime:
        """The race timestamp as an aware UTC datetime (the epoch if it does not parse)."""
        return race_datetime(self.race_timestamp) or datetime.fromtimestamp(0, UTC)

    def row(self) -> list[str]:
        """The text columns of :data:`LIST_HEADERS` (Rally prints ``None`` cells as empty)."""
        tags = ", ".join(f"{k}={v}" for k, v in sorted(self.user_tags.items()))
        car = "+".join(str(c) for c in self.car) if isinstance(self.car, list) else car_name(self.car)
        cells = (
            self.race_id,
            self.race_timestamp,
            self.track,
            self.challenge,
            car,
            self.distribution_version,
            self.revision,
            self.rally_version,
            self.track_revision,
            self.team_revision,
            tags,
        )
        return ["" if c is None else str(c) for c in cells]

    def as_dict(self) -> dict[str, Any]:
        """The race as ``list races --format=json`` shows it: the keys of Rally's ``Race.as_dict``
        (``rally-version``, ``environment``, ``race-id``, ``race-timestamp``, ``pipeline``,
        ``user-tags``, ``track``, ``car``, ``cluster``; ``track-revision``, ``challenge``,
        ``track-params``, ``car-params``, ``plugin-params`` when set, ``results`` when read), or
        OSB's ``TestRun.as_dict`` keys for a race read from OSB's layout (``benchmark-version``,
        ``test-run-id``, ``workload``...). User tag values are as stored."""
        f = self.layout.fields
        out: dict[str, Any] = {
            f.tool_version: self.rally_version,
            f.tool_revision: self.rally_revision,
            "environment": self.environment,
            f.race_id: self.race_id,
            f.race_timestamp: self.race_timestamp,
            "pipeline": self.pipeline,
            "user-tags": dict(self.user_tags),
            f.track: self.track,
            f.car: self.car,
            "cluster": {
                "revision": self.revision,
                "distribution-version": self.distribution_version,
                "distribution-flavor": self.distribution_flavor,
                f.config_revision: self.team_revision,
            },
        }
        optional = (
            (f.track_revision, self.track_revision),
            (f.challenge, self.challenge),
            (f.track_params, dict(self.track_params)),
            (f.car_params, dict(self.car_params)),
            ("plugin-params", dict(self.plugin_params)),
        )
        if self.results:
            # Rally's Race.as_dict puts results after cluster, before the optional keys.
            out["results"] = dict(self.results)
        out.update((key, value) for key, value in optional if value)
        return out
