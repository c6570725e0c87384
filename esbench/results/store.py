"""The local results store: every race in one SQLite file, found by id, id prefix or user tag.

``esbench_home()/"results.db"`` by default. One row per race, one per task result, user tags in
their own indexed table, HdrHistogram encodings kept so percentiles can be recomputed and merged
(schema: :mod:`esbench.results.migrations`). Safe for several races on one machine at once: WAL
journal, a busy timeout, and every save is one ``BEGIN IMMEDIATE`` transaction.

Race references (``ref``) accepted by :meth:`ResultsStore.resolve` and the CLI:

- a full race id (``"5f3c..."``) or an unambiguous prefix of one (``"5f3c"``), in any letter case
  (race ids are UUIDs, which RFC 4122 says are read case-insensitively),
- ``tag:KEY:VALUE``: every race whose user tag ``KEY`` equals ``VALUE`` (newest first).

Errors are :class:`~esbench.exceptions.StoreError` (unreadable, locked, corrupt, newer schema) and
:class:`~esbench.exceptions.NotFound` / :class:`~esbench.exceptions.UserError` (unknown or
ambiguous references). The store never deletes or recreates a file it cannot read.
"""

from __future__ import annotations

import dataclasses
import difflib
import logging
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from esbench.exceptions import NotFound, StoreError, UserError
from esbench.home import esbench_home
from esbench.records import RaceResult, tag_text
from esbench.results import migrations, telemetry_store
from esbench.results.rows import (
    INSERT_RACE,
    RACE_BOOL,
    RACE_COLUMNS,
    RACE_JSON,
    TASK_BOOL,
    TASK_COLUMNS,
    TASK_JSON,
    decode_row,
    race_row,
    task_row,
)
from esbench.results.sqlite_file import check_is_ours, enable_wal, translate_errors
from esbench.track.params import convert_value

logger = logging.getLogger(__name__)

DEFAULT_FILE_NAME = "results.db"
TAG_PREFIX = "tag:"
DEFAULT_BUSY_TIMEOUT_S = 30.0


def default_path() -> Path:
    """``esbench_home()/"results.db"``."""
    return esbench_home() / DEFAULT_FILE_NAME


def parse_tag_ref(ref: str) -> tuple[str, str] | None:
    """``"tag:KEY:VALUE"`` -> ``(KEY, VALUE)``; None if ``ref`` is not a tag reference.

    The value may contain ``:``; the key may not. Raises UserError for ``tag:`` without a value.
    """
    if not ref.startswith(TAG_PREFIX):
        return None
    key, sep, value = ref[len(TAG_PREFIX) :].partition(":")
    if not sep or not key:
        raise UserError(
            f"The race reference {ref!r} is incomplete: a tag reference is written tag:KEY:VALUE, e.g. "
            "tag:setup:3nodes for races run with --user-tag=setup:3nodes."
        )
    return key, value


def tag_ref_values(value: str) -> tuple[str, ...]:
    """The tag texts a ``tag:KEY:VALUE`` reference matches: ``VALUE`` as written, and the text of the
    typed value ``--user-tags=KEY:VALUE`` stores (:func:`esbench.track.params.convert_value`, Rally's
    ``kv_to_map``; :func:`esbench.records.tag_text`): ``"True"`` -> ``("True", "true")``, so a race
    stored before tags were typed is found too."""
    return tuple(dict.fromkeys((value, tag_text(convert_value(value)))))


def describe_race(race: RaceResult) -> str:
    """One line naming a race for messages: id, timestamp, track/challenge, status, user tags."""
    tags = ",".join(f"{k}:{v}" for k, v in sorted(race.user_tags.items()))
    parts = [race.race_id, race.timestamp, f"{race.track}/{race.challenge}", race.status]
    if tags:
        parts.append(f"tags {tags}")
    return "  ".join(parts)


