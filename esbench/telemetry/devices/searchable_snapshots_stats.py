"""``searchable-snapshots-stats``: samples ``GET _searchable_snapshots/stats`` on a fixed interval.

Rally's device of the same name (esrally ``telemetry.py``, ``SearchableSnapshotsStats``):
parameters ``searchable-snapshots-stats-indices`` (index names or fnmatch patterns; a string, a
list, or Rally's per-cluster object of which esbench reads the ``default`` key) and
``searchable-snapshots-stats-sample-interval`` (default 1 s). Without indices the API is asked at
``level=cluster``, with them at ``level=indices``. Rally stores one document per Lucene file type
(``file_ext``); esbench keeps their numbers as series ``_all.<file ext>.<field>`` (cluster totals)
and ``<index>.<file ext>.<field>`` (indices matching the parameter), ``node`` = ``""``, e.g.
``_all.fdt.cached_bytes_read.sum``, ``_all.fdt.direct_bytes_read.time_in_nanos`` (ns).
"No searchable snapshots indices found" (404) is no error: indices may be mounted later in the race.

On a cluster without searchable snapshots (no x-pack ``searchable-snapshots`` plugin, e.g. the
integ-test build) Rally's sampler logs an error and records nothing while the race runs on (seen in
a Rally 2.13 race on the integ-test build 8.8.2); esbench does the same and says so in a warning.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import Any, ClassVar

from esbench.telemetry.device import DeviceOutput, TelemetryDevice
from esbench.telemetry.devices.feature_api import missing_api_reason
from esbench.telemetry.flatten import flatten, unit_of
from esbench.telemetry.table import Key

_NO_INDICES = "No searchable snapshots indices found"


class SearchableSnapshotsStats(TelemetryDevice):
    """Regularly samples searchable snapshots stats (Rally's ``searchable-snapshots-stats``)."""

    name = "searchable-snapshots-stats"
    human_name = "Searchable Snapshots Stats"
    help = "Regularly samples searchable snapshots stats per Lucene file type"
    requires = "x-pack searchable-snapshots"
    params: ClassVar[Mapping[str, object]] = {
        "searchable-snapshots-stats-indices": "",
        "searchable-snapshots-stats-sample-interval": 1,
    }

    def __init__(self, params: Mapping[str, object]) -> None:
        super().__init__(params)
        self.sample_interval_s = self.positive_number("searchable-snapshots-stats-sample-interval")
        self.patterns = self.cluster_name_list("searchable-snapshots-stats-indices")
        self.skipped: str | None = None

    async def _stats(self) -> Mapping[str, Any]:
        from elasticsearch import NotFoundError

        level = "indices" if self.patterns else "cluster"
        try:
            response = await self.client.searchable_snapshots.stats(level=level)
        except NotFoundError as e:
            if _NO_INDICES in str(e.body):
                return {}
            raise
        body: Mapping[str, Any] = response.body
        return body

    async def start(self) -> None:
        from elasticsearch import ApiError

        try:
            await self._stats()
        except ApiError as e:
            self.skipped = missing_api_reason(e)
            if self.skipped is None:
                raise
            self.sample_interval_s = None

    async def sample(self, timestamp: float) -> None:
        values, units = parse_searchable_snapshots_stats(await self._stats(), self.patterns)
        self.table.add(timestamp, values, units)

    def output(self) -> DeviceOutput:
        out = super().output()
        if self.skipped:
            out.warnings.append(
                "Telemetry device searchable-snapshots-stats recorded nothing: the cluster has no searchable "
                f"snapshots API ({self.skipped}); it needs the x-pack searchable-snapshots plugin of the "
                "default distribution."
            )
        return out


def parse_searchable_snapshots_stats(
    body: Mapping[str, Any], patterns: tuple[str, ...] = ()
) -> tuple[dict[Key, float], dict[Key, str]]:
    """``_searchable_snapshots/stats`` response -> (``(metric, "")`` -> value, units): cluster totals
    always, indices matching ``patterns`` (fnmatch, Rally's rule) when given."""
    values: dict[Key, float] = {}
    units: dict[Key, str] = {}

    def put(scope: str, files: object) -> None:
        for stats in files if isinstance(files, list) else ():
            ext = stats.get("file_ext") if isinstance(stats, Mapping) else None
            if not isinstance(ext, str):
                continue
            for path, value in flatten({k: v for k, v in stats.items() if k != "file_ext"}):
                values[(f"{scope}.{ext}.{path}", "")] = value
                units[(f"{scope}.{ext}.{path}", "")] = unit_of(path)

    put("_all", body.get("total"))
    if patterns:
        for index, stats in (body.get("indices") or {}).items():
            if any(fnmatch.fnmatch(index, p) for p in patterns):
                put(index, (stats or {}).get("total"))
    return values, units
