"""Corpus file names: which source files are archives and what they decompress to.

Rally's rule (``esrally/utils/io.py``: ``is_archive``, ``splitext``; ``track/loader.py``): a
``source-file`` ending in ``.zip``, ``.bz2``, ``.gz``, ``.tar``, ``.tar.gz``, ``.tgz``,
``.tar.bz2`` or ``.zst`` is an archive, and its document file is the name without that suffix
(``documents.json.bz2`` -> ``documents.json``). Anything else is used as is.
"""

from __future__ import annotations

# Longest first, so ".tar.gz" wins over ".gz".
ARCHIVE_SUFFIXES: tuple[str, ...] = (".tar.bz2", ".tar.gz", ".tgz", ".tar", ".zip", ".bz2", ".gz", ".zst")


def archive_suffix(file_name: str) -> str | None:
    """The archive suffix of ``file_name`` (``".bz2"``, ``".tar.gz"``...), or None if it is not an archive."""
    for suffix in ARCHIVE_SUFFIXES:
        if file_name.endswith(suffix) and len(file_name) > len(suffix):
            return suffix
    return None


def document_file_name(source_file: str) -> str:
    """The uncompressed file name for ``source_file`` (``documents.json.bz2`` -> ``documents.json``)."""
    suffix = archive_suffix(source_file)
    return source_file[: -len(suffix)] if suffix else source_file
