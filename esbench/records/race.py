"""The result of a race: what race control assembles and the reporting and store stages consume.

``to_dict``/``from_dict`` give the JSON shape of ``results.json`` and of the results store (the store's
own logic, files and SQLite, stays in ``esbench.results``). Units as in :mod:`esbench.records.task`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from esbench.records.cluster import ClusterMetric
from esbench.records.task import ErrorDescription, TaskResult
from esbench.records.telemetry import TelemetrySeries

RESULTS_FORMAT_VERSION = 1


class RaceStatus(StrEnum):
    """How a race ended (``RaceResult.status``; stored and written to ``results.json`` as its value)."""

    #: Every task ran to its end.
    COMPLETED = "completed"
    #: An error stopped the race (``--on-error=abort``, a refused connection, a dead worker...).
    FAILED = "failed"
    #: Ctrl-C stopped the race.
    INTERRUPTED = "interrupted"


STATUS_COMPLETED = RaceStatus.COMPLETED
STATUS_FAILED = RaceStatus.FAILED
STATUS_INTERRUPTED = RaceStatus.INTERRUPTED


def tag_text(value: object) -> str:
    """The text of a user tag value that tag filters compare: a string as it is, anything else
    as compact JSON with sorted keys (``4`` -> ``"4"``, ``True`` -> ``"true"``, ``None`` ->
    ``"null"``, ``{"b": 1}`` -> ``'{"b":1}'``). So ``--user-tag=count:4`` finds a race tagged with
    the int 4 and one stored before tags were typed (the string ``"4"``)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, kw_only=True)
