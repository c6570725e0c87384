"""Rally's partitioning of corpus files among bulk clients.

Source: esrally/track/params.py (bounds, create_readers).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_helpers import prepared, write_docs

from esbench.corpus.slicing import bounds, client_slices, number_of_bulks


def test_bounds_literal_values_from_rallys_rule() -> None:
    # One client reads everything.
    assert bounds(1000, 0, 1, False) == (0, 1000, 1000)
    # Even split.
    assert bounds(200, 0, 2, False) == (0, 100, 100)
    assert bounds(200, 1, 2, False) == (100, 100, 100)
    # 2.5 docs per client: round() is half-to-even, so client 0 gets 2 and client 1 gets 3.
    assert bounds(5, 0, 2, False) == (0, 2, 2)
    assert bounds(5, 1, 2, False) == (2, 3, 3)
    # Action-and-meta-data files: offsets and lines double, documents do not.
    assert bounds(5, 1, 2, True) == (4, 3, 6)
    # More clients than documents: some clients get nothing.
    # (0.5 docs per client: boundaries round(0), round(0.5)=0, round(1.0)=1, round(1.5)=2, round(2.0)=2)
    assert [bounds(2, i, 4, False)[1] for i in range(4)] == [0, 1, 1, 0]


@pytest.mark.parametrize("total", [0, 1, 7, 100, 145, 1001, 20_000_000])
@pytest.mark.parametrize("clients", [1, 2, 3, 8, 16, 31])
def test_bounds_partition_every_document_exactly_once(total: int, clients: int) -> None:
    pos = 0
    for client in range(clients):
        offset, docs, lines = bounds(total, client, clients, False)
        assert offset == pos and lines == docs >= 0
        # Rally's rule, spelled out: round(D/N * i) .. round(D/N * (i + 1)).
        assert offset == round(total / clients * client)
        pos += docs
    assert pos == total


def test_bounds_rejects_bad_client_index() -> None:
    with pytest.raises(ValueError, match=r"client_index 2 not in \[0, 2\)"):
        bounds(10, 2, 2, False)


def test_reading_order_staggers_corpora_like_rally(tmp_path: Path) -> None:
    a1 = prepared(write_docs(tmp_path / "a1.json", 10), 10, corpus="a")
    a2 = prepared(write_docs(tmp_path / "a2.json", 10), 10, corpus="a")
    b1 = prepared(write_docs(tmp_path / "b1.json", 10), 10, corpus="b")
    files = [a1, a2, b1]

    def order(client: int, clients: int) -> list[str]:
        return [s.file.path.name for s in client_slices(files, client, clients)]

    # Client 0 starts with corpus a, client 1 with corpus b; files alternate between corpora.
    assert order(0, 2) == ["a1.json", "b1.json", "a2.json"]
    assert order(1, 2) == ["b1.json", "a1.json", "a2.json"]
    assert order(2, 3) == ["a1.json", "b1.json", "a2.json"]


def test_empty_slices_are_skipped_and_bulks_round_up_per_file(tmp_path: Path) -> None:
    small = prepared(write_docs(tmp_path / "s.json", 1), 1, corpus="a")
    big = prepared(write_docs(tmp_path / "b.json", 25), 25, corpus="a")
    slices = client_slices([small, big], 0, 2)
    assert [s.file.path.name for s in slices] == ["b.json"]  # client 0 gets round(0.5) = 0 docs of s.json
    assert slices[0].docs == 12
    both = client_slices([small, big], 1, 2)
    assert [(s.file.path.name, s.docs) for s in both] == [("s.json", 1), ("b.json", 13)]
    assert number_of_bulks(both, 5) == 1 + 3
