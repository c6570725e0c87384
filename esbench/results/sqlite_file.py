"""Opening the results store's SQLite file safely: WAL mode with a bounded retry, a check that the
file is an esbench store, and SQLite errors translated into one-paragraph :class:`StoreError` s."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from esbench.exceptions import StoreError
from esbench.results import migrations

logger = logging.getLogger(__name__)


def enable_wal(conn: sqlite3.Connection, path: Path, busy_timeout_s: float) -> None:
    # WAL is persistent in the file, so only its creator switches. The switch needs an exclusive lock
    # and SQLite reports SQLITE_BUSY at once instead of calling the busy handler when another
    # connection opened the new file at the same moment, hence this bounded retry.
    deadline = time.monotonic() + busy_timeout_s
    delay = 0.005
    while True:
        mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
        if mode == "wal":
            return
        try:
            mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() >= deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
            continue
        if mode != "wal":
            logger.warning("%s: journal mode %s (WAL unavailable on this file system)", path, mode)
        return


def check_is_ours(conn: sqlite3.Connection, where: str) -> None:
    # A version-0 file with tables is some other SQLite database: never add our schema to it. Both
    # reads in one transaction (one snapshot): another process may be migrating the file right now.
    conn.execute("BEGIN")
    try:
        version = migrations.schema_version(conn)
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    finally:
        conn.execute("COMMIT")
    if version == 0 and names:
        raise StoreError(
            f"{where} is an SQLite database that esbench did not create (tables: "
            f"{', '.join(names[:5])}). esbench did not change it; move it away or set ESBENCH_HOME to "
            "another directory."
        )


@contextmanager
def translate_errors(where: str, busy_timeout_s: float | None) -> Iterator[None]:
    try:
        yield
    except sqlite3.OperationalError as e:
        text = str(e)
        if "locked" in text or "busy" in text:
            waited = f" (waited up to {busy_timeout_s:g} s)" if busy_timeout_s else ""
            raise StoreError(
                f"{where} is locked by another process{waited}: {text}. Wait for the other esbench "
                "(race, compare, list) to finish and retry.",
                e,
            ) from e
        raise StoreError(f"Cannot use {where}: {text}. Check its permissions and free disk space.", e) from e
    except sqlite3.DatabaseError as e:
        raise StoreError(
            f"{where} is not a readable esbench results store ({e}). esbench did not change it; restore it "
            "from a backup, or move it away to start a new store (the races in it are then not listed).",
            e,
        ) from e
