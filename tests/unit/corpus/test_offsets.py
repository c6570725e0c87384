"""Offset indices and newline arithmetic: exact byte offsets of lines without rescanning files."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from corpus_helpers import write_docs

from esbench.corpus.lines import iter_line_lists, nth_newline
from esbench.corpus.mapped import MappedRange
from esbench.corpus.offsets import (
    OffsetIndexBuilder,
    build_offset_index,
    ensure_offset_index,
    read_offset_index,
    write_offset_index,
)
from esbench.exceptions import DataError


def _groups(
    path: Path, start: int, end: int, lines_per_group: int, *, prefix: bytes = b""
) -> list[tuple[bytes, int]]:
    """The line groups of ``path[start:end]`` in one pass over a fresh mapping."""
    with MappedRange(path, start, end) as mapped:
        return list(mapped.groups(lines_per_group, prefix=prefix))


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    for i, b in enumerate(data):
        if b == 10 and i + 1 < len(data):
            starts.append(i + 1)
    return starts


def test_nth_newline_finds_each_newline_and_reports_missing() -> None:
    buf = b"a\nbb\n\nccc\n" * 20_000  # spans several count blocks
    positions = [i for i, b in enumerate(buf) if b == 10]
    for n in (1, 2, 3, 4, 5, 17, 40_000, len(positions)):
        assert nth_newline(buf, 0, n) == (positions[n - 1], 0)
    assert nth_newline(buf, positions[9] + 1, 3) == (positions[12], 0)
    assert nth_newline(buf, 0, len(positions) + 5) == (-1, 5)


@pytest.mark.parametrize("newline_at_end", [True, False])
def test_index_locates_every_line(tmp_path: Path, newline_at_end: bool) -> None:
    path = write_docs(tmp_path / "d.json", 250, newline_at_end=newline_at_end)
    data = path.read_bytes()
    index = build_offset_index(path, every=7)
    starts = _line_starts(data)
    assert index.line_count == 250
    assert index.offsets == tuple(starts[k] for k in range(0, 250, 7))
    for line in range(251):
        expected = starts[line] if line < 250 else len(data)
        assert index.locate(path, line) == expected


def test_builder_gives_same_index_for_any_chunking(tmp_path: Path) -> None:
    path = write_docs(tmp_path / "d.json", 500)
    data = path.read_bytes()
    reference = build_offset_index(path, every=10)
    rng = random.Random(7)
    for _ in range(5):
        builder = OffsetIndexBuilder(10)
        pos = 0
        while pos < len(data):
            step = rng.randint(1, 3000)
            builder.feed(data[pos : pos + step])
            pos += step
        assert builder.finish(path) == reference


def test_index_round_trips_through_its_file_and_detects_changes(tmp_path: Path) -> None:
    path = write_docs(tmp_path / "d.json", 100)
    index = build_offset_index(path, every=9)
    index_path = tmp_path / "d.json.offset"
    write_offset_index(index, index_path)
    assert read_offset_index(index_path) == index
    assert index.matches(path)
    with open(path, "ab") as f:
        f.write(b'{"more":1}\n')
    assert not index.matches(path)


def test_ensure_reuses_a_valid_index_and_rebuilds_a_stale_one(tmp_path: Path) -> None:
    path = write_docs(tmp_path / "d.json", 100)
    index_path = tmp_path / "idx" / "d.json.offset"
    first = ensure_offset_index(path, index_path, every=9)
    # Mark the file so a rebuild would be visible: a rewritten index file gets a new inode.
    inode = index_path.stat().st_ino
    again = ensure_offset_index(path, index_path, every=9)
    assert again == first and index_path.stat().st_ino == inode
    write_docs(path, 120)
    os.utime(path, ns=(first.data_mtime_ns + 10_000_000, first.data_mtime_ns + 10_000_000))
    rebuilt = ensure_offset_index(path, index_path, every=9)
    assert rebuilt.line_count == 120


def test_read_rejects_foreign_or_corrupt_files(tmp_path: Path) -> None:
    rally_style = tmp_path / "rally.offset"
    rally_style.write_text("50000;4096000\n")
    assert read_offset_index(rally_style) is None
    assert read_offset_index(tmp_path / "missing.offset") is None


def test_locate_on_a_truncated_file_is_a_data_error(tmp_path: Path) -> None:
    path = write_docs(tmp_path / "d.json", 50)
    index = build_offset_index(path, every=20)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(DataError, match="changed after its offset index"):
        index.locate(path, 45)


@pytest.mark.parametrize("group", [1, 3, 10, 1000])
def test_line_groups_cover_a_byte_range_exactly(tmp_path: Path, group: int) -> None:
    path = write_docs(tmp_path / "d.json", 333)
    data = path.read_bytes()
    starts = _line_starts(data)
    start, end = starts[17], starts[300]
    groups = list(_groups(path, start, end, group))
    assert b"".join(chunk for chunk, _ in groups) == data[start:end]
    assert [n for _, n in groups] == [chunk.count(b"\n") for chunk, _ in groups]
    assert all(n == group for _, n in groups[:-1]) and 0 < groups[-1][1] <= group
    assert sum(n for _, n in groups) == 283


@pytest.mark.parametrize("group", [1, 4, 1000])
def test_prefixed_line_groups_are_the_lines_of_a_plain_split(tmp_path: Path, group: int) -> None:
    # ~40 KB: ranges start on and off the 4 KiB boundaries a mapping's offset must sit on.
    path = write_docs(tmp_path / "d.json", 1100, newline_at_end=False)
    data = path.read_bytes()
    starts = _line_starts(data)
    lines = data.split(b"\n")
    prefix = b'{"index": {"_index": "i"}}\n'
    page_starts = [i for i, at in enumerate(starts) if at % 4096 < 60][:3]
    for first_line in (0, 5, 1099, *page_starts):
        for last_line in (1100, first_line + 1, min(1100, first_line + 333)):
            end = len(data) if last_line == 1100 else starts[last_line]
            got = list(_groups(path, starts[first_line], end, group, prefix=prefix))
            expected = [lines[i : min(i + group, last_line)] for i in range(first_line, last_line, group)]
            assert [n for _, n in got] == [len(e) for e in expected]
            assert [chunk for chunk, _ in got] == [
                b"".join(prefix + line + b"\n" for line in e) for e in expected
            ]
    assert list(_groups(path, 40, 40, group, prefix=prefix)) == []


def test_a_mapped_range_is_read_again_on_every_pass_and_unmapped_on_close(tmp_path: Path) -> None:
    path = write_docs(tmp_path / "d.json", 50)
    data = path.read_bytes()
    with MappedRange(path, 0, len(data) + 999) as mapped:  # an end past the file is clamped
        first = list(mapped.groups(7))
        assert list(mapped.groups(7)) == first
        assert b"".join(chunk for chunk, _ in first) == data
    with pytest.raises(ValueError, match="closed"):
        list(mapped.groups(7))


def test_line_groups_add_the_missing_final_newline(tmp_path: Path) -> None:
    path = write_docs(tmp_path / "d.json", 5, newline_at_end=False)
    groups = list(_groups(path, 0, path.stat().st_size, 2))
    assert [n for _, n in groups] == [2, 2, 1]
    assert groups[-1][0].endswith(b"}\n")


@pytest.mark.parametrize("group", [1, 3, 10, 1000])
@pytest.mark.parametrize("block_size", [7, 4096, 1 << 20])
def test_line_lists_cover_a_byte_range_exactly(tmp_path: Path, group: int, block_size: int) -> None:
    path = write_docs(tmp_path / "d.json", 333, newline_at_end=False)
    data = path.read_bytes()
    starts = _line_starts(data)
    for start, end in ((starts[17], starts[300]), (starts[300], len(data))):
        lists = list(iter_line_lists(path, start, end, group, block_size=block_size))
        expected = data[start:end].split(b"\n")
        if expected[-1] == b"":
            expected.pop()
        assert [line for lines in lists for line in lines] == expected
        assert all(len(lines) == group for lines in lists[:-1]) and 0 < len(lists[-1]) <= group


def _mapped_rss_kib(path: Path) -> int:
    """Resident KiB of this process's mappings of ``path`` (from /proc/self/smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and len(fields) >= 5:  # a mapping's header line
            inside = fields[-1] == str(path)
        elif inside and fields[0] == "Rss:":
            total += int(fields[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="needs Linux /proc/self/smaps")
def test_pages_behind_the_reader_are_unmapped_unless_the_range_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from esbench.corpus import mapped as mapped_module

    monkeypatch.setattr(mapped_module, "RELEASE_STEP", 1 << 20)
    path = write_docs(tmp_path / "d.json", 250_000)  # ~16 MB
    size = path.stat().st_size
    with MappedRange(path, 0, size) as once:
        peak = max(_mapped_rss_kib(path) for _ in once.groups(2000))
    # The kernel may map the page cache's large folios whole (2 MiB), hence the slack.
    assert peak <= 6 << 10, f"a single pass kept {peak} KiB of {size >> 10} mapped; the release step is 1 MiB"
    with MappedRange(path, 0, size, reread=True) as looped:
        assert looped.keeps_pages
        for _ in looped.groups(2000):
            pass
        assert _mapped_rss_kib(path) > 0.9 * size / 1024
    monkeypatch.setattr(mapped_module, "KEEP_LIMIT", size - 1)
    with MappedRange(path, 0, size, reread=True) as too_large:
        assert not too_large.keeps_pages
