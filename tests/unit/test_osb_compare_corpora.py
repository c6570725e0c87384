"""The pure parts of benchmarks/osb_compare.py and its corpus generator: documents that fit a
workload's mappings, where each tool finds them, and how the tools' results are read."""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

import pytest

from esbench.track import load_track

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import osb_compare  # noqa: E402
import osb_compare_corpora as corpora  # noqa: E402

MAPPING = {
    "properties": {
        "pickup": {"type": "date", "format": "yyyy-MM-dd HH:mm:ss||epoch_millis"},
        "seen": {"type": "date", "format": "epoch_second"},
        "created": {"type": "date"},
        "fare": {"type": "scaled_float", "scaling_factor": 100},
        "count": {"type": "integer"},
        "vendor": {"type": "keyword"},
        "body": {"type": "text"},
        "where": {"type": "geo_point"},
        "vec": {"type": "knn_vector", "dimension": 5},
        "query": {"type": "percolator"},
        "answers": {"type": "nested", "properties": {"user": {"type": "keyword"}}},
        "meta": {"properties": {"ok": {"type": "boolean"}, "ip": {"type": "ip"}}},
    }
}


@pytest.fixture
def workload(tmp_path: Path) -> Path:
    root = tmp_path / "rides"
    root.mkdir()
    (root / "index.json").write_text(
        json.dumps({"settings": {"index.number_of_shards": 1}, "mappings": MAPPING})
    )
    (root / "workload.json").write_text(
        json.dumps(
            {
                "version": 2,
                "indices": [{"name": "rides", "body": "index.json"}],
                "corpora": [
                    {
                        "name": "rides",
                        "base-url": "https://example.invalid/rides",
                        "documents": [
                            {
                                "source-file": "documents.json.bz2",
                                "document-count": 50000,
                                "target-index": "rides",
                            }
                        ],
                    }
                ],
                "test_procedures": [
                    {"name": "p", "default": True, "schedule": [{"operation": {"operation-type": "refresh"}}]}
                ],
            }
        )
    )
    return root


def test_documents_fit_the_mapping(workload: Path) -> None:
    track = load_track(path=workload, test_mode=True)
    lines = corpora.documents(track, "rides", "rides")
    assert len(lines) == corpora.DOCS
    docs = [json.loads(line) for line in lines]
    assert docs != [docs[0]] * len(docs)
    for doc in docs:
        datetime.datetime.strptime(doc["pickup"], "%Y-%m-%d %H:%M:%S")
        assert isinstance(doc["seen"], int) and doc["seen"] > 1_400_000_000
        datetime.datetime.fromisoformat(doc["created"].replace("Z", "+00:00"))
        assert isinstance(doc["fare"], float) and isinstance(doc["count"], int)
        assert isinstance(doc["vendor"], str) and len(doc["body"].split()) >= 3
        assert set(doc["where"]) == {"lat", "lon"}
        assert len(doc["vec"]) == 5
        # A percolator field holds a query on a text field of the same mapping.
        assert list(doc["query"]["match"]) == ["body"]
        assert isinstance(doc["answers"], list) and "user" in doc["answers"][0]
        assert isinstance(doc["meta"]["ok"], bool) and doc["meta"]["ip"].count(".") == 3
    # Seeded by workload, corpus and index: the same documents for both tools.
    assert corpora.documents(track, "rides", "rides") == lines


def test_corpora_go_where_each_tool_reads_them_in_test_mode(workload: Path, tmp_path: Path) -> None:
    track = load_track(path=workload, test_mode=True)
    osb, esbench = tmp_path / "osb", tmp_path / "esbench"
    written = corpora.write_corpora(track, [osb, esbench])
    # Both tools' test-mode name for documents.json.bz2, decompressed: documents-1k.json.
    assert written == [osb / "rides" / "documents-1k.json", esbench / "rides" / "documents-1k.json"]
    assert all(len(p.read_text().splitlines()) == 1000 for p in written)
    corpora.write_osb_offset_tables(written[:1])
    offsets = osb / "rides" / "documents-1k.json.offset"
    assert offsets.read_text() == ""
    assert offsets.stat().st_mtime >= written[0].stat().st_mtime


@pytest.mark.parametrize(
    ("fmt", "check"),
    [
        ("epoch_millis", lambda v: isinstance(v, int) and v > 1_400_000_000_000),
        ("strict_date_optional_time||epoch_second", lambda v: v.endswith("Z") and "T" in v),
        ("yyyy-MM-dd'T'HH:mm:ss.SSSZ", lambda v: len(v) == 29 and v[10] == "T" and v.endswith("+00:00")),
        ("date", lambda v: len(v) == 10 and v[4] == "-"),
    ],
)
def test_dates_follow_the_first_format(fmt: str, check) -> None:  # type: ignore[no-untyped-def]
    import random

    assert check(corpora._date(fmt, random.Random(1)))


def test_results_are_read_from_the_csv_both_tools_write(tmp_path: Path) -> None:
    csv = tmp_path / "r.csv"
    csv.write_text(
        "Metric,Task,Value,Unit\n"
        "Cumulative indexing time of primary shards,,0.1,min\n"
        "Min Throughput,index,100,docs/s\n"
        "error rate,index,0.00,%\n"
        "error rate,create-index,100.00,%\n"
        "Mean Throughput,only-throughput,3,ops/s\n"
    )
    assert osb_compare.parse_results(csv) == {"index": 0.0, "create-index": 100.0, "only-throughput": None}
    assert osb_compare.parse_results(tmp_path / "missing.csv") == {}


def test_the_last_error_keeps_the_indented_cause() -> None:
    output = (
        "[INFO] Racing\n[ERROR] first\n[INFO] FAILURE\n"
        "[ERROR] Cannot run. Error in task executor\n"
        "\tCannot find [x.offset]. Please disable offline mode\n\n"
    )
    assert osb_compare.last_error(output) == (
        "[ERROR] Cannot run. Error in task executor Cannot find [x.offset]. Please disable offline mode"
    )
    assert osb_compare.last_error("[INFO] all good\n") == ""


def test_query_files_of_a_workload_plugin_are_written_beside_it(tmp_path: Path) -> None:
    import bz2

    (tmp_path / "workload_queries.json").write_text(
        json.dumps(
            [{"name": "quora", "source-file": "queries.json.bz2", "base-url": "https://example.invalid"}]
        )
    )
    written = corpora.write_query_files(tmp_path)
    assert written == [tmp_path / "queries.json.bz2", tmp_path / "queries.json"]
    plain = (tmp_path / "queries.json").read_bytes()
    assert bz2.decompress((tmp_path / "queries.json.bz2").read_bytes()) == plain
    assert all("text" in json.loads(line) for line in plain.decode().splitlines())
    assert corpora.write_query_files(tmp_path / "none") == []
