"""``transform-stats``: samples ``GET _transform/_all/_stats`` on a fixed interval.

Rally's device of the same name (esrally ``telemetry.py``, ``TransformStats``/
``TransformStatsRecorder``): parameters ``transform-stats-transforms`` (transform ids to keep;
Rally's per-cluster object, of which esbench reads the ``default`` key, or a string or list) and
``transform-stats-sample-interval`` (default 1 s). Per transform and sample, Rally's values under
Rally's names become series ``<transform id>.<name>`` with ``node`` = ``""``:
``transform_pages_processed``, ``transform_documents_processed``, ``transform_documents_indexed``,
``transform_index_total``, ``transform_index_failures``, ``transform_search_total``,
``transform_search_failures``, ``transform_processing_total``, ``transform_search_time``,
``transform_index_time``, ``transform_processing_time`` (ms) and ``transform_throughput``
(documents processed per second of search + processing + index time, docs/s; only once that time is
above 0). After the last task Rally records the same values once more as ``total_...``; from them
its report shows ``Transform processing time``, ``Transform indexing time``, ``Transform search
time`` (ms) and ``Transform throughput`` (docs/s) per transform, and so does esbench's.

On a cluster without transforms (no x-pack ``transform`` plugin, e.g. the integ-test build) Rally's
race fails after its last task, exit 64, when the final sample finds no API (seen in a Rally 2.13
race on the integ-test build 8.8.2); esbench refuses the device before the first task instead,
with the same exit code, so no race is spent on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from esbench.exceptions import ConfigError
from esbench.records import ClusterMetric
from esbench.telemetry.device import TelemetryDevice
from esbench.telemetry.devices.feature_api import missing_api_reason
from esbench.telemetry.table import Key

#: (Rally's metric name, the field of a transform's ``stats``, unit).
_FIELDS = (
    ("transform_pages_processed", "pages_processed", ""),
    ("transform_documents_processed", "documents_processed", ""),
    ("transform_documents_indexed", "documents_indexed", ""),
    ("transform_index_total", "index_total", ""),
    ("transform_index_failures", "index_failures", ""),
    ("transform_search_total", "search_total", ""),
    ("transform_search_failures", "search_failures", ""),
    ("transform_processing_total", "processing_total", ""),
    ("transform_search_time", "search_time_in_ms", "ms"),
    ("transform_index_time", "index_time_in_ms", "ms"),
    ("transform_processing_time", "processing_time_in_ms", "ms"),
)

#: Report rows from the final sample: (row name, metric, unit); Rally's ``reporter.py``.
_REPORT_ROWS = (
    ("Transform processing time", "transform_processing_time", "ms"),
    ("Transform indexing time", "transform_index_time", "ms"),
    ("Transform search time", "transform_search_time", "ms"),
    ("Transform throughput", "transform_throughput", "docs/s"),
)


class TransformStats(TelemetryDevice):
    """Regularly samples transform stats (Rally's ``transform-stats``)."""

    name = "transform-stats"
    human_name = "Transform Stats"
    help = "Regularly samples the stats of each transform"
    requires = "x-pack transform"
    params: ClassVar[Mapping[str, object]] = {
        "transform-stats-transforms": "",
        "transform-stats-sample-interval": 1,
    }

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.sample_interval_s = self.positive_number("transform-stats-sample-interval")
        self.transforms = frozenset(self.cluster_name_list("transform-stats-transforms"))
        self.final: dict[Key, float] = {}

    async def start(self) -> None:
        from elasticsearch import ApiError

        try:
            await self.client.transform.get_transform_stats(transform_id="_all")
        except ApiError as e:
            reason = missing_api_reason(e)
            if reason is None:
                raise
            raise ConfigError(
                f"The telemetry device 'transform-stats' needs the transform API, which this cluster lacks "
                f"({reason}): transforms come with the x-pack transform plugin of Elasticsearch's default "
                "distribution. Drop the device from --telemetry, or race a cluster that has transforms."
            ) from e

    async def sample(self, timestamp: float) -> None:
        response = await self.client.transform.get_transform_stats(transform_id="_all")
        values, units = parse_transform_stats(response.body, self.transforms)
        self.table.add(timestamp, values, units)
        # The session takes one last sample after the last task: Rally's ``record_final``.
        self.final = values

    def summary(self) -> tuple[ClusterMetric, ...]:
        rows = []
        for row, metric, unit in _REPORT_ROWS:
            for (name, _), value in self.final.items():
                transform, _, leaf = name.rpartition(".")
                if leaf == metric:
                    rows.append(ClusterMetric(name=row, value=value, unit=unit, task=transform))
        return tuple(rows)


def parse_transform_stats(
    body: Mapping[str, Any], transforms: frozenset[str] = frozenset()
) -> tuple[dict[Key, float], dict[Key, str]]:
    """``_transform/_all/_stats`` response -> (``(<id>.<metric>, "")`` -> value, units); only
    ``transforms`` when given (Rally's filter). Missing fields count 0, as in Rally."""
    values: dict[Key, float] = {}
    units: dict[Key, str] = {}
    for transform in body.get("transforms") or ():
        tid, stats = transform.get("id"), transform.get("stats")
        if (
            not isinstance(tid, str)
            or not isinstance(stats, Mapping)
            or (transforms and tid not in transforms)
        ):
            continue

        def number(field: str, stats: Mapping[str, Any] = stats) -> float:
            value = stats.get(field, 0)
            return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0

        for metric, field, unit in _FIELDS:
            values[(f"{tid}.{metric}", "")] = number(field)
            units[(f"{tid}.{metric}", "")] = unit
        busy_ms = number("search_time_in_ms") + number("processing_time_in_ms") + number("index_time_in_ms")
        if busy_ms > 0:
            values[(f"{tid}.transform_throughput", "")] = number("documents_processed") / busy_ms * 1000
            units[(f"{tid}.transform_throughput", "")] = "docs/s"
    return values, units
