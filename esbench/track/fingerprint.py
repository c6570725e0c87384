"""A track's fingerprint: one digest of everything that defines what a race of it sends.

Capacity planning (``esbench sweep``, ``optimize``, ``find-max``) reuses a stored race only when
the track it would run now is the same one (docs/planning.md, "Reusing races"). The track's name or
path is not enough: editing a query in ``track.json`` keeps both. The fingerprint covers

- the rendered track (the JSON after Jinja with the track params, so a changed parameter default or
  a changed ``rally.collect`` fragment counts), and the track params themselves;
- every other file of the track directory (index bodies, operation files, ``track.py`` and the
  plugin's other modules), by relative path and SHA-256, except the corpus documents (data, not
  definition; a bundle keeps them beside ``track.json``), ``.git`` and ``__pycache__``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

#: Files larger than this are taken by size only (an unlisted corpus file, a forgotten archive).
_MAX_HASHED_BYTES = 16 << 20
_ARCHIVE_SUFFIXES = (".bz2", ".gz", ".zst", ".zip", ".tar", ".xz")


def _corpus_names(spec: Mapping[str, Any]) -> set[str]:
    """File names of the corpus documents the spec names, with their archive and offset variants."""
    names: set[str] = set()
    for corpus in spec.get("corpora", ()) or ():
        for documents in (corpus.get("documents", ()) if isinstance(corpus, Mapping) else ()) or ():
            if not isinstance(documents, Mapping):
                continue
            source = str(documents.get("source-file", ""))
            if not source:
                continue
            plain = source
            for suffix in _ARCHIVE_SUFFIXES:
                plain = plain.removesuffix(suffix)
            for name in (source, plain):
                base = Path(name).name
                names.update({base, f"{base}.offset", f"{Path(base).stem}-1k{Path(base).suffix}"})
    return names


def _track_files(root: Path, skip: set[str]) -> Iterable[Path]:
    for path in sorted(root.rglob("*")):
        if not path.is_file() or ".git" in path.parts or "__pycache__" in path.parts:
            continue
        if path.name in skip or path.name.endswith(".offset"):
            continue
        yield path


def track_fingerprint(
    spec: Mapping[str, Any], root: Path, params: Mapping[str, object], *, track_file: Path | None = None
) -> str:
    """The fingerprint (40 hex digits of a SHA-1) of a rendered track.

    Args:
        spec: the rendered, parsed track JSON (what the loader validated).
        root: the track directory; its files count as described in the module docstring.
        params: the track params the track was rendered with.
        track_file: the track's JSON file. When it is not ``track.json`` (``--track-path=FILE.json``)
            ``root`` is any directory that holds it, so only its plugin (``track.py``) counts beside
            the rendered JSON, not every file around it.
    """
    digest = hashlib.sha1()
    digest.update(json.dumps(spec, sort_keys=True, default=str).encode())
    digest.update(json.dumps(dict(params), sort_keys=True, default=str).encode())
    if track_file is not None and track_file.name != "track.json":
        files: Iterable[Path] = [p for p in (root / "track.py",) if p.is_file()]
    else:
        files = _track_files(root, _corpus_names(spec))
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        size = path.stat().st_size
        if size > _MAX_HASHED_BYTES:
            digest.update(f"size:{size}".encode())
            continue
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
