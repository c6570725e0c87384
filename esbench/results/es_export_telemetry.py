"""Telemetry samples as metrics-store documents (``<prefix>-metrics-YYYY-MM``, beside throughput windows).

One document per sample of every series, like Rally's metrics store keeps one value per document
and name (esrally ``metrics.py`` ``EsMetricsStore``): ``kind: telemetry``, ``device``, ``name`` (the
metric, e.g. ``jvm.mem.heap_used_percent``), ``node``, ``value`` in ``unit``, ``@timestamp`` = the
sample's time (as in Rally's documents) and ``relative-time-s`` = seconds since the race started.
The devices' summary rows go to ``<prefix>-results-*`` as ``kind: cluster`` rows with every other
cluster row.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping

from esbench.records import RaceResult


def _race_start(race: RaceResult) -> float | None:
    try:
        return dt.datetime.strptime(race.timestamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC).timestamp()
    except ValueError:
        return None


def telemetry_documents(
    race: RaceResult, common: Mapping[str, object]
) -> Iterator[tuple[str, dict[str, object]]]:
    """``(id, doc)`` per telemetry sample of ``race``; ``common`` holds the race fields of every document.

    Ids are ``<race id>-telemetry-<series position>-<sample index>`` so a re-export overwrites.
    """
    start = _race_start(race)
    for position, series in enumerate(race.telemetry):
        for i, (timestamp, value) in enumerate(zip(series.timestamps, series.values, strict=True)):
            yield (
                f"{race.race_id}-telemetry-{position}-{i}",
                {
                    **common,
                    "@timestamp": round(timestamp * 1000),
                    "kind": "telemetry",
                    "device": series.device,
                    "name": series.metric,
                    "node": series.node,
                    "value": value,
                    "unit": series.unit,
                    "sample-index": i,
                    "relative-time-s": None if start is None else timestamp - start,
                },
            )
