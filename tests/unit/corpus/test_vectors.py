"""The vector data set readers (``hdf5``, ``bigann``) of OSB's k-NN operations."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from esbench.corpus.vectors import Context, open_data_set
from esbench.exceptions import ConfigError


def write_bigann(path: Path, rows: list[list[float]], code: str, *, ground_truth: bool = False) -> Path:
    with path.open("wb") as f:
        f.write(struct.pack("<II", len(rows), len(rows[0])))
        for row in rows:
            f.write(struct.pack(f"<{len(row)}{code}", *row))
        if ground_truth:  # the distances after the ids
            for row in rows:
                f.write(struct.pack(f"<{len(row)}f", *(0.5 for _ in row)))
    return path


def test_fbin_rows_are_read_in_chunks_from_any_offset(tmp_path):
    path = write_bigann(tmp_path / "v.fbin", [[0.5, 1.5], [2.5, 3.5], [4.5, 5.5]], "f")
    data = open_data_set("bigann", str(path), Context.INDEX)
    assert data.size() == 3
    assert data.read(2) == [[0.5, 1.5], [2.5, 3.5]]
    assert data.read(2) == [[4.5, 5.5]]
    assert data.read(1) is None
    data.seek(1)
    assert data.read(5) == [[2.5, 3.5], [4.5, 5.5]]


def test_u8bin_values_are_floats_and_ground_truth_ids_are_ints(tmp_path):
    u8 = open_data_set("bigann", str(write_bigann(tmp_path / "v.u8bin", [[1, 255]], "B")), Context.INDEX)
    [row] = u8.read(1) or []
    assert row == [1.0, 255.0] and all(isinstance(v, float) for v in row)
    truth = write_bigann(tmp_path / "gt.bin", [[7, 3], [9, 1]], "I", ground_truth=True)
    ids = open_data_set("bigann", str(truth), Context.NEIGHBORS)
    rows = ids.read(2) or []
    assert rows == [[7, 3], [9, 1]] and all(isinstance(v, int) for r in rows for v in r)


def test_hdf5_reads_the_data_set_of_the_context(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = tmp_path / "d.hdf5"
    with h5py.File(path, "w") as f:
        f.create_dataset("train", data=[[1.0, 2.0], [3.0, 4.0]], dtype="float32")
        f.create_dataset("neighbors", data=[[1, 0]], dtype="int32")
    assert open_data_set("hdf5", str(path), Context.INDEX).read(5) == [[1.0, 2.0], [3.0, 4.0]]
    assert open_data_set("hdf5", str(path), Context.NEIGHBORS).read(1) == [[1, 0]]
    with pytest.raises(ConfigError, match="has no data set 'test' \\(it has: neighbors, train\\)"):
        open_data_set("hdf5", str(path), Context.QUERY)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("v.fbin", struct.pack("<II", 2, 2) + b"\0" * 12, "has 12 bytes after its header, but"),
        ("v.fbin", b"\0\0", "shorter than its 8-byte header"),
        ("v.npy", struct.pack("<II", 1, 1) + b"\0" * 4, "extension '.npy'"),
    ],
)
def test_a_bad_bigann_file_is_refused_naming_it(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ConfigError, match=message) as info:
        open_data_set("bigann", str(path), Context.INDEX)
    assert str(path) in str(info.value)


def test_unknown_format_and_out_of_range_offsets_are_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"Unknown vector data set format 'npy'.*hdf5, bigann"):
        open_data_set("npy", "x", Context.INDEX)
    data = open_data_set("bigann", str(write_bigann(tmp_path / "v.fbin", [[1.0]], "f")), Context.INDEX)
    with pytest.raises(ConfigError, match=r"Cannot move to row 1 .* it has 1 rows"):
        data.seek(1)


def test_vector_operations_read_the_corpora_they_name_and_bulk_reads_bulk_corpora_only():
    from esbench.corpus.selection import corpora_read
    from esbench.track.model import DocumentCorpus, Documents, Operation, Task, Track

    def corpus(name: str, fmt: str) -> DocumentCorpus:
        return DocumentCorpus(
            name=name, documents=(Documents(source_file=f"{name}.x", document_count=1, source_format=fmt),)
        )

    track = Track(
        name="t",
        root=Path("."),
        challenges=(),
        corpora=(corpus("docs", "bulk"), corpus("vectors", "hdf5"), corpus("truth", "hdf5")),
    )

    def task(op_type: str, **params: object) -> Task:
        return Task(name=op_type, operation=Operation(name=op_type, operation_type=op_type, params=params))

    assert corpora_read(track, [task("bulk")]) == ["docs"]
    assert corpora_read(track, [task("bulk-vector-data-set", data_set_corpus="vectors")]) == ["vectors"]
    searched = task("vector-search", data_set_corpus="vectors", neighbors_data_set_corpus="truth")
    assert corpora_read(track, [searched]) == ["vectors", "truth"]
    assert corpora_read(track, [task("vector-search", data_set_corpus="", data_set_path="x")]) == []