class RaceResult:
    """Everything stored about one race.

    Attributes:
        race_id: UUID4 string.
        timestamp: race start, ISO-8601 UTC (``2026-11-21T20:10:18Z``).
        track / challenge: names.
        track_params: the ``--track-params`` given.
        car: car name(s), e.g. ``"defaults,4gheap"``; ``"external"`` for benchmark-only.
        car_params: ``--car-params``.
        user_tags: ``--user-tags`` key/values, typed as Rally stores them (``esrally/utils/opts.py``
            ``to_dict``): ``count:4`` is the int 4, ``ssd:true`` True, a JSON object's values as
            given (strings, numbers, booleans, null, nested objects and arrays). Races stored
            before esbench typed them have strings. :func:`tag_text` is the text a filter compares.
        pipeline: ``from-distribution`` or ``benchmark-only``.
        distribution_version: the version esbench provisioned (None for benchmark-only).
        track_repository / track_revision: the track repository and the commit the track came from
            (None for built-in, user and --track-path tracks).
        cluster_version: the version reported by the target cluster.
        cluster_nodes: number of nodes in the target cluster.
        esbench_version: version of esbench that ran the race.
        test_mode: True for ``--test-mode`` races.
        status: a :class:`RaceStatus` value (``completed``, ``failed`` or ``interrupted``); a plain
            string when read back from ``results.json`` or the store, equal to the member.
        error: the error message for failed/interrupted races.
        duration_s: wall time of the race in seconds.
        tasks: per-task results in schedule order.
        cluster_metrics: cluster-level rows (from ``_stats``/``_nodes/stats`` at the end), and the
            summary rows of telemetry devices.
        telemetry: time series sampled by telemetry devices during the race (see
            :class:`esbench.records.TelemetrySeries`).
        distribution_repository: where the provisioned distribution came from (``elastic``: the full
            default distribution, ``maven``: the integ-test distribution, ``local``:
            ``--distribution-path``); None for benchmark-only.
        distribution_note: why that repository was chosen (e.g. the fallback reason naming the
            modules the integ-test distribution lacks); None for benchmark-only.
        cluster_flavor: the product the target cluster runs, ``elasticsearch`` or ``opensearch``
            (detected, see :mod:`esbench.driver.transport.target`); None for races stored before it existed.
        load_driver: where the load driver's workers ran (``esbench.driver.coordinator.run.DriverOutcome``):
            ``backend`` (``local``/``ray``), ``workers`` (worker id, host, pid, Ray node id, clock
            offset and its uncertainty in ms) and ``clients`` (task -> host -> the task's client
            indexes that host ran); empty for races stored before it was recorded.
        track_fingerprint: digest of the track as raced (rendered content, params, files; see
            :mod:`esbench.track.fingerprint`): planning reuses a race only for the same digest. None
            for tracks built in memory and races stored before it was recorded.
        environment: Rally's ``env.name`` when the race ran (``[system] env.name`` of esbench.ini,
            default ``local``; Rally's ``Race.environment_name``); None for races stored before it
            was recorded.
    """

    race_id: str
    timestamp: str
    track: str
    challenge: str
    track_params: dict[str, Any] = field(default_factory=dict)
    car: str = "external"
    car_params: dict[str, Any] = field(default_factory=dict)
    user_tags: dict[str, Any] = field(default_factory=dict)
    pipeline: str = "benchmark-only"
    distribution_version: str | None = None
    track_repository: str | None = None
    track_revision: str | None = None
    cluster_version: str | None = None
    cluster_nodes: int | None = None
    esbench_version: str = ""
    test_mode: bool = False
    status: str = STATUS_COMPLETED
    error: str | None = None
    duration_s: float = 0.0
    tasks: tuple[TaskResult, ...] = ()
    cluster_metrics: tuple[ClusterMetric, ...] = ()
    telemetry: tuple[TelemetrySeries, ...] = ()
    distribution_repository: str | None = None
    distribution_note: str | None = None
    cluster_flavor: str | None = None
    load_driver: dict[str, Any] = field(default_factory=dict)
    track_fingerprint: str | None = None
    environment: str | None = None

    def task(self, name: str) -> TaskResult | None:
        """The result of the task called ``name``, or None."""
        return next((t for t in self.tasks if t.task == name), None)

    def to_dict(self, fields: Sequence[str] | None = None) -> dict[str, Any]:
        """The JSON-ready dict of ``results.json`` (includes ``format-version``).

        With ``fields`` (names of this class's fields), only those keys, in that order and without
        ``format_version``: the race header of ``esbench list races --format=json`` and of the JSON
        summary report.

        Raises:
            KeyError: a name in ``fields`` is not a field of :class:`RaceResult`.
        """
        out = dataclasses.asdict(self)
        if fields is not None:
            return {name: out[name] for name in fields}
        out["format_version"] = RESULTS_FORMAT_VERSION
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RaceResult:
        """Inverse of :meth:`to_dict`; unknown keys are ignored (forward compatibility)."""
        task_fields = {f.name for f in dataclasses.fields(TaskResult)}
        metric_fields = {f.name for f in dataclasses.fields(ClusterMetric)}
        race_fields = {f.name for f in dataclasses.fields(cls)}
        tasks = tuple(
            TaskResult(**{k: _task_value(k, v) for k, v in t.items() if k in task_fields})
            for t in data.get("tasks", ())
        )
        metrics = tuple(
            ClusterMetric(**{k: v for k, v in m.items() if k in metric_fields})
            for m in data.get("cluster_metrics", ())
        )
        telemetry = tuple(TelemetrySeries.from_dict(s) for s in data.get("telemetry", ()))
        nested = ("tasks", "cluster_metrics", "telemetry")
        kwargs = {k: v for k, v in data.items() if k in race_fields and k not in nested}
        return cls(**kwargs, tasks=tasks, cluster_metrics=metrics, telemetry=telemetry)


_WINDOW_SERIES = frozenset({"latency_windows_ms", "service_time_windows_ms"})


def _task_value(key: str, value: Any) -> Any:
    # JSON turns tuples into lists; the frozen model keeps tuples so results compare equal.
    if key == "throughput_windows":
        return tuple(value)
    if key in _WINDOW_SERIES:
        return {label: tuple(series) for label, series in value.items()}
    if key == "error_descriptions":
        return tuple(d if isinstance(d, ErrorDescription) else ErrorDescription(**d) for d in value)
    return value