class ResultsStore:
    """A connection to the SQLite results store. Use :meth:`open`; close with :meth:`close` or ``with``.

    Not thread-safe: use one store per thread or process (each opens its own connection).
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, *, busy_timeout_s: float | None = None) -> None:
        self._conn = conn
        self.path = path
        self._busy_timeout_s = busy_timeout_s

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def open(
        cls, path: Path | None = None, *, busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S
    ) -> ResultsStore:
        """Open (creating if missing) and migrate the store at ``path`` (default :func:`default_path`).

        Args:
            path: the SQLite file; its directory is created if needed.
            busy_timeout_s: how long to wait for another process's write lock, in seconds.

        Raises:
            StoreError: the file cannot be opened, is not an esbench results store, is corrupt, has a
                newer schema, or stays locked longer than ``busy_timeout_s``. The file is left as it is.
        """
        path = Path(path) if path is not None else default_path()
        where = f"the results store {path}"
        if path.exists() and not path.is_file():
            raise StoreError(f"Cannot open {where}: it is not a regular file. Remove it or set ESBENCH_HOME.")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, timeout=busy_timeout_s, isolation_level=None)
        except (OSError, sqlite3.Error) as e:
            raise StoreError(f"Cannot open {where}: {e}. Check the path and its permissions.", e) from e
        try:
            with translate_errors(where, busy_timeout_s):
                conn.execute("PRAGMA foreign_keys = ON")
                check_is_ours(conn, where)
                migrations.check_not_newer(conn, where=where)
                enable_wal(conn, path, busy_timeout_s)
                conn.execute("PRAGMA synchronous = FULL")
                before = migrations.migrate(conn, where=where)
                if before != migrations.LATEST_VERSION:
                    logger.debug("migrated %s from schema %d to %d", path, before, migrations.LATEST_VERSION)
        except BaseException:
            conn.close()
            raise
        return cls(conn, path, busy_timeout_s=busy_timeout_s)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._conn.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        """The schema version of the open file (``PRAGMA user_version``)."""
        with self._errors():
            return migrations.schema_version(self._conn)

    # ------------------------------------------------------------------ writing

    def save(self, race: RaceResult) -> None:
        """Store ``race`` in one transaction; a race with the same id is replaced.

        Raises:
            StoreError: the database is locked for longer than the busy timeout, read-only or corrupt.
        """
        # Telemetry goes to its own table; asdict() of thousands of samples would only be discarded.
        data = dataclasses.replace(race, telemetry=()).to_dict()
        data.pop("telemetry", None)
        row = race_row(data)
        with self._errors(), self._transaction():
            self._delete_rows(race.race_id)
            self._conn.execute(INSERT_RACE, row)
            self._conn.executemany(
                "INSERT INTO race_tags (race_id, key, value) VALUES (?, ?, ?)",
                [(race.race_id, str(k), tag_text(v)) for k, v in race.user_tags.items()],
            )
            task_sql = (
                f"INSERT INTO task_results (race_id, position, {', '.join(TASK_COLUMNS)}) "
                f"VALUES (?, ?, {', '.join('?' * len(TASK_COLUMNS))})"
            )
            for position, task in enumerate(data["tasks"]):
                histograms = task.pop("histograms", {}) or {}
                self._conn.execute(task_sql, (race.race_id, position, *task_row(task)))
                self._conn.executemany(
                    "INSERT INTO task_histograms (race_id, position, metric, encoding) VALUES (?, ?, ?, ?)",
                    [(race.race_id, position, metric, enc) for metric, enc in histograms.items()],
                )
            self._conn.executemany(
                "INSERT INTO cluster_metrics (race_id, position, name, value, unit, task) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (race.race_id, i, m["name"], m["value"], m["unit"], m.get("task", ""))
                    for i, m in enumerate(data["cluster_metrics"])
                ],
            )
            telemetry_store.save_series(self._conn, race.race_id, race.telemetry)

    def delete(self, race_id: str) -> RaceResult:
        """Delete the race ``race_id`` (a full id or unambiguous prefix) and return what was deleted.

        Raises:
            NotFound: no such race. UserError: ambiguous prefix. StoreError: database errors.
        """
        if race_id.startswith(TAG_PREFIX):
            raise UserError(f"Delete races one at a time by race id, not by tag ({race_id!r}).")
        race = self.get(race_id)
        with self._errors(), self._transaction():
            self._delete_rows(race.race_id)
        return race

    # ------------------------------------------------------------------ reading

    def get(self, ref: str) -> RaceResult:
        """The one race named by ``ref`` (race id, unambiguous id prefix, or a tag matching one race).

        Raises:
            NotFound: unknown id/tag (the message lists close matches).
            UserError: ambiguous prefix or a tag matching several races (the message lists them).
            StoreError: database errors.
        """
        races = self.resolve(ref)
        if len(races) > 1:
            listing = "\n".join(f"  {describe_race(r)}" for r in races[:20])
            raise UserError(f"{ref!r} matches {len(races)} races; name one by its race id:\n{listing}")
        return races[0]

    def resolve(self, ref: str) -> list[RaceResult]:
        """All races named by ``ref``: ``[race]`` for an id or unambiguous prefix, every race with the
        user tag for ``tag:KEY:VALUE`` (newest first). Never empty.

        Raises:
            NotFound: nothing matches (the message lists close matches).
            UserError: an id prefix shared by several races (the message lists the candidates).
            StoreError: database errors.
        """
        ref = ref.strip()
        if not ref:
            raise UserError("An empty race reference was given; pass a race id, id prefix or tag:KEY:VALUE.")
        tag = parse_tag_ref(ref)
        if tag is not None:
            races = self.find(user_tags={tag[0]: tag_ref_values(tag[1])})
            if not races:
                raise NotFound(self._unknown_tag_message(*tag))
            return races
        with self._errors():
            ids = [
                row[0]
                for row in self._conn.execute(
                    "SELECT race_id FROM races WHERE lower(substr(race_id, 1, ?)) = lower(?) "
                    "ORDER BY timestamp DESC, race_id",
                    (len(ref), ref),
                )
            ]
            exact = [i for i in ids if i.lower() == ref.lower()]
            if exact:
                ids = exact[:1]
            if not ids:
                raise NotFound(self._unknown_id_message(ref))
            races = [self._load(i, load_tasks=True) for i in ids]
        if len(races) > 1:
            listing = "\n".join(f"  {describe_race(r)}" for r in races[:20])
            raise UserError(
                f"The race id prefix {ref!r} is ambiguous: it matches {len(races)} races. "
                f"Give more characters of the id:\n{listing}"
            )
        return races

    def find(
        self,
        *,
        user_tags: Mapping[str, str | Sequence[str]] | None = None,
        track: str | None = None,
        limit: int | None = None,
        status: str | None = None,
        load_tasks: bool = True,
    ) -> list[RaceResult]:
        """Races matching every given filter, newest first (by timestamp, then id).

        Args:
            user_tags: each key must have this value, or one of these values (a sequence of str).
            track: track name. status: ``completed`` / ``failed`` / ``interrupted``.
            limit: at most this many races (the newest).
            load_tasks: False returns races with empty ``tasks`` and ``cluster_metrics`` (fast listing).

        Raises:
            StoreError: database errors.
        """
        where: list[str] = []
        params: list[object] = []
        for key, wanted in (user_tags or {}).items():
            values = [wanted] if isinstance(wanted, str) else [str(v) for v in wanted]
            where.append(
                "race_id IN (SELECT race_id FROM race_tags WHERE key = ? AND value IN "
                f"({', '.join('?' * len(values))}))"
            )
            params.extend((str(key), *values))
        if track is not None:
            where.append("track = ?")
            params.append(track)
        if status is not None:
            where.append("status = ?")
            params.append(status)
        sql = "SELECT race_id FROM races"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY timestamp DESC, race_id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        with self._errors():
            ids = [row[0] for row in self._conn.execute(sql, params)]
            return [self._load(i, load_tasks=load_tasks) for i in ids]

    def tag_values(self, key: str) -> list[str]:
        """The distinct values stored for user tag ``key``, sorted."""
        with self._errors():
            rows = self._conn.execute(
                "SELECT DISTINCT value FROM race_tags WHERE key = ? ORDER BY value", (key,)
            )
            return [r[0] for r in rows]

    def tag_keys(self) -> list[str]:
        """The distinct user tag keys in the store, sorted."""
        with self._errors():
            return [r[0] for r in self._conn.execute("SELECT DISTINCT key FROM race_tags ORDER BY key")]

    def __len__(self) -> int:
        with self._errors():
            return int(self._conn.execute("SELECT count(*) FROM races").fetchone()[0])

    # ------------------------------------------------------------------ internals

    @contextmanager
    def _errors(self) -> Iterator[None]:
        with translate_errors(f"the results store {self.path}", self._busy_timeout_s):
            yield

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def _delete_rows(self, race_id: str) -> None:
        for table in (
            "task_histograms",
            "task_results",
            "cluster_metrics",
            "telemetry_series",
            "race_tags",
            "races",
        ):
            self._conn.execute(f"DELETE FROM {table} WHERE race_id = ?", (race_id,))

    def _load(self, race_id: str, *, load_tasks: bool) -> RaceResult:
        conn = self._conn
        cursor = conn.execute(f"SELECT {', '.join(RACE_COLUMNS)} FROM races WHERE race_id = ?", (race_id,))
        row = cursor.fetchone()
        if row is None:  # deleted by another process between two queries
            raise NotFound(f"Race {race_id} was deleted while it was being read.")
        data = decode_row(RACE_COLUMNS, row, RACE_JSON, RACE_BOOL)
        data.update(data.pop("extra"))
        if "user_tags" not in data:  # typed tags are in extra (race_row); text ones only in race_tags
            data["user_tags"] = dict(
                conn.execute("SELECT key, value FROM race_tags WHERE race_id = ?", (race_id,))
            )
        data["tasks"] = []
        data["cluster_metrics"] = []
        stored_before_v3 = data.pop("telemetry", [])
        if load_tasks:
            data["telemetry"] = telemetry_store.load_series(conn, race_id) or stored_before_v3
            histograms: dict[int, dict[str, str]] = {}
            for position, metric, encoding in conn.execute(
                "SELECT position, metric, encoding FROM task_histograms WHERE race_id = ?", (race_id,)
            ):
                histograms.setdefault(position, {})[metric] = encoding
            for row in conn.execute(
                f"SELECT position, {', '.join(TASK_COLUMNS)} FROM task_results "
                "WHERE race_id = ? ORDER BY position",
                (race_id,),
            ):
                task = decode_row(TASK_COLUMNS, row[1:], TASK_JSON, TASK_BOOL)
                task.update(task.pop("extra"))
                task["histograms"] = histograms.get(row[0], {})
                data["tasks"].append(task)
            data["cluster_metrics"] = [
                {"name": n, "value": v, "unit": u, "task": t}
                for n, v, u, t in conn.execute(
                    "SELECT name, value, unit, task FROM cluster_metrics WHERE race_id = ? ORDER BY position",
                    (race_id,),
                )
            ]
        return RaceResult.from_dict(data)

    def _unknown_id_message(self, ref: str) -> str:
        recent = self.find(limit=5, load_tasks=False)
        all_ids = [r[0] for r in self._conn.execute("SELECT race_id FROM races")]
        close = difflib.get_close_matches(ref, all_ids, n=5, cutoff=0.6)
        if not recent:
            return f"No race {ref!r}: the results store {self.path} holds no races yet."
        lines = [f"No race with id or id prefix {ref!r} in {self.path}."]
        if close:
            lines.append("Close matches:")
            lines.extend(f"  {describe_race(self._load(i, load_tasks=False))}" for i in close)
        lines.append("Most recent races (see `esbench list races`):")
        lines.extend(f"  {describe_race(r)}" for r in recent)
        return "\n".join(lines)

    def _unknown_tag_message(self, key: str, value: str) -> str:
        values = self.tag_values(key)
        if values:
            close = difflib.get_close_matches(value, values, n=5, cutoff=0.5)
            hint = f" Close matches: {', '.join(f'tag:{key}:{v}' for v in close)}." if close else ""
            shown = ", ".join(values[:20]) + (" ..." if len(values) > 20 else "")
            return f"No race has the user tag {key}:{value}.{hint} Known values of {key!r}: {shown}."
        keys = self.tag_keys()
        if not keys:
            return f"No race has the user tag {key}:{value}; no race in {self.path} has any user tag."
        close = difflib.get_close_matches(key, keys, n=5, cutoff=0.5)
        hint = f" Did you mean {', '.join(repr(k) for k in close)}?" if close else ""
        return f"No race has a user tag {key!r}.{hint} Known user tag keys: {', '.join(keys)}."
