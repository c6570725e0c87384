"""``results.json``: one race written as the JSON of :meth:`RaceResult.to_dict`.

The file is written atomically (temporary file in the same directory, fsync, rename), so a reader
never sees a half-written file and an interrupted write leaves any previous file intact.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from esbench.exceptions import NotFound, StoreError
from esbench.records import RESULTS_FORMAT_VERSION, RaceResult


def write_results_file(race: RaceResult, path: Path) -> None:
    """Write ``race`` to ``path`` as pretty-printed UTF-8 JSON, atomically; creates parent directories.

    Raises:
        StoreError: the file or its directory cannot be written.
    """
    path = Path(path)
    text = json.dumps(race.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    tmp_name: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp_name, path)
        tmp_name = None
    except OSError as exc:
        raise StoreError(
            f"Cannot write the results file {path}: {exc.strerror or exc}. Check that the directory "
            "exists or can be created and is writable, or choose another path.",
            exc,
        ) from exc
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)


def read_results_file(path: Path) -> RaceResult:
    """Read a results file written by :func:`write_results_file`.

    Raises:
        NotFound: ``path`` does not exist.
        StoreError: the file is not valid JSON, not a race result, or written by a newer esbench
            (``format_version`` above :data:`RESULTS_FORMAT_VERSION`).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise NotFound(f"The results file {path} does not exist. Check the path.", exc) from exc
    except OSError as exc:
        raise StoreError(f"Cannot read the results file {path}: {exc.strerror or exc}.", exc) from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreError(
            f"The results file {path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}). "
            "It may be truncated or edited by hand; re-export it from the results store.",
            exc,
        ) from exc
    if not isinstance(data, dict) or "race_id" not in data:
        raise StoreError(f"The results file {path} does not contain an esbench race result (no 'race_id').")
    version = data.get("format_version", RESULTS_FORMAT_VERSION)
    if not isinstance(version, int) or version > RESULTS_FORMAT_VERSION:
        raise StoreError(
            f"The results file {path} has format version {version!r}, but this esbench reads versions up "
            f"to {RESULTS_FORMAT_VERSION}. Upgrade esbench to read it."
        )
    try:
        return RaceResult.from_dict(data)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"The results file {path} is not a valid race result: {exc}.", exc) from exc
