"""The SQLite results store: round trip, lookups, migrations, concurrency, damaged files."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import sqlite3
from pathlib import Path

import pytest
from racefactory import make_race

from esbench.exceptions import NotFound, StoreError, UserError
from esbench.records import RaceResult
from esbench.results import migrations
from esbench.results.store import ResultsStore, default_path


@pytest.fixture
def store(tmp_path: Path):
    with ResultsStore.open(tmp_path / "results.db") as s:
        yield s


def test_default_path_is_under_esbench_home(isolated_home: Path) -> None:
    with ResultsStore.open() as s:
        assert s.path == isolated_home / "results.db" == default_path()
        assert s.path.is_file()


def test_round_trip_equal_including_histograms(store: ResultsStore) -> None:
    race = make_race(seed=1, tags={"setup": "1node", "env": "ci"})
    store.save(race)
    loaded = store.get(race.race_id)
    assert loaded == race
    assert loaded.tasks[0].histograms == race.tasks[0].histograms
    assert isinstance(loaded.tasks[0].throughput_windows, tuple)


def test_round_trip_failed_race_keeps_status_and_error(store: ResultsStore) -> None:
    race = make_race(seed=2, status="failed")
    store.save(race)
    loaded = store.get(race.race_id)
    assert (loaded.status, loaded.error) == ("failed", "boom: node left")


def test_model_fields_without_a_column_round_trip_via_extra(store: ResultsStore) -> None:
    # The model may gain fields after the schema (e.g. TaskResult.overflow_count): they must survive.
    from esbench.results.rows import RACE_COLUMNS, TASK_COLUMNS, race_row, task_row

    race = make_race(seed=3)
    data = race.to_dict()
    data["future_field"] = {"x": 1}
    data["tasks"][0]["future_task_field"] = [1, 2]
    assert json.loads(race_row(data)[RACE_COLUMNS.index("extra")])["future_field"] == {"x": 1}
    task_extra = json.loads(task_row(data["tasks"][0])[TASK_COLUMNS.index("extra")])
    assert task_extra["future_task_field"] == [1, 2]
    # overflow_count was added to TaskResult after schema v2: it lives in the task's extra column.
    assert "overflow_count" not in TASK_COLUMNS
    race = dataclasses.replace(race, tasks=(dataclasses.replace(race.tasks[0], overflow_count=7),))
    store.save(race)
    assert store.get(race.race_id).tasks[0].overflow_count == 7


def test_save_replaces_race_with_same_id(store: ResultsStore) -> None:
    race = make_race(seed=4, tags={"a": "1"})
    store.save(race)
    changed = dataclasses.replace(race, status="interrupted", user_tags={"b": "2"}, tasks=race.tasks[:1])
    store.save(changed)
    assert len(store) == 1
    assert store.get(race.race_id) == changed
    assert store.find(user_tags={"a": "1"}) == []


def test_get_by_unambiguous_prefix(store: ResultsStore) -> None:
    a = make_race(seed=5, race_id="aaaa1111-0000-4000-8000-000000000000")
    b = make_race(seed=6, race_id="aaaa2222-0000-4000-8000-000000000000")
    store.save(a)
    store.save(b)
    assert store.get("aaaa1").race_id == a.race_id
    with pytest.raises(UserError, match="ambiguous") as info:
        store.get("aaaa")
    assert a.race_id in str(info.value) and b.race_id in str(info.value)
    # Race ids are UUIDs, read case-insensitively (RFC 4122): a pasted upper-case id still names the race.
    assert store.get("AAAA1").race_id == a.race_id
    assert store.get(b.race_id.upper()).race_id == b.race_id


def test_unknown_id_lists_close_matches_and_recent(store: ResultsStore) -> None:
    a = make_race(seed=7, race_id="abcdef12-0000-4000-8000-000000000000")
    store.save(a)
    with pytest.raises(NotFound) as info:
        store.get("abcdef13-0000-4000-8000-000000000000")
    assert "Close matches" in str(info.value) and a.race_id in str(info.value)


def test_unknown_in_empty_store(store: ResultsStore) -> None:
    with pytest.raises(NotFound, match="holds no races"):
        store.get("1234")


def test_resolve_tag_newest_first_and_get_refuses_many(store: ResultsStore) -> None:
    old = make_race(seed=8, tags={"setup": "3nodes"}, timestamp="2026-01-01T00:00:00Z")
    new = make_race(seed=9, tags={"setup": "3nodes"}, timestamp="2026-02-01T00:00:00Z")
    other = make_race(seed=10, tags={"setup": "1node"})
    for r in (old, new, other):
        store.save(r)
    assert [r.race_id for r in store.resolve("tag:setup:3nodes")] == [new.race_id, old.race_id]
    assert store.get("tag:setup:1node") == other
    with pytest.raises(UserError, match="matches 2 races"):
        store.get("tag:setup:3nodes")


def test_tag_value_may_contain_colon(store: ResultsStore) -> None:
    race = make_race(seed=11, tags={"url": "http://x:1"})
    store.save(race)
    assert store.get("tag:url:http://x:1") == race


def test_unknown_tag_value_and_key_suggest(store: ResultsStore) -> None:
    store.save(make_race(seed=12, tags={"setup": "3nodes"}))
    with pytest.raises(NotFound, match=r"Close matches: tag:setup:3nodes") as info:
        store.resolve("tag:setup:3node")
    assert "Known values of 'setup': 3nodes" in str(info.value)
    with pytest.raises(NotFound, match="Did you mean 'setup'"):
        store.resolve("tag:setpu:3nodes")
    with pytest.raises(UserError, match="tag:KEY:VALUE"):
        store.resolve("tag:setup")


def test_find_filters_and_limit(store: ResultsStore) -> None:
    races = [
        make_race(
            seed=20 + i,
            track="t1" if i % 2 else "t2",
            tags={"n": str(i % 3)},
            timestamp=f"2026-01-0{i + 1}T00:00:00Z",
        )
        for i in range(6)
    ]
    for r in races:
        store.save(r)
    store.save(make_race(seed=99, status="failed", track="t1", timestamp="2026-01-09T00:00:00Z"))
    assert [r.timestamp[:10] for r in store.find()][:2] == ["2026-01-09", "2026-01-06"]
    assert {r.race_id for r in store.find(track="t1", status="completed")} == {
        r.race_id for r in races if r.track == "t1"
    }
    assert [r.race_id for r in store.find(user_tags={"n": "1"})] == [races[4].race_id, races[1].race_id]
    assert store.find(user_tags={"n": "1"}, track="t2") == [races[4]]
    assert [r.race_id for r in store.find(user_tags={"n": ("1", "2")})] == [
        races[5].race_id,
        races[4].race_id,
        races[2].race_id,
        races[1].race_id,
    ]
    assert len(store.find(limit=3)) == 3
    light = store.find(limit=1, load_tasks=False)[0]
    assert light.tasks == () and light.user_tags == {}


def test_delete(store: ResultsStore) -> None:
    race = make_race(seed=30, tags={"x": "y"})
    keep = make_race(seed=31, tags={"x": "y"})
    store.save(race)
    store.save(keep)
    assert store.delete(race.race_id[:12]).race_id == race.race_id
    assert [r.race_id for r in store.find()] == [keep.race_id]
    conn = sqlite3.connect(store.path)
    for table in ("task_results", "task_histograms", "race_tags", "cluster_metrics"):
        ids = {r[0] for r in conn.execute(f"SELECT race_id FROM {table}")}
        assert ids == {keep.race_id}, table
    conn.close()
    with pytest.raises(NotFound, match=race.race_id):
        store.delete(race.race_id)
    with pytest.raises(UserError, match="by race id"):
        store.delete("tag:x:y")


def test_wal_mode_and_latest_schema(store: ResultsStore) -> None:
    assert store.schema_version == migrations.LATEST_VERSION
    conn = sqlite3.connect(store.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


# ---------------------------------------------------------------------------------- migrations

_V1_RACE = (
    "r-v1",
    "2025-06-01T10:00:00Z",
    "eventdata",
    "append",
    '{"bulk_size": 100}',
    "defaults",
    "{}",
    "benchmark-only",
    None,
    "8.19.0",
    1,
    "0.0.1",
    0,
    "completed",
    None,
    12.5,
    1,
)
_V1_TASK = (
    "r-v1",
    0,
    "bulk",
    "bulk",
    "bulk",
    "docs/s",
    10.0,
    11.0,
    11.5,
    12.0,
    "[10.0, 11.5, 12.0]",
    '{"50": 5.0, "100": 9.0}',
    '{"50": 4.0, "100": 8.0}',
    "{}",
    4.5,
    5,
    1,
    '{"429": 1}',
    500.0,
    3.0,
    1,
    2,
)


def _make_v1_file(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    migrations.migrate(conn, target=1)
    assert migrations.schema_version(conn) == 1
    conn.execute(f"INSERT INTO races VALUES ({', '.join('?' * len(_V1_RACE))})", _V1_RACE)
    conn.execute("INSERT INTO race_tags VALUES ('r-v1', 'setup', 'old')")
    conn.execute(f"INSERT INTO task_results VALUES ({', '.join('?' * len(_V1_TASK))})", _V1_TASK)
    conn.execute("INSERT INTO task_histograms VALUES ('r-v1', 0, 'latency', 'HISTFAKE')")
    conn.execute("INSERT INTO cluster_metrics VALUES ('r-v1', 0, 'Store size', 0.5, 'GB', '')")
    conn.close()


def test_upgrade_from_v1_keeps_races(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _make_v1_file(path)
    with ResultsStore.open(path) as s:
        assert s.schema_version == migrations.LATEST_VERSION == 3
        race = s.get("tag:setup:old")
    assert race.race_id == "r-v1"
    assert race.track_params == {"bulk_size": 100}
    task = race.tasks[0]
    assert task.throughput_windows == (10.0, 11.5, 12.0)
    assert task.latency_ms == {"50": 5.0, "100": 9.0}
    assert task.errors_by_type == {"429": 1}
    assert task.histograms == {"latency": "HISTFAKE"}
    assert task.include_in_reporting is True and task.warmup_sample_count == 2
    assert race.cluster_metrics[0].name == "Store size"
    # And the upgraded file accepts new races.
    with ResultsStore.open(path) as s:
        new = make_race(seed=40)
        s.save(new)
        assert s.get(new.race_id) == new and len(s) == 2


def test_migrate_is_idempotent_and_stepwise(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    assert migrations.migrate(conn, target=1) == 0
    assert migrations.migrate(conn) == 1
    assert migrations.migrate(conn) == migrations.LATEST_VERSION == 3
    cols = {r[1] for r in conn.execute("PRAGMA table_info(task_results)")}
    assert "extra" in cols
    conn.close()


def test_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE races (race_id TEXT)")
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer esbench"):
        ResultsStore.open(path)
    assert path.read_bytes() == before


def test_foreign_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="did not create"):
        ResultsStore.open(path)


def test_garbage_file_is_refused_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    path.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="not a readable esbench results store"):
        ResultsStore.open(path)
    assert path.read_bytes() == b"this is not sqlite at all" * 100


def test_truncated_store_gives_store_error_not_traceback(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    with ResultsStore.open(path) as s:
        for i in range(5):
            s.save(make_race(seed=50 + i))
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = path.read_bytes()
    # Overwrite pages in the middle of the file (table b-tree pages) with garbage.
    damaged = data[:8192] + b"\xff" * (len(data) - 8192)
    path.write_bytes(damaged)
    with pytest.raises(StoreError), ResultsStore.open(path) as s:
        s.find()
    assert path.read_bytes() == damaged


def test_directory_instead_of_file(tmp_path: Path) -> None:
    (tmp_path / "results.db").mkdir()
    with pytest.raises(StoreError, match="not a regular file"):
        ResultsStore.open(tmp_path / "results.db")


def test_locked_store_gives_store_error(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    store = ResultsStore.open(path, busy_timeout_s=0.05)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match=r"locked by another process \(waited up to 0.05 s\)"):
            store.save(make_race(seed=60))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    store.save(make_race(seed=60))  # usable again once the lock is gone
    assert len(store) == 1
    store.close()


# ---------------------------------------------------------------------------------- concurrency


def _worker_race(worker: int, i: int, template: RaceResult) -> RaceResult:
    return dataclasses.replace(template, race_id=f"{worker:04d}-{i:04d}", user_tags={"worker": str(worker)})


def _writer(path: str, worker: int, count: int, barrier) -> None:  # runs in a child process
    template = make_race(seed=worker)
    barrier.wait()
    with ResultsStore.open(Path(path)) as s:
        for i in range(count):
            s.save(_worker_race(worker, i, template))


def test_concurrent_writers_on_a_new_store(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    ctx = multiprocessing.get_context("spawn")
    workers, count = 4, 10
    barrier = ctx.Barrier(workers)
    procs = [ctx.Process(target=_writer, args=(str(path), w, count, barrier)) for w in range(workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    with ResultsStore.open(path) as s:
        assert len(s) == workers * count
        assert s.schema_version == migrations.LATEST_VERSION
        for w in range(workers):
            template = make_race(seed=w)
            races = s.find(user_tags={"worker": str(w)})
            assert sorted(races, key=lambda r: r.race_id) == [
                _worker_race(w, i, template) for i in range(count)
            ]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
