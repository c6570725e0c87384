"""Rally's test-mode rules applied by load_track(test_mode=True)."""

from __future__ import annotations

import pytest
from track_test_helpers import simple_track

from esbench.track import load_track
from esbench.track.testmode import is_archive, one_k_source_file, splitext


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("documents.json.bz2", "documents-1k.json.bz2"),
        ("documents.json", "documents-1k.json"),
        ("d-2.json.zst", "d-2-1k.json.zst"),
        ("rides.json.tar.gz", "rides-1k.json.tar.gz"),
        ("x.ndjson.gz", "x-1k.ndjson.gz"),
    ],
)
def test_one_k_names(name: str, expected: str) -> None:
    assert one_k_source_file(name) == expected


def test_archive_detection() -> None:
    assert splitext("a.json.tar.bz2") == ("a.json", ".tar.bz2")
    assert is_archive("a.json.zst") and is_archive("a.tgz") and not is_archive("a.json")


def test_test_mode_rules(make_track) -> None:
    spec = simple_track(
        corpora=[
            {
                "name": "c",
                "documents": [
                    {
                        "source-file": "big.json.bz2",
                        "document-count": 5000,
                        "compressed-bytes": 9,
                        "uncompressed-bytes": 99,
                    },
                    {"source-file": "small.json", "document-count": 1000, "uncompressed-bytes": 77},
                ],
            }
        ],
        schedule=[
            {
                "operation": "search",
                "clients": 2,
                "warmup-iterations": 500,
                "iterations": 1000,
                "target-throughput": 10,
            },
            {"operation": "refresh", "clients": 4, "warmup-iterations": 3, "iterations": 1},
            {
                "operation": "bulk",
                "warmup-time-period": 120,
                "time-period": 600,
                "target-throughput": "9 docs/s",
            },
            {"operation": "force-merge", "time-period": 5, "target-interval": 2},
            {"parallel": {"time-period": 60, "tasks": [{"operation": "node-stats", "target-throughput": 1}]}},
        ],
    )
    normal = load_track(path=make_track({"track.json": spec}))
    track = load_track(path=normal.root, test_mode=True)
    big, small = track.corpora[0].documents
    assert (big.source_file, big.document_count, big.compressed_bytes, big.uncompressed_bytes) == (
        "big-1k.json.bz2",
        1000,
        None,
        None,
    )
    assert small == normal.corpora[0].documents[1]
    search, refresh, bulk, fm, node_stats = track.default_challenge.tasks()
    assert (search.warmup_iterations, search.iterations) == (2, 2)
    assert (refresh.warmup_iterations, refresh.iterations) == (3, 1)
    assert (bulk.warmup_time_period, bulk.time_period) == (0.0, 10.0)
    assert fm.time_period == 5.0
    assert node_stats.time_period == 10.0
    for task in (search, bulk, fm, node_stats):
        assert not task.throttled
        assert "target-throughput" not in task.params and "target-interval" not in task.params
    # The normal load is untouched.
    assert normal.default_challenge.tasks()[0].iterations == 1000
