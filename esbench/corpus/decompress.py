"""Streaming decompression of corpus archives, building the offset index in the same pass.

Formats (Rally's list): ``.bz2``, ``.gz``, ``.zst`` (single compressed file) and ``.zip``,
``.tar``, ``.tar.gz``, ``.tgz``, ``.tar.bz2`` (containers). A container must hold the document
file under the same name (Rally's rule, e.g. ``documents.json.zip`` holds ``documents.json``); as
a convenience, a container with exactly one regular file is accepted whatever that file's name.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import os
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol, TypeVar

import zstandard

from esbench.corpus.names import archive_suffix
from esbench.corpus.offsets import DEFAULT_EVERY, OffsetIndex, OffsetIndexBuilder, write_offset_index
from esbench.exceptions import DataError

_CHUNK = 4 << 20
_T = TypeVar("_T")


class _Reader(Protocol):
    """What the decompression loop needs of a member stream (bz2, gzip, zstd, zip and tar differ)."""

    def read(self, size: int = -1, /) -> bytes: ...


@contextlib.contextmanager
def _open_member(archive: Path, member_name: str) -> Iterator[_Reader]:
    """A binary stream of the document file inside ``archive``."""
    suffix = archive_suffix(archive.name)
    if suffix == ".bz2":
        with bz2.open(archive, "rb") as bz2_stream:
            yield bz2_stream
    elif suffix == ".gz":
        with gzip.open(archive, "rb") as gz_stream:
            yield gz_stream
    elif suffix == ".zst":
        with open(archive, "rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as zst_stream:
            yield zst_stream
    elif suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            infos = [i for i in zf.infolist() if not i.is_dir()]
            info = _choose(archive, member_name, [(Path(i.filename).name, i) for i in infos])
            with zf.open(info) as zip_stream:
                yield zip_stream
    elif suffix in (".tar", ".tar.gz", ".tgz", ".tar.bz2"):
        with tarfile.open(archive, "r:*") as tf:
            members = [m for m in tf.getmembers() if m.isfile()]
            member = _choose(archive, member_name, [(Path(m.name).name, m) for m in members])
            tar_stream = tf.extractfile(member)
            assert tar_stream is not None
            with tar_stream:
                yield tar_stream
    else:
        raise DataError(f"[{archive}] is not an archive esbench can decompress (suffix not in Rally's list).")


def _choose(archive: Path, member_name: str, members: list[tuple[str, _T]]) -> _T:
    for name, member in members:
        if name == member_name:
            return member
    if len(members) == 1:
        return members[0][1]
    names = ", ".join(name for name, _ in members) or "no files"
    raise DataError(
        f"Archive [{archive}] should contain the document file [{member_name}] but holds {names}. "
        f"Repack it with exactly that file, or fix 'source-file' in the track."
    )


def decompress(
    archive: Path,
    target: Path,
    *,
    offsets_path: Path,
    expected_bytes: int | None = None,
    progress: Callable[[int], None] | None = None,
    every: int = DEFAULT_EVERY,
) -> OffsetIndex:
    """Decompress ``archive`` into ``target`` and write the offset index of ``target``.

    Writes to a temporary file next to ``target`` and renames it at the end, so an interrupted
    run leaves no half-written corpus. ``progress(uncompressed_bytes_so_far)`` is called per chunk.

    Raises:
        DataError: unreadable or corrupt archive, wrong member, or a size different from
            ``expected_bytes`` (the track's ``uncompressed-bytes``).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    builder = OffsetIndexBuilder(every)
    written = 0
    try:
        with _open_member(archive, target.name) as stream, open(tmp, "wb") as out:
            while chunk := stream.read(_CHUNK):
                out.write(chunk)
                builder.feed(chunk)
                written += len(chunk)
                if progress is not None:
                    progress(written)
    except DataError:
        tmp.unlink(missing_ok=True)
        raise
    except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError, zstandard.ZstdError) as e:
        tmp.unlink(missing_ok=True)
        raise DataError(
            f"Could not decompress [{archive}]: {e}. The file is probably truncated or corrupt; "
            f"delete it and run again to download it anew (or replace it by hand).",
            cause=e,
        ) from e
    if expected_bytes is not None and written != expected_bytes:
        tmp.unlink(missing_ok=True)
        raise DataError(
            f"[{archive}] is corrupt: decompressing it gave {written} bytes but the track's "
            f"'uncompressed-bytes' says {expected_bytes}. Delete it and run again, or fix the track."
        )
    os.replace(tmp, target)
    index = builder.finish(target)
    write_offset_index(index, offsets_path)
    return index
