"""Rally's ``esrally.utils.io`` (2.13): the file sources and path helpers track plugins use."""

from __future__ import annotations

import mmap
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from esbench.corpus.names import archive_suffix


def _read_lines(readline: Any, num_lines: int) -> list[Any]:
    lines = []
    for _ in range(num_lines):
        line = readline()
        if not line:
            break
        lines.append(line)
    return lines


class FileSource:
    """Rally: a file read line by line (``open()`` returns the source itself)."""

    def __init__(self, file_name: str, mode: str, encoding: str = "utf-8") -> None:
        self.file_name = file_name
        self.mode = mode
        self.encoding = encoding
        self.f: Any = None

    def open(self) -> FileSource:
        self.f = open(self.file_name, self.mode, encoding=None if "b" in self.mode else self.encoding)  # noqa: SIM115
        return self

    def seek(self, offset: int) -> None:
        self.f.seek(offset)

    def read(self) -> Any:
        return self.f.read()

    def readline(self) -> Any:
        return self.f.readline()

    def readlines(self, num_lines: int) -> Sequence[Any]:
        """Up to ``num_lines`` lines (fewer at the end of the file)."""
        return _read_lines(self.readline, num_lines)

    def close(self) -> None:
        self.f.close()
        self.f = None

    def __enter__(self) -> FileSource:
        return self.open()

    def __exit__(self, *exc: Any) -> Literal[False]:
        self.close()
        return False

    def __str__(self) -> str:
        return self.file_name


class MmapSource(FileSource):
    """Rally: a memory-mapped file; lines are ``bytes``."""

    def open(self) -> MmapSource:
        self.f = open(self.file_name, mode="r+b")  # noqa: SIM115
        self.mm = mmap.mmap(self.f.fileno(), 0, access=mmap.ACCESS_READ)
        self.mm.madvise(mmap.MADV_SEQUENTIAL)
        return self

    def seek(self, offset: int) -> None:
        self.mm.seek(offset)

    def read(self) -> bytes:
        return self.mm.read()

    def readline(self) -> bytes:
        return self.mm.readline()

    def close(self) -> None:
        self.mm.close()
        self.f.close()
        self.f = None


class StringAsFileSource:
    """Rally: a list of strings read like a file (for tests of param sources)."""

    def __init__(self, contents: Sequence[str], mode: str, encoding: str = "utf-8") -> None:
        self.contents = contents
        self.current_index = 0
        self.opened = False

    def open(self) -> StringAsFileSource:
        self.opened = True
        return self

    def seek(self, offset: int) -> None:
        if offset != 0:
            raise AssertionError("StringAsFileSource does not support random seeks")

    def read(self) -> str:
        return "\n".join(self.contents)

    def readline(self) -> str:
        if self.current_index >= len(self.contents):
            return ""
        line = self.contents[self.current_index]
        self.current_index += 1
        return line

    def readlines(self, num_lines: int) -> Sequence[str]:
        return _read_lines(self.readline, num_lines)

    def close(self) -> None:
        self.opened = False

    def __enter__(self) -> StringAsFileSource:
        return self.open()

    def __exit__(self, *exc: Any) -> Literal[False]:
        self.close()
        return False


def ensure_dir(directory: str, mode: int = 0o777) -> None:
    """Create ``directory`` and its parents if missing."""
    if directory:
        os.makedirs(directory, mode, exist_ok=True)


def is_archive(name: str) -> bool:
    """True for the compressed formats Rally decompresses."""
    return archive_suffix(name) is not None


def has_extension(file_name: str, extension: str) -> bool:
    return os.path.splitext(file_name)[1] == extension


def splitext(file_name: str) -> tuple[str, str]:
    """Rally's ``splitext``: ``.tar.gz``-style double extensions stay together."""
    if file_name.endswith((".tar.gz", ".tar.bz2", ".tar.zst")):
        index = file_name.rindex(".tar")
        return file_name[:index], file_name[index:]
    return os.path.splitext(file_name)


def dirname(path: Any) -> Any:
    return os.path.dirname(path)


def basename(path: Any) -> Any:
    return os.path.basename(path)


def exists(path: Any) -> bool:
    return os.path.exists(path)


def normalize_path(path: str, cwd: str = ".") -> str:
    """Absolute, user-expanded, normalised path (relative to ``cwd``)."""
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path))) if path else path


def skip_lines(data_file_path: str, data_file: Any, number_of_lines_to_skip: int) -> None:
    """Advance ``data_file`` by that many lines (Rally uses an offset table; reading is equivalent)."""
    for _ in range(number_of_lines_to_skip):
        if not data_file.readline():
            break


def decompress(zip_name: str, target_directory: str) -> None:
    """Decompress an archive holding one document file into ``target_directory`` (esbench's
    decompression: .bz2, .gz, .zst, .zip, .tar.*).

    Raises:
        esbench.exceptions.DataError: unreadable or corrupt archive.
    """
    from esbench.corpus.cache import offsets_path_for
    from esbench.corpus.decompress import decompress as esb_decompress
    from esbench.corpus.names import document_file_name

    target = Path(target_directory) / document_file_name(Path(zip_name).name)
    esb_decompress(Path(zip_name), target, offsets_path=offsets_path_for(target))
