"""Bulk bodies as views (issue 25): the same bytes as the copies, in every pass, and no file left.

A looped slice's first pass fills a spool (an unlinked temporary file beside the corpus); later
passes hand out views of its mapping. Files with their own action lines are views of the corpus
mapping from the start. Whatever goes wrong with the spool, the bodies stay copies.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from pathlib import Path

import pytest
from corpus_helpers import prepared, write_docs

from esbench.corpus import spool as spool_module
from esbench.corpus.bulk import BulkRequest, BulkSource, action_line
from esbench.corpus.mapped import MappedRange
from esbench.corpus.spool import BodySpool

_HAS_ROOM = spool_module.has_room


@pytest.fixture(autouse=True)
def _room_for_spools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spools are written whatever the test machine's disk holds (the room rule has its own test)."""
    monkeypatch.setattr(spool_module, "has_room", lambda directory, size: True)


def _requests(source: BulkSource, count: int, *, views: bool) -> list[BulkRequest]:
    return list(itertools.islice(source.requests(views=views), count))


def _as_tuples(requests: list[BulkRequest]) -> list[tuple[bytes, int, str | None]]:
    return [(bytes(r.body), r.doc_count, r.index) for r in requests]


@pytest.mark.parametrize("newline_at_end", [True, False])
@pytest.mark.parametrize(("clients", "bulk_size"), [(1, 4), (2, 3), (3, 50)])
def test_looped_views_send_the_bytes_of_the_copies_in_every_pass(
    tmp_path: Path, newline_at_end: bool, clients: int, bulk_size: int
) -> None:
    a = prepared(
        write_docs(tmp_path / "a.json", 23, corpus="a", newline_at_end=newline_at_end), 23, corpus="a"
    )
    b = prepared(write_docs(tmp_path / "b.json", 11, corpus="b"), 11, corpus="b", target_index="other")
    for client in range(clients):
        source = BulkSource(
            [a, b], client_index=client, num_clients=clients, bulk_size=bulk_size, looped=True
        )
        per_pass = source.bulks_per_pass
        copies = _requests(source, 4 * per_pass, views=False)
        viewed = _requests(source, 4 * per_pass, views=True)
        assert _as_tuples(viewed) == _as_tuples(copies)
        assert all(isinstance(r.body, bytes) for r in copies)
        # The first pass builds copies (and fills the spool); every later pass sends views.
        assert all(isinstance(r.body, bytes) for r in viewed[:per_pass])
        assert all(isinstance(r.body, memoryview) for r in viewed[per_pass:])
        # The requests of a spooled pass are built once and handed out again on every later pass.
        assert all(
            a is b
            for a, b in zip(viewed[per_pass : 2 * per_pass], viewed[2 * per_pass : 3 * per_pass], strict=True)
        )


def test_files_with_action_lines_are_views_of_the_corpus_from_the_first_body(tmp_path: Path) -> None:
    path = write_docs(tmp_path / "a.json", 9, action_lines=True, newline_at_end=False)
    f = prepared(path, 9, action_lines=True)
    source = BulkSource([f], client_index=0, num_clients=1, bulk_size=2)
    viewed = _requests(source, 10, views=True)
    assert _as_tuples(viewed) == _as_tuples(_requests(source, 10, views=False))
    assert [type(r.body) for r in viewed] == [memoryview] * 4 + [bytes]  # the last line gets its newline
    assert b"".join(bytes(r.body) for r in viewed) == path.read_bytes() + b"\n"


def test_the_spool_leaves_no_file_behind(tmp_path: Path) -> None:
    corpus_dir = tmp_path / "corpus"
    f = prepared(write_docs(corpus_dir / "a.json", 40), 40)
    before = sorted(os.listdir(corpus_dir))
    requests = BulkSource([f], client_index=0, num_clients=1, bulk_size=8, looped=True).requests(views=True)
    served = list(itertools.islice(requests, 12))  # 5 per pass: into the third pass
    assert isinstance(served[-1].body, memoryview)
    assert sorted(os.listdir(corpus_dir)) == before
    requests.close()
    assert sorted(os.listdir(corpus_dir)) == before


def test_a_pass_cut_short_keeps_copies(tmp_path: Path) -> None:
    # 60 % of 5 bulks = 3 per pass: no pass reaches the slice's end, so no spool is ever sealed.
    f = prepared(write_docs(tmp_path / "a.json", 20), 20)
    source = BulkSource([f], client_index=0, num_clients=1, bulk_size=4, looped=True, ingest_percentage=60)
    viewed = _requests(source, 9, views=True)
    assert _as_tuples(viewed) == _as_tuples(_requests(source, 9, views=False))
    assert all(isinstance(r.body, bytes) for r in viewed)


