"""``racecontrol.run_race`` called directly (the composition root, without the CLI) against a real node.

The cluster rows of a full race must follow from what the race did: 1,000 documents bulk-indexed
into a fresh index, refreshed, then searched. Each row is checked against an independent reading of
the node's APIs after the race, in the returned race, in the stored race, in results.json and in the
printed report.
"""

from __future__ import annotations

import io
import json
import uuid

import pytest
from harness import TRACKS

from esbench.console import Console
from esbench.home import home_subdir
from esbench.racecontrol import run_race
from esbench.results.store import ResultsStore
from esbench.settings import RaceSettings, ReportSettings

TRACK = TRACKS / "compare-tiny"


def test_full_race_cluster_rows_match_the_node_and_are_stored_and_reported(es_hosts, es, tmp_path):
    index = f"esbench-it-racecontrol-{uuid.uuid4().hex[:8]}"
    report_file = tmp_path / "report.txt"
    out = io.StringIO()
    try:
        race = run_race(
            RaceSettings(
                track_path=TRACK,
                track_params={"index_name": index, "search_time_period": 2, "search_target_throughput": 20},
                target_hosts=tuple(es_hosts),
                user_tags={"test": "racecontrol"},
                report=ReportSettings(fmt="text", file=report_file),
            ),
            console=Console(out),
        )
        assert race.status == "completed", race.error
        rows = {m.name: m for m in race.cluster_metrics}

        # The race's index holds what the race indexed. Rally's cluster rows cover every index of the
        # cluster (_stats/_all at the end of the race); nothing writes to the node between the race's
        # end and this reading, so the cumulative values must be equal.
        assert es.count(index=index)["count"] == 1000
        stats = es.indices.stats()["_all"]
        assert rows["Cumulative indexing time of primary shards"].unit == "min"
        assert rows["Cumulative indexing time of primary shards"].value == pytest.approx(
            stats["primaries"]["indexing"]["index_time_in_millis"] / 60_000
        )
        assert rows["Cumulative indexing time of primary shards"].value > 0  # 1,000 documents took time
        # Scheduled refreshes may add to the count after the race; it never shrinks.
        refreshes = rows["Cumulative refresh count of primary shards"].value
        assert 0 < refreshes <= stats["primaries"]["refresh"]["total"]
        # A background merge may still shrink the segment count after the race, never grow it.
        assert rows["Segment count"].value >= stats["primaries"]["segments"]["count"] >= 1
        assert rows["Store size"].value > 0

        bulk = race.task("index-append")
        assert bulk is not None and bulk.total_weight == 1000 and bulk.error_count == 0
        search = race.task("term-query")
        assert search is not None and search.sample_count > 0 and search.error_count == 0

        # The same rows in the store, in results.json and in the printed report.
        stored = ResultsStore.open().get(race.race_id)
        assert stored.cluster_metrics == race.cluster_metrics
        assert stored.user_tags == {"test": "racecontrol"}
        results_json = json.loads((home_subdir("races") / race.race_id / "results.json").read_text())
        assert {m["name"]: m["value"] for m in results_json["cluster_metrics"]} == {
            m.name: m.value for m in race.cluster_metrics
        }
        report = report_file.read_text()
        assert "Cumulative indexing time of primary shards" in report
        segment_line = next(line for line in report.splitlines() if "Segment count" in line)
        assert str(int(rows["Segment count"].value)) in segment_line
    finally:
        es.indices.delete(index=index, ignore_unavailable=True)
