"""A looped bulk on a real node: the bodies sent as views of the spool index the same documents.

From its second pass over the corpus a looped bulk sends its bodies as views of a spool file
(esbench/corpus/spool.py) instead of copies. If a view's boundaries or bytes were off, the node
would reject lines, index fewer or other documents, or index each document a different number of
times; this test counts what it indexed, per document, and compares stored sources with the
corpus lines.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch
from harness import esbench

DOCS, BULK_SIZE, ITERATIONS = 300, 50, 20  # 6 bodies a pass: 3 whole passes and the first 2 bodies again

TRACK_JSON = """{
  "version": 2,
  "description": "esbench's issue-25 test: a looped bulk, 3.3 passes over 300 documents.",
  "indices": [{"name": "{{ index_name }}", "body": "index.json"}],
  "corpora": [
    {
      "name": "looped-views",
      "documents": [
        {"source-file": "documents.json", "document-count": @DOCS@, "target-index": "{{ index_name }}"}
      ]
    }
  ],
  "schedule": [
    {"operation": {"operation-type": "delete-index"}},
    {"operation": {"operation-type": "create-index"}},
    {
      "operation": {"operation-type": "cluster-health", "index": "{{ index_name }}",
                    "request-params": {"wait_for_status": "green"}, "retry-until-success": true}
    },
    {
      "name": "index-looped",
      "operation": {"operation-type": "bulk", "bulk-size": @BULK_SIZE@, "looped": true},
      "clients": 1,
      "warmup-iterations": 0,
      "iterations": @ITERATIONS@
    },
    {"operation": {"operation-type": "refresh", "index": "{{ index_name }}"}}
  ]
}
"""
for _name, _value in (("DOCS", DOCS), ("BULK_SIZE", BULK_SIZE), ("ITERATIONS", ITERATIONS)):
    TRACK_JSON = TRACK_JSON.replace(f"@{_name}@", str(_value))


@pytest.fixture
def looped_track(tmp_path: Path, es_hosts: list[str]) -> Iterator[tuple[Path, str, list[str]]]:
    directory = tmp_path / "looped-views"
    directory.mkdir()
    (directory / "track.json").write_text(TRACK_JSON, encoding="utf-8")
    (directory / "index.json").write_text(
        '{"settings": {"index.number_of_replicas": 0, "index.number_of_shards": 1}}', encoding="utf-8"
    )
    # Lengths vary so that body boundaries fall anywhere in the spool's pages; every other body is
    # over the transport's 4 KB join limit, so both ways of sending a body (joined to its head, or
    # after it as a buffer of its own) carry views.
    lines = [
        json.dumps(
            {"n": i, "tag": "é" * (i % 3)} if (i // BULK_SIZE) % 2 == 0 else {"n": i, "pad": "x" * (i % 300)},
            ensure_ascii=False,
        )
        for i in range(DOCS)
    ]
    (directory / "documents.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    index = f"looped-{uuid.uuid4().hex[:8]}"
    yield directory, index, lines
    es = Elasticsearch(f"http://{es_hosts[0]}")
    es.options(ignore_status=404).indices.delete(index=index)
    es.close()


def test_views_of_later_passes_index_every_document_as_often_as_it_was_sent(
    looped_track: tuple[Path, str, list[str]], es_hosts: list[str]
) -> None:
    directory, index, lines = looped_track
    result = esbench(
        "race",
        f"--track-path={directory}",
        f"--target-hosts={es_hosts[0]}",
        f"--track-params=index_name:{index}",
        "--on-error=abort",
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("[SUCCESS]"), result.stderr

    es = Elasticsearch(f"http://{es_hosts[0]}")
    try:
        assert es.count(index=index)["count"] == ITERATIONS * BULK_SIZE
        # Passes 1-3 send every document; the fourth pass sends the first two bodies again.
        again = 2 * BULK_SIZE
        per_doc = es.search(index=index, size=0, aggs={"n": {"terms": {"field": "n", "size": DOCS}}})[
            "aggregations"
        ]["n"]["buckets"]
        counts = {bucket["key"]: bucket["doc_count"] for bucket in per_doc}
        assert counts == {n: 4 if n < again else 3 for n in range(DOCS)}
        # Stored sources are the corpus lines, byte for byte once parsed (the spool's pages hold
        # documents of every length, multi-byte characters included).
        hits = es.search(index=index, size=DOCS, query={"terms": {"n": list(range(0, DOCS, 17))}})["hits"][
            "hits"
        ]
        assert {json.dumps(hit["_source"], ensure_ascii=False) for hit in hits} == {
            lines[n] for n in range(0, DOCS, 17)
        }
    finally:
        es.close()
