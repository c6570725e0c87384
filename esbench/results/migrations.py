"""Versioned schema of the SQLite results store, as an ordered list of migration steps.

The schema version lives in SQLite's ``PRAGMA user_version`` (0 for a new, empty file). Opening the
store runs every step above the file's version, each in its own ``BEGIN IMMEDIATE`` transaction that
re-reads the version first, so two processes opening a new store at once migrate it exactly once.
A file whose version is above :data:`LATEST_VERSION` was written by a newer esbench and is refused
rather than touched. Steps are append-only: never edit a released step, add a new one.

Schema (latest)::

    races(race_id PK, timestamp, track, challenge, track_params JSON, car, car_params JSON,
          pipeline, distribution_version, cluster_version, cluster_nodes, esbench_version,
          test_mode, status, error, duration_s, format_version, extra JSON)        [v1, extra v2]
    race_tags(race_id, key, value)              user tags, indexed by (key, value)   [v1]
    task_results(race_id, position, task, operation, operation_type, throughput_*, percentiles
                 JSON, sample/error counts, windows JSON, ..., extra JSON)          [v1, extra v2]
    task_histograms(race_id, position, metric, encoding)  base64 HdrHistogram (µs)  [v1]
    cluster_metrics(race_id, position, name, value, unit, task)                     [v1]
    telemetry_series(race_id, position, device, metric, unit, node, timestamps BLOB,
                     samples BLOB)  zstd float64 arrays (esbench.results.telemetry_store) [v3]

Source of the mechanism: SQLite documentation, "PRAGMA user_version" and "ALTER TABLE"
(https://www.sqlite.org/pragma.html#pragma_user_version, https://www.sqlite.org/lang_altertable.html).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from esbench.exceptions import StoreError


@dataclass(frozen=True, kw_only=True)
class Migration:
    """One schema step: ``apply`` runs inside a transaction and moves the schema to ``version``."""

    version: int
    description: str
    apply: Callable[[sqlite3.Connection], None]


def _v1_initial(conn: sqlite3.Connection) -> None:
    statements = (
        """CREATE TABLE races (
            race_id TEXT PRIMARY KEY,
            timestamp TEXT NOT NULL,
            track TEXT NOT NULL,
            challenge TEXT NOT NULL,
            track_params TEXT NOT NULL DEFAULT '{}',
            car TEXT NOT NULL,
            car_params TEXT NOT NULL DEFAULT '{}',
            pipeline TEXT NOT NULL,
            distribution_version TEXT,
            cluster_version TEXT,
            cluster_nodes INTEGER,
            esbench_version TEXT NOT NULL DEFAULT '',
            test_mode INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL,
            error TEXT,
            duration_s REAL NOT NULL DEFAULT 0,
            format_version INTEGER NOT NULL
        )""",
        "CREATE INDEX races_by_timestamp ON races (timestamp)",
        "CREATE INDEX races_by_track ON races (track, timestamp)",
        """CREATE TABLE race_tags (
            race_id TEXT NOT NULL REFERENCES races (race_id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (race_id, key)
        )""",
        "CREATE INDEX race_tags_by_key_value ON race_tags (key, value)",
        """CREATE TABLE task_results (
            race_id TEXT NOT NULL REFERENCES races (race_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            task TEXT NOT NULL,
            operation TEXT NOT NULL,
            operation_type TEXT NOT NULL,
            throughput_unit TEXT NOT NULL,
            throughput_min REAL,
            throughput_mean REAL,
            throughput_median REAL,
            throughput_max REAL,
            throughput_windows TEXT NOT NULL DEFAULT '[]',
            latency_ms TEXT NOT NULL DEFAULT '{}',
            service_time_ms TEXT NOT NULL DEFAULT '{}',
            processing_time_ms TEXT NOT NULL DEFAULT '{}',
            mean_service_time_ms REAL,
            sample_count INTEGER NOT NULL DEFAULT 0,
            error_count INTEGER NOT NULL DEFAULT 0,
            errors_by_type TEXT NOT NULL DEFAULT '{}',
            total_weight REAL NOT NULL DEFAULT 0,
            duration_s REAL NOT NULL DEFAULT 0,
            include_in_reporting INTEGER NOT NULL DEFAULT 1,
            warmup_sample_count INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (race_id, position)
        )""",
        """CREATE TABLE task_histograms (
            race_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            metric TEXT NOT NULL,
            encoding TEXT NOT NULL,
            PRIMARY KEY (race_id, position, metric),
            FOREIGN KEY (race_id, position) REFERENCES task_results (race_id, position) ON DELETE CASCADE
        )""",
        """CREATE TABLE cluster_metrics (
            race_id TEXT NOT NULL REFERENCES races (race_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            value REAL NOT NULL,
            unit TEXT NOT NULL,
            task TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (race_id, position)
        )""",
    )
    for statement in statements:
        conn.execute(statement)


def _v2_extra_fields(conn: sqlite3.Connection) -> None:
    # Fields added to RaceResult/TaskResult after this schema are kept as JSON in ``extra`` so a
    # newer model round-trips without a migration per field; the task index speeds up compare.
    conn.execute("ALTER TABLE races ADD COLUMN extra TEXT NOT NULL DEFAULT '{}'")
    conn.execute("ALTER TABLE task_results ADD COLUMN extra TEXT NOT NULL DEFAULT '{}'")
    conn.execute("CREATE INDEX task_results_by_task ON task_results (task)")


def _v3_telemetry_series(conn: sqlite3.Connection) -> None:
    # Series stored before this step stay in races.extra and are still read from there.
    from esbench.results.telemetry_store import create_table

    create_table(conn)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        version=1,
        description="races, user tags, task results, histograms, cluster metrics",
        apply=_v1_initial,
    ),
    Migration(
        version=2, description="extra JSON columns for model fields added later", apply=_v2_extra_fields
    ),
    Migration(version=3, description="telemetry series of a race", apply=_v3_telemetry_series),
)

LATEST_VERSION = MIGRATIONS[-1].version


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version stored in the file (``PRAGMA user_version``; 0 for a new file)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def check_not_newer(conn: sqlite3.Connection, *, where: str = "the results store") -> int:
    """Return the schema version of ``conn``; raise StoreError if a newer esbench wrote it."""
    version = schema_version(conn)
    if version > LATEST_VERSION:
        raise StoreError(
            f"{where} has schema version {version}, but this esbench (schema version {LATEST_VERSION}) only "
            "knows older ones; it was written by a newer esbench. Upgrade esbench, or point ESBENCH_HOME at "
            "another directory. The file was not changed."
        )
    return version


def migrate(
    conn: sqlite3.Connection,
    *,
    target: int = LATEST_VERSION,
    migrations: Sequence[Migration] = MIGRATIONS,
    where: str = "the results store",
) -> int:
    """Bring the schema of ``conn`` up to ``target`` and return the version it had before.

    ``conn`` must be in autocommit mode (``isolation_level=None``): each step runs in its own
    ``BEGIN IMMEDIATE`` transaction together with the ``user_version`` update, so a crash leaves
    the file at a consistent version and concurrent openers wait for each other (busy timeout).

    Raises:
        StoreError: the file has a newer schema than this esbench knows (``where`` names it).
    """
    before = check_not_newer(conn, where=where)
    for step in migrations:
        if step.version > target:
            break
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated between our first read and taking the write lock.
            if schema_version(conn) >= step.version:
                conn.execute("ROLLBACK")
                continue
            step.apply(conn)
            conn.execute(f"PRAGMA user_version = {int(step.version)}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    return before
