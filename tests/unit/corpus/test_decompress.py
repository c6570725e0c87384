"""Decompression of every archive format Rally supports, with the offset index built on the way."""

from __future__ import annotations

import bz2
import gzip
import io
import tarfile
import zipfile
from pathlib import Path

import pytest
import zstandard
from corpus_helpers import write_docs

from esbench.corpus.decompress import decompress
from esbench.corpus.names import archive_suffix, document_file_name
from esbench.corpus.offsets import build_offset_index, read_offset_index
from esbench.exceptions import DataError


def _tar(path: Path, mode: str, members: dict[str, bytes]) -> None:
    with tarfile.open(path, mode) as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))


def _zip(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def _make_archive(path: Path, data: bytes, member: str) -> None:
    name = path.name
    if name.endswith(".bz2") and not name.endswith(".tar.bz2"):
        path.write_bytes(bz2.compress(data))
    elif name.endswith(".gz") and not name.endswith(".tar.gz"):
        path.write_bytes(gzip.compress(data))
    elif name.endswith(".zst"):
        path.write_bytes(zstandard.ZstdCompressor().compress(data))
    elif name.endswith(".zip"):
        _zip(path, {member: data})
    elif name.endswith((".tar.gz", ".tgz")):
        _tar(path, "w:gz", {f"dir/{member}": data})
    elif name.endswith(".tar.bz2"):
        _tar(path, "w:bz2", {member: data})
    else:
        _tar(path, "w", {member: data})


@pytest.mark.parametrize(
    ("source_file", "document_file"),
    [
        ("docs.json.bz2", "docs.json"),
        ("docs.json.gz", "docs.json"),
        ("docs.json.zst", "docs.json"),
        ("docs.json.zip", "docs.json"),
        ("docs.json.tar", "docs.json"),
        ("docs.json.tar.gz", "docs.json"),
        ("docs.json.tgz", "docs.json"),
        ("docs.json.tar.bz2", "docs.json"),
    ],
)
def test_each_format_decompresses_to_the_document_file_with_its_index(
    tmp_path: Path, source_file: str, document_file: str
) -> None:
    assert document_file_name(source_file) == document_file
    original = write_docs(tmp_path / "orig.json", 300).read_bytes()
    archive = tmp_path / source_file
    _make_archive(archive, original, document_file)
    target = tmp_path / "out" / document_file
    index = decompress(archive, target, offsets_path=tmp_path / "out" / "x.offset", every=50)
    assert target.read_bytes() == original
    assert index == build_offset_index(target, every=50)
    assert read_offset_index(tmp_path / "out" / "x.offset") == index
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]


def test_non_archives_keep_their_name() -> None:
    assert archive_suffix("documents.json") is None
    assert document_file_name("documents.json") == "documents.json"
    assert document_file_name("documents-1k.json.bz2") == "documents-1k.json"


def test_container_with_one_differently_named_file_is_accepted(tmp_path: Path) -> None:
    archive = tmp_path / "docs.json.zip"
    _zip(archive, {"export/other-name.ndjson": b'{"a":1}\n'})
    decompress(archive, tmp_path / "docs.json", offsets_path=tmp_path / "o")
    assert (tmp_path / "docs.json").read_bytes() == b'{"a":1}\n'


def test_container_without_the_document_file_is_a_data_error(tmp_path: Path) -> None:
    archive = tmp_path / "docs.json.tar"
    _tar(archive, "w", {"a.json": b"{}\n", "b.json": b"{}\n"})
    with pytest.raises(
        DataError, match=r"should contain the document file \[docs.json\] but holds a.json, b.json"
    ):
        decompress(archive, tmp_path / "docs.json", offsets_path=tmp_path / "o")


def test_corrupt_archive_is_a_data_error_and_leaves_nothing(tmp_path: Path) -> None:
    archive = tmp_path / "docs.json.bz2"
    archive.write_bytes(bz2.compress(b'{"a":1}\n' * 1000)[:50])
    target = tmp_path / "out" / "docs.json"
    with pytest.raises(DataError, match="truncated or corrupt"):
        decompress(archive, target, offsets_path=tmp_path / "o")
    assert list(target.parent.iterdir()) == []


def test_uncompressed_size_mismatch_is_a_data_error(tmp_path: Path) -> None:
    archive = tmp_path / "docs.json.gz"
    archive.write_bytes(gzip.compress(b'{"a":1}\n'))
    with pytest.raises(DataError, match="'uncompressed-bytes' says 9"):
        decompress(archive, tmp_path / "docs.json", offsets_path=tmp_path / "o", expected_bytes=9)
    assert not (tmp_path / "docs.json").exists()
