"""The index names of Rally's Elasticsearch metrics store, the one home of those names in esbench.

Rally 2.13 (``esrally/metrics.py``: ``EsRaceStore``, ``EsResultsStore``, ``EsMetricsStore``,
annotations in ``EsRaceStore.add_annotation``) writes four kinds of documents:

- ``rally-races-YYYY-MM``: one document per race (``_id`` = race id), month of the race timestamp;
- ``rally-results-YYYY-MM``: one document per metric and task of a race, month of the race timestamp;
- ``rally-metrics-YYYY-MM``: one document per sample (per-request latency, service time, processing
  time, throughput samples, telemetry), month of the race timestamp;
- ``rally-annotations``: one index, one document per annotation.

esbench writes and reads the same names so that Rally, its dashboards and esbench share one store.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum


class StoreIndex(StrEnum):
    """The kinds of monthly indices of Rally's metrics store; the value is the index name prefix
    without its trailing dash (also the name of Rally's index template for it)."""

    RACES = "rally-races"
    RESULTS = "rally-results"
    METRICS = "rally-metrics"


#: The one index of annotations (Rally: ``rally-annotations``, not monthly).
ANNOTATIONS_INDEX = "rally-annotations"

#: Rally's timestamp format for race timestamps in documents and on the command line
#: (``esrally/metrics.py``, ``TIMESTAMP_FMT``; e.g. ``20261128T123750Z``).
RACE_TIMESTAMP_FORMAT = "%Y%m%dT%H%M%SZ"


def monthly_index(kind: StoreIndex, race_timestamp: datetime) -> str:
    """The index a document of ``kind`` goes to: ``<kind>-YYYY-MM`` of the race timestamp (a UTC
    :class:`datetime`), as Rally's ``index_name`` methods compute it."""
    return f"{kind.value}-{race_timestamp:%Y-%m}"


def index_pattern(kind: StoreIndex) -> str:
    """The pattern that matches every month of ``kind`` (``rally-races-*``...), for searches."""
    return f"{kind.value}-*"
