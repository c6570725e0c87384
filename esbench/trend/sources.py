"""Where a trend's races come from: the SQLite results store or the Elasticsearch metrics store.

Each source applies what it can filter on to its query (track, challenge, status, user tags, start
time) and :func:`esbench.trend.select.select_races` applies the whole selection again, so both
sources give the same races in the same order.
"""

from __future__ import annotations

from pathlib import Path

from esbench.records import RaceResult, RaceStatus
from esbench.results.es_read import read_races
from esbench.results.metrics_store import MetricsStoreSettings
from esbench.results.race_listing import RaceFilter
from esbench.results.store import ResultsStore
from esbench.trend.select import TrendSelection, select_races


def races_from_results_db(path: Path | None, selection: TrendSelection) -> list[RaceResult]:
    """The selected races of the results store at ``path`` (None: ``ESBENCH_HOME/results.db``),
    oldest first.

    Raises:
        StoreError: the store cannot be opened or read.
    """
    with ResultsStore.open(path) as store:
        races = store.find(
            user_tags=selection.user_tags or None, track=selection.track, status=RaceStatus.COMPLETED.value
        )
    return select_races(races, selection)


def races_from_metrics_store(
    settings: MetricsStoreSettings, selection: TrendSelection, *, environment: str | None = None
) -> list[RaceResult]:
    """The selected races of the metrics store of ``settings``, oldest first: Rally's races (of
    ``environment``; None: any) and esbench's (:func:`esbench.results.es_read.read_races`).

    Raises:
        StoreError: the metrics store is unreachable or rejects the search.
    """
    flt = RaceFilter(
        track=selection.track,
        challenge=selection.challenge,
        status=RaceStatus.COMPLETED.value,
        user_tags=selection.user_tags,
        since=selection.since,
        environment=environment,
    )
    return select_races(read_races(settings, flt), selection)