def test_no_temporary_file_means_copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "read-only file system")

    monkeypatch.setattr(spool_module.tempfile, "TemporaryFile", refuse)
    f = prepared(write_docs(tmp_path / "a.json", 12), 12)
    source = BulkSource([f], client_index=0, num_clients=1, bulk_size=5, looped=True)
    viewed = _requests(source, 9, views=True)
    assert _as_tuples(viewed) == _as_tuples(_requests(source, 9, views=False))
    assert all(isinstance(r.body, bytes) for r in viewed)


def test_a_full_disk_drops_the_spool_and_keeps_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # /dev/full fails every write with ENOSPC, as a spool on a full file system would.
    monkeypatch.setattr(spool_module.tempfile, "TemporaryFile", lambda dir=None: open("/dev/full", "w+b"))  # noqa: SIM115
    f = prepared(write_docs(tmp_path / "a.json", 3000), 3000)
    source = BulkSource([f], client_index=0, num_clients=1, bulk_size=1000, looped=True)
    viewed = _requests(source, 7, views=True)
    assert _as_tuples(viewed) == _as_tuples(_requests(source, 7, views=False))
    assert all(isinstance(r.body, bytes) for r in viewed)


def test_closing_while_a_view_is_in_use_keeps_its_bytes(tmp_path: Path) -> None:
    path = write_docs(tmp_path / "a.json", 30)
    ranged = MappedRange(path, 0, path.stat().st_size, reread=True)
    prefix = b'{"index":{}}\n'
    first = [bytes(body) for body, _ in ranged.groups(7, prefix=prefix, views=True)]
    second = [body for body, _ in ranged.groups(7, prefix=prefix, views=True)]
    assert all(isinstance(body, memoryview) for body in second)
    ranged.close()  # the views still refer to the spool's mapping: no BufferError
    assert [bytes(body) for body in second] == first
    with pytest.raises(ValueError, match="closed"):
        next(ranged.groups(7, prefix=prefix, views=True))


def test_spool_reads_back_what_was_appended(tmp_path: Path) -> None:
    spool = BodySpool.create(tmp_path)
    assert spool is not None and not spool.sealed
    bodies = [b"a\n" * n for n in (1, 5, 3)]
    for n, body in enumerate(bodies):
        assert spool.append(body, n)
    with pytest.raises(ValueError, match="not sealed"):
        next(spool.bodies())
    assert spool.seal() and spool.sealed
    assert [(bytes(view), n) for view, n in spool.bodies()] == [(body, n) for n, body in enumerate(bodies)]
    spool.close()
    assert not spool.sealed and not spool.append(b"x\n", 1)


def test_an_empty_spool_does_not_seal(tmp_path: Path) -> None:
    spool = BodySpool.create(tmp_path)
    assert spool is not None and not spool.seal()


def test_spool_falls_back_to_the_system_temporary_directory(tmp_path: Path) -> None:
    missing = tmp_path / "gone"  # TemporaryFile(dir=missing) fails
    spool = BodySpool.create(missing)
    assert spool is not None and spool.append(b"x\n", 1) and spool.seal()
    assert [bytes(v) for v, _ in spool.bodies()] == [b"x\n"]
    assert not missing.exists() and tempfile.gettempdir()
    spool.close()


def test_no_spool_where_it_would_leave_too_little_free_space(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A 100 GiB file system with 10.5 GiB free: a spool that would leave less than 10 % free is
    # not written (a node on the same disk would near its high watermark), in either directory.
    class Almost:
        f_frsize, f_blocks, f_bavail = 4096, 100 * (1 << 30) // 4096, int(10.5 * (1 << 30)) // 4096

    monkeypatch.setattr(spool_module, "has_room", _HAS_ROOM)
    monkeypatch.setattr(spool_module.os, "statvfs", lambda path: Almost)
    assert spool_module.has_room(str(tmp_path), 256 << 20)
    assert not spool_module.has_room(str(tmp_path), 1 << 30)
    assert BodySpool.create(tmp_path, size=1 << 30) is None
    assert BodySpool.create(tmp_path, size=1 << 20) is not None


def test_the_spool_is_sized_from_the_slice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sizes: list[int] = []
    real_create = BodySpool.create

    def create(near: Path, *, size: int = 0) -> BodySpool | None:
        sizes.append(size)
        return real_create(near, size=size)

    monkeypatch.setattr(BodySpool, "create", staticmethod(create))
    path = write_docs(tmp_path / "a.json", 30)
    source = BulkSource([prepared(path, 30)], client_index=0, num_clients=1, bulk_size=7, looped=True)
    bodies = [bytes(r.body) for r in _requests(source, 5, views=True)]  # one pass: 7, 7, 7, 7, 2
    # Told by BulkSource how many lines the slice holds, or counted: the same estimate, at least
    # what the spool then holds.
    ranged = MappedRange(path, 0, path.stat().st_size, reread=True)
    list(ranged.groups(7, prefix=action_line("idx"), views=True))
    ranged.close()
    assert len(sizes) == 2 and sizes[0] == sizes[1] >= sum(len(b) for b in bodies)
