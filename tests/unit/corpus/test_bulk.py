"""BulkSource: each client's bodies, Rally's slicing, action lines, looping, ingest percentage, conflicts."""

from __future__ import annotations

import itertools
import json
import pickle
from collections import Counter
from pathlib import Path

import pytest
from corpus_helpers import body_docs, prepared, write_docs

from esbench.corpus.bulk import BulkSource, action_line, select_files
from esbench.corpus.conflicts import FeistelPermutation, IdConflicts
from esbench.corpus.slicing import bounds
from esbench.exceptions import DataError, TrackValidationError


def _all_docs(files, clients: int, bulk_size: int, **kwargs) -> list[tuple[str, int]]:
    seen = []
    for client in range(clients):
        source = BulkSource(files, client_index=client, num_clients=clients, bulk_size=bulk_size, **kwargs)
        for body, count in source:
            pairs = body_docs(body)
            assert len(pairs) == count <= bulk_size
            seen.extend((doc["corpus"], doc["id"]) for _, doc in pairs)
    return seen


@pytest.mark.parametrize("clients", [1, 2, 3, 7])
@pytest.mark.parametrize("bulk_size", [1, 4, 50, 1000])
def test_every_document_is_sent_exactly_once(tmp_path: Path, clients: int, bulk_size: int) -> None:
    a = prepared(write_docs(tmp_path / "a.json", 101, corpus="a"), 101, corpus="a")
    b = prepared(write_docs(tmp_path / "b.json", 64, corpus="b", newline_at_end=False), 64, corpus="b")
    seen = _all_docs([a, b], clients, bulk_size)
    expected = [("a", i) for i in range(101)] + [("b", i) for i in range(64)]
    assert Counter(seen) == Counter(expected)


def test_each_client_reads_its_rally_slice_in_file_order(tmp_path: Path) -> None:
    f = prepared(write_docs(tmp_path / "a.json", 103), 103)
    for client in range(4):
        offset, docs, _ = bounds(103, client, 4, False)
        source = BulkSource([f], client_index=client, num_clients=4, bulk_size=10)
        ids = [doc["id"] for body, _ in source for _, doc in body_docs(body)]
        assert ids == list(range(offset, offset + docs))
        assert source.docs_per_pass == docs and source.bulks_per_pass == -(-docs // 10)


def test_bodies_use_rallys_action_line_and_raw_document_bytes(tmp_path: Path) -> None:
    path = write_docs(tmp_path / "a.json", 3)
    f = prepared(path, 3, target_index="logs-x")
    ((body, count),) = list(BulkSource([f], client_index=0, num_clients=1, bulk_size=10))
    action = b'{"index": {"_index": "logs-x"}}\n'
    assert count == 3
    assert body == b"".join(action + line + b"\n" for line in path.read_bytes().split(b"\n")[:-1])


def test_last_body_of_each_file_slice_may_be_smaller(tmp_path: Path) -> None:
    a = prepared(write_docs(tmp_path / "a.json", 12), 12, corpus="a")
    b = prepared(write_docs(tmp_path / "b.json", 7), 7, corpus="a")
    counts = [n for _, n in BulkSource([a, b], client_index=0, num_clients=1, bulk_size=5)]
    assert counts == [5, 5, 2, 5, 2]


def test_data_streams_get_create_actions_and_index_overrides_target(tmp_path: Path) -> None:
    ds = prepared(write_docs(tmp_path / "a.json", 2), 2, target_index=None, target_data_stream="logs-ds")
    idx = prepared(write_docs(tmp_path / "b.json", 2), 2, corpus="b", target_index="orig")
    ((body, _),) = list(BulkSource([ds], client_index=0, num_clients=1, bulk_size=5))
    assert [a for a, _ in body_docs(body)] == [{"create": {"_index": "logs-ds"}}] * 2
    requests = list(BulkSource([idx], client_index=0, num_clients=1, bulk_size=5, index="other").requests())
    assert [a for a, _ in body_docs(requests[0].body)] == [{"index": {"_index": "other"}}] * 2
    assert requests[0].index == "other"
    assert action_line('we"ird') == b'{"index": {"_index": "we\\"ird"}}\n'


def test_files_with_action_lines_pass_through(tmp_path: Path) -> None:
    path = write_docs(tmp_path / "a.json", 9, action_lines=True)
    f = prepared(path, 9, action_lines=True, target_index="idx")
    out = []
    for client in range(2):
        for request in BulkSource([f], client_index=client, num_clients=2, bulk_size=2).requests():
            out.append(request.body)
            assert request.doc_count == len(body_docs(request.body))
            assert request.index == "idx"
    assert b"".join(out) == path.read_bytes()


def test_looped_restarts_the_slice(tmp_path: Path) -> None:
    f = prepared(write_docs(tmp_path / "a.json", 10), 10)
    source = BulkSource([f], client_index=1, num_clients=2, bulk_size=2, looped=True)
    bodies = list(itertools.islice(source, 7))  # 3 bodies per pass (5 docs)
    ids = [[d["id"] for _, d in body_docs(b)] for b, _ in bodies]
    assert ids == [[5, 6], [7, 8], [9], [5, 6], [7, 8], [9], [5, 6]]


def test_looped_without_anything_to_send_ends(tmp_path: Path) -> None:
    f = prepared(write_docs(tmp_path / "a.json", 1), 1)
    assert list(BulkSource([f], client_index=0, num_clients=2, bulk_size=2, looped=True)) == []


def test_ingest_percentage_takes_the_first_bulks_rounded_up(tmp_path: Path) -> None:
    a = prepared(write_docs(tmp_path / "a.json", 12, corpus="a"), 12, corpus="a")
    b = prepared(write_docs(tmp_path / "b.json", 12, corpus="b"), 12, corpus="b")
    # Bulks of 5: 5, 5, 2 per file, 6 in all; 60 % -> ceil(3.6) = 4 bulks: all of a, the first of b.
    source = BulkSource([a, b], client_index=0, num_clients=1, bulk_size=5, ingest_percentage=60)
    seen = [(d["corpus"], d["id"]) for body, _ in source for _, d in body_docs(body)]
    assert source.bulks_per_pass == 4 and source.docs_per_pass == 17
    assert seen == [("a", i) for i in range(12)] + [("b", i) for i in range(5)]
    assert list(BulkSource([a, b], client_index=0, num_clients=1, bulk_size=5, ingest_percentage=0)) == []


def test_source_pickles_before_iteration(tmp_path: Path) -> None:
    f = prepared(write_docs(tmp_path / "a.json", 30), 30)
    source = BulkSource([f], client_index=0, num_clients=3, bulk_size=4)
    clone = pickle.loads(pickle.dumps(source))
    assert list(clone) == list(source)


def test_stale_offset_index_is_a_data_error(tmp_path: Path) -> None:
    path = write_docs(tmp_path / "a.json", 30)
    f = prepared(path, 30)
    write_docs(path, 31)
    with pytest.raises(DataError, match="missing or stale"):
        list(BulkSource([f], client_index=0, num_clients=1, bulk_size=4))


def test_file_without_target_is_rejected(tmp_path: Path) -> None:
    f = prepared(write_docs(tmp_path / "a.json", 3), 3, target_index=None)
    with pytest.raises(DataError, match="target-index"):
        BulkSource([f], client_index=0, num_clients=1, bulk_size=4)
    assert len(list(BulkSource([f], client_index=0, num_clients=1, bulk_size=4, index="x"))) == 1


def test_select_files_follows_rallys_filters(tmp_path: Path) -> None:
    a = prepared(write_docs(tmp_path / "a.json", 3), 3, corpus="a", target_index="i1")
    b = prepared(write_docs(tmp_path / "b.json", 3), 3, corpus="b", target_index="i2")
    c = prepared(
        write_docs(tmp_path / "c.json", 3), 3, corpus="b", target_index=None, target_data_stream="ds"
    )
    assert select_files([a, b, c]) == (a, b, c)
    assert select_files([a, b, c], corpora="b") == (b, c)
    assert select_files([a, b, c], indices=["i2"]) == (b,)
    assert select_files([a, b, c], data_streams="ds") == (c,)
    with pytest.raises(TrackValidationError, match="match no document file"):
        select_files([a, b, c], corpora=["a"], indices=["i2"])


# --- id conflicts ---------------------------------------------------------------------------


def _actions(
    files, clients: int, conflicts: IdConflicts, bulk_size: int = 7
) -> list[list[tuple[str, str, dict]]]:
    per_client = []
    for client in range(clients):
        rows = []
        for body, _ in BulkSource(files, client_index=client, num_clients=clients, bulk_size=bulk_size,
                                  id_conflicts=conflicts):  # fmt: skip
            for action, doc in body_docs(body):
                ((op, meta),) = action.items()
                rows.append((op, meta["_id"], doc))
        per_client.append(rows)
    return per_client


def test_sequential_ids_without_conflicts_are_offset_plus_position(tmp_path: Path) -> None:
    f = prepared(write_docs(tmp_path / "a.json", 20), 20)
    rows = _actions([f], 2, IdConflicts(kind="sequential", probability=0))
    assert [r[1] for r in rows[0]] == [f"{i:010d}" for i in range(0, 10)]
    assert [r[1] for r in rows[1]] == [f"{i:010d}" for i in range(10, 20)]
    assert all(op == "index" for client in rows for op, _, _ in client)


def test_random_ids_are_a_permutation_of_the_slice(tmp_path: Path) -> None:
    f = prepared(write_docs(tmp_path / "a.json", 300), 300)
    rows = _actions([f], 3, IdConflicts(kind="random", probability=0, seed=5))
    for client, client_rows in enumerate(rows):
        ids = [int(r[1]) for r in client_rows]
        assert sorted(ids) == list(range(client * 100, client * 100 + 100))
        assert ids != sorted(ids)
    assert rows == _actions([f], 3, IdConflicts(kind="random", probability=0, seed=5))


def test_conflicts_reuse_issued_ids_and_update_wraps_the_document(tmp_path: Path) -> None:
    f = prepared(write_docs(tmp_path / "a.json", 400), 400)
    (rows,) = _actions([f], 1, IdConflicts(kind="sequential", probability=30, on_conflict="update", seed=1))
    issued: set[str] = set()
    updates = 0
    for op, doc_id, doc in rows:
        if op == "update":
            updates += 1
            assert doc_id in issued  # only ids issued before are reused
            assert set(doc) == {"doc"} and doc["doc"]["corpus"] == "c"
        else:
            assert doc_id == f"{len(issued):010d}"
            issued.add(doc_id)
    assert len(rows) == 400
    assert 70 <= updates <= 170  # ~30 %


def test_recency_biases_conflicts_to_recent_ids(tmp_path: Path) -> None:
    f = prepared(write_docs(tmp_path / "a.json", 2000), 2000)

    def mean_age(recency: float) -> float:
        (rows,) = _actions(
            [f], 1, IdConflicts(kind="sequential", probability=50, recency=recency, seed=3), 100
        )
        issued = 0
        ages = []
        for _op, doc_id, _ in rows:
            if doc_id == f"{issued:010d}":
                issued += 1
            else:
                ages.append(issued - int(doc_id))
        return sum(ages) / len(ages)

    assert mean_age(1.0) < mean_age(0.0) / 5


def test_conflicts_are_rejected_for_action_line_files_and_data_streams(tmp_path: Path) -> None:
    amd = prepared(write_docs(tmp_path / "a.json", 2, action_lines=True), 2, action_lines=True)
    ds = prepared(write_docs(tmp_path / "b.json", 2), 2, target_index=None, target_data_stream="ds")
    for f, reason in ((amd, "already contains an action and meta-data line"), (ds, "data stream")):
        with pytest.raises(TrackValidationError, match=reason):
            BulkSource(
                [f], client_index=0, num_clients=1, bulk_size=4, id_conflicts=IdConflicts(kind="random")
            )


def test_id_conflict_params_are_validated_like_rally() -> None:
    assert IdConflicts.from_params({}) is None
    parsed = IdConflicts.from_params(
        {"conflicts": "random", "conflict-probability": 10, "on-conflict": "update"}
    )
    assert parsed == IdConflicts(kind="random", probability=10.0, on_conflict="update", recency=0.0)
    assert IdConflicts.from_params({"conflicts": "sequential"}).probability == 25.0  # type: ignore[union-attr]
    bad_params = (
        ({"conflicts": "x"}, r"Unknown 'conflicts' setting \[x\].*'sequential' or 'random'"),
        ({"conflicts": "random", "conflict-probability": 101}, r"'conflict-probability' must be in"),
        ({"conflicts": "random", "on-conflict": "delete"}, r"Unknown 'on-conflict' setting \[delete\]"),
        ({"conflicts": "random", "recency": 2}, r"'recency' must be in the range \[0.0, 1.0\] but was 2.0"),
    )
    for bad, message in bad_params:
        with pytest.raises(TrackValidationError, match=message):
            IdConflicts.from_params(bad)


@pytest.mark.parametrize("n", [1, 2, 3, 17, 1000, 4097])
def test_feistel_permutation_is_a_bijection(n: int) -> None:
    import random

    perm = FeistelPermutation(n, random.Random(n))
    assert sorted(perm(i) for i in range(n)) == list(range(n))


def test_bodies_are_bounded_by_bulk_size_on_large_files(tmp_path: Path) -> None:
    f = prepared(write_docs(tmp_path / "a.json", 5000), 5000, every=1000)
    longest = max(len(line) for line in f.path.read_bytes().split(b"\n")) + 1
    for body, count in BulkSource([f], client_index=0, num_clients=1, bulk_size=100):
        assert count <= 100 and len(body) <= 100 * (longest + len(action_line("idx")))
    assert json.loads(body.split(b"\n")[-2])["id"] == 4999
