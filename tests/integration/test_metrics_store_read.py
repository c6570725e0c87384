"""esbench reads a Rally user's metrics store, with Rally 2.13 itself as the oracle.

One Elasticsearch 8.8.2 node (the newest integ-test build that answers ``GET /``, which Rally
needs) is target and metrics store at once. On it:

- Rally races twice (``--pipeline=benchmark-only --offline --test-mode``, user tag ``side:rally``,
  environment ``it``) a one-task track: a term query on an index the test fills first. Rally writes
  ``rally-races-*``, ``rally-results-*`` and ``rally-metrics-*``.
- esbench races the same track twice (user tag ``side:esbench``) and exports each race with
  ``--metrics-store``, in the layout esbench writes today (``esbench-races-*``).
- A history of 16 Rally race documents for the trend is built from the first REAL document Rally
  wrote: new race ids, one race a day, each metric scaled by a small deterministic wobble (±1.5 %),
  and from race 11 on throughput × 0.8 and latency and service time × 1.25. Why not 16 Rally races:
  one Rally race takes 35-70 s here (a join point between tasks costs Rally about 5 s), and a
  trend needs a history long enough for the detector; the documents keep Rally's exact layout, and
  ``esrally list races`` lists them, so they are documents Rally reads as its own.

The tests then check esbench against what Rally stored and what ``esrally`` prints.
"""

from __future__ import annotations

import copy
import json
import math
import re
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from harness import esbench, ok
from rally_oracle import INNER_HOST, RallyOracle, rally_bin, rally_oracle  # noqa: F401 (fixture)

from esbench.results.store_layout import RALLY, StoreIndex

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("rally-oracle"), pytest.mark.timeout(900)]

#: Rally needs GET / (see the module docstring).
ES_VERSION = "8.8.2"
ENVIRONMENT = "it"
INDEX = "store-read"
HISTORY = 16
STEP_AT = 10  # the 0-based race from which the history is slower (race 11 of the trend)


@dataclass(frozen=True)
class Store:
    """The node, Rally configured with it, and the races stored on it."""

    host: str
    rally: RallyOracle
    rally_ids: list[str]
    esbench_ids: list[str]
    history_ids: list[str]

    @property
    def url(self) -> str:
        return f"http://{self.host}"

    def esbench(self, *args: str) -> Any:
        return esbench(*args, f"--metrics-store={self.url}", timeout=240)

    def rally_race_docs(self) -> dict[str, dict[str, Any]]:
        body = _http(self.host, "GET", f"/{RALLY.index_pattern(StoreIndex.RACES)}/_search?size=100")
        return {h["_source"]["race-id"]: h["_source"] for h in body["hits"]["hits"]}


def _http(host: str, method: str, path: str, body: object = None, *, ndjson: bool = False) -> Any:
    import urllib.request

    data = None
    if body is not None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    content = "application/x-ndjson" if ndjson else "application/json"
    request = urllib.request.Request(
        f"http://{host}{path}", data=data, method=method, headers={"Content-Type": content}
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=60) as response:
        return json.loads(response.read() or b"null")


def _track(directory: Path) -> Path:
    directory.mkdir(parents=True)
    track = {
        "version": 2,
        "description": "One term query against an index the test fills (esbench's metrics-store tests).",
        "schedule": [
            {
                "name": "term-query",
                "operation": {
                    "operation-type": "search",
                    "index": INDEX,
                    "body": {"query": {"term": {"level": "error"}}},
                },
                "clients": 1,
                "warmup-time-period": 0,
                "time-period": 2,
            }
        ],
    }
    (directory / "track.json").write_text(json.dumps(track), encoding="utf-8")
    return directory


def _fill_index(host: str) -> None:
    _http(host, "PUT", f"/{INDEX}", {"settings": {"number_of_shards": 1, "number_of_replicas": 0}})
    lines = []
    for i in range(200):
        lines.append(json.dumps({"index": {}}))
        lines.append(json.dumps({"level": "error" if i % 4 == 0 else "info", "n": i}))
    _http(host, "POST", f"/{INDEX}/_bulk?refresh=true", "\n".join(lines) + "\n", ndjson=True)


def _scaled(group: dict[str, Any] | None, factor: float) -> dict[str, Any] | None:
    if not group:
        return group
    return {k: v * factor if isinstance(v, int | float) and k != "unit" else v for k, v in group.items()}


def _history(host: str, source: dict[str, Any]) -> list[str]:
    """Index :data:`HISTORY` copies of Rally's race document ``source`` (see the module docstring)."""
    ids = []
    start = datetime(2026, 10, 1, 3, 0, tzinfo=UTC)
    lines = []
    for n in range(HISTORY):
        doc = copy.deepcopy(source)
        race_id = str(uuid.uuid4())
        started = start + timedelta(days=n)
        wobble = 1.0 + 0.015 * math.sin(n * 2.1)
        slower = n >= STEP_AT
        doc["race-id"] = race_id
        doc["race-timestamp"] = started.strftime("%Y%m%dT%H%M%SZ")
        doc["user-tags"] = {"history": "planted"}
        for op in doc["results"]["op_metrics"]:
            op["throughput"] = _scaled(op["throughput"], wobble * (0.8 if slower else 1.0))
            for key in ("latency", "service_time", "processing_time"):
                op[key] = _scaled(op.get(key), wobble * (1.25 if slower else 1.0))
        lines.append(
            json.dumps({"index": {"_index": RALLY.monthly_index(StoreIndex.RACES, started), "_id": race_id}})
        )
        lines.append(json.dumps(doc))
        ids.append(race_id)
    result = _http(host, "POST", "/_bulk?refresh=true", "\n".join(lines) + "\n", ndjson=True)
    assert not result["errors"], result
    return ids


@pytest.fixture(scope="module")
def store(rally_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:  # noqa: F811
    home = tmp_path_factory.mktemp("store-read-node")
    started = ok(
        esbench(
            "start",
            "--distribution-repository=maven",
            f"--distribution-version={ES_VERSION}",
            home=home,
            timeout=280,
        )
    )
    fields = dict(line.split(": ", 1) for line in started.stdout.strip().splitlines())
    host = fields["hosts"].split(",")[0]
    try:
        _fill_index(host)
        root = tmp_path_factory.mktemp("rally")
        # Rally writes offset files beside a track's corpus: each tool gets a copy of the track.
        rally_track = _track(root / "track")
        with rally_oracle(rally_bin, root, host, environment=ENVIRONMENT) as rally:
            rally_ids = []
            for _ in range(2):
                race_id = str(uuid.uuid4())
                raced = rally.run(
                    "race",
                    "--pipeline=benchmark-only",
                    "--offline",
                    "--test-mode",
                    f"--track-path={rally_track}",
                    f"--target-hosts={INNER_HOST}",
                    "--user-tag=side:rally",
                    f"--race-id={race_id}",
                )
                assert raced.returncode == 0, raced.stdout[-3000:] + raced.stderr[-3000:]
                rally_ids.append(race_id)
            esbench_track = _track(tmp_path_factory.mktemp("esbench") / "track")
            # esbench writes Rally's layout, in the environment its esbench.ini names, as Rally does.
            esbench_home = tmp_path_factory.mktemp("esbench-home")
            (esbench_home / "esbench.ini").write_text(f"[system]\nenv.name = {ENVIRONMENT}\n")
            esbench_ids = []
            for _ in range(2):
                raced = ok(
                    esbench(
                        "race",
                        f"--track-path={esbench_track}",
                        f"--target-hosts={host}",
                        "--offline",
                        "--user-tag=side:esbench",
                        f"--metrics-store=http://{host}",
                        "--report-format=json",
                        home=esbench_home,
                        timeout=240,
                    )
                )
                # Rally created this month's rally-races index: its mapping, not esbench's template.
                assert "Export to the metrics store failed" not in raced.stderr, raced.stderr
                esbench_ids.append(json.loads(raced.stdout)["race"]["race_id"])
            _http(host, "POST", "/_refresh")
            found = Store(host, rally, rally_ids, esbench_ids, []).rally_race_docs()
            # Both tools' races are in Rally's layout, in the same index.
            assert set(found) == set(rally_ids) | set(esbench_ids), found.keys()
            yield Store(host, rally, rally_ids, esbench_ids, _history(host, found[rally_ids[0]]))
    finally:
        ok(esbench("stop", f"--installation-id={fields['installation-id']}", home=home, timeout=120))
        shutil.rmtree(home, ignore_errors=True)


def _rally_json(store: Store, *args: str) -> dict[str, Any]:
    listed = store.rally.run("list", "races", "--format=json", "--limit=100", "--offline", *args)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    return json.loads(listed.stdout[listed.stdout.index("{") :])


def test_list_races_matches_rallys_json(store: Store) -> None:
    rally = {r["race-id"]: r for r in _rally_json(store, "--user-tag=side:rally")["races"]}
    assert set(rally) == set(store.rally_ids)
    listed = store.esbench(
        "list", "races", "--source=metrics-store", f"--environment={ENVIRONMENT}", "--user-tag=side:rally",
        "--format=json",
    )  # fmt: skip
    ours = {r["race-id"]: r for r in json.loads(ok(listed).stdout)["races"]}
    # Rally's own entries, field for field, with the results Rally lists too.
    assert ours == rally and all(r["results"]["op_metrics"] for r in ours.values())


def test_list_races_text_matches_rallys_rows(store: Store) -> None:
    rally = store.rally.run("list", "races", "--offline", "--user-tag=side:rally")
    assert rally.returncode == 0, rally.stdout + rally.stderr
    ours = ok(
        store.esbench(
            "list", "races", "--source=metrics-store", f"--environment={ENVIRONMENT}", "--user-tag=side:rally"
        )
    ).stdout

    def rows(text: str) -> dict[str, list[str]]:
        return {
            line.split()[0]: re.split(r"\s{2,}", line.strip())
            for line in text.splitlines()
            if line.split() and line.split()[0] in store.rally_ids
        }

    assert rows(ours) == rows(rally.stdout) and len(rows(ours)) == 2
    header = next(line for line in ours.splitlines() if line.startswith("Race ID"))
    assert (
        header.split()
        == next(line for line in rally.stdout.splitlines() if line.startswith("Race ID")).split()
    )


def test_list_races_reads_both_layouts_and_rallys_filters(store: Store) -> None:
    def ids(*args: str) -> list[str]:
        listed = store.esbench("list", "races", "--source=metrics-store", "--format=json", "--limit=0", *args)
        return [r["race-id"] for r in json.loads(ok(listed).stdout)["races"]]

    both = ids(f"--environment={ENVIRONMENT}", "--to-date=20261231", "--from-date=20261101")
    assert set(store.rally_ids) | set(store.esbench_ids) == set(both)
    assert ids("--environment=elsewhere", "--user-tag=side:rally") == []
    assert set(
        ids(f"--environment={ENVIRONMENT}", "--user-tag=history:planted", "--to-date=20261005")
    ) == set(store.history_ids[:5])
    assert len(ids(f"--environment={ENVIRONMENT}", "--limit=3")) == 3


def test_report_of_a_rally_race_shows_rallys_values(store: Store) -> None:
    race_id = store.rally_ids[0]
    doc = store.rally_race_docs()[race_id]
    (op,) = doc["results"]["op_metrics"]
    report = ok(
        store.esbench(
            "report",
            race_id[:13],
            "--source=metrics-store",
            f"--environment={ENVIRONMENT}",
            "--report-format=json",
        )
    )
    data = json.loads(report.stdout)
    assert data["race"]["race_id"] == race_id and data["race"]["track"] == doc["track"]
    values = {(m["metric"], m["task"]): m["value"] for m in data["metrics"]}
    # The report prints 2 decimals.
    assert values["Median Throughput", "term-query"] == pytest.approx(op["throughput"]["median"], abs=0.006)
    assert values["100th percentile latency", "term-query"] == pytest.approx(
        op["latency"]["100_0"], abs=0.006
    )
    assert values["error rate", "term-query"] == 0
    assert values["Segment count", ""] == doc["results"]["segment_count"]
    # Rally's document has no request counts; they come from its service_time samples, so the report
    # does not call the task empty.
    assert not any("measured nothing" in w for w in data["warnings"]), data["warnings"]


def test_compare_rally_races_with_esbench_races_n_per_side(store: Store) -> None:
    compared = store.esbench(
        "compare",
        "--source=metrics-store",
        f"--environment={ENVIRONMENT}",
        "--baseline=tag:side:rally",
        "--contender=tag:side:esbench",
        "--report-format=json",
    )
    rows = json.loads(ok(compared).stdout)["contenders"][0]["rows"]
    median = next(r for r in rows if r["task"] == "term-query" and r["key"] == "throughput.median")
    docs = store.rally_race_docs()
    rally_medians = sorted(
        docs[i]["results"]["op_metrics"][0]["throughput"]["median"] for i in store.rally_ids
    )
    assert sorted(median["baseline"]["values"]) == pytest.approx(rally_medians)
    assert len(median["contender"]["values"]) == 2
    # Two races a side: Welch's t-test of the per-race values.
    assert median["p_value"] is not None
    assert any(r["key"] == "error_rate" for r in rows if r["task"] == "term-query")


def test_trend_finds_the_planted_change_in_rally_history(store: Store) -> None:
    assert len(store.history_ids) == HISTORY
    # Rally reads the built documents as its own.
    rally = _rally_json(store, "--user-tag=history:planted")
    assert {r["race-id"] for r in rally["races"]} == set(store.history_ids)
    trended = store.esbench(
        "trend",
        "--source=metrics-store",
        f"--environment={ENVIRONMENT}",
        "--user-tag=history:planted",
        "--metric=throughput-median",
        "--min-magnitude=10",
        "--report-format=json",
    )
    rows = json.loads(ok(trended).stdout)
    assert [r["race_id"] for r in rows] == store.history_ids
    changes = {r["race"]: r["change"] for r in rows if r["change"]}
    assert list(changes) == [STEP_AT + 1], rows
    assert str(changes[STEP_AT + 1]).startswith("regression -")
    gate = store.esbench(
        "trend",
        "--source=metrics-store",
        "--user-tag=history:planted",
        "--metric=latency-p50",
        "--min-magnitude=10",
        "--fail-on-change",
    )
    assert "at race 11" in gate.stdout
    assert gate.returncode == 3, gate.stdout + gate.stderr


def test_annotations_round_trip_with_rally(store: Store) -> None:
    added = ok(
        store.esbench(
            "add", "annotation", f"--environment={ENVIRONMENT}", "--race-timestamp=20261128T123750Z",
            "--track=store-read", "--chart-type=query", "--message=esbench wrote this",
        )
    )  # fmt: skip
    ours = re.search(r"Successfully added annotation \[([0-9a-f-]+)\]", added.stdout)
    assert ours, added.stdout
    listed = store.rally.run("list", "annotations", "--offline")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    row = next(line for line in listed.stdout.splitlines() if line.startswith(ours.group(1)))
    assert re.split(r"\s{2,}", row.strip()) == [
        ours.group(1),
        "20261128T000000Z",
        "store-read",
        "query",
        "esbench wrote this",
    ]

    theirs = store.rally.run(
        "add", "annotation", "--offline", "--race-timestamp=20261127T080000Z", "--message=rally wrote this"
    )
    assert theirs.returncode == 0, theirs.stdout + theirs.stderr
    rally_id = re.search(r"Successfully added annotation \[([0-9a-f-]+)\]", theirs.stdout)
    assert rally_id, theirs.stdout
    _http(store.host, "POST", "/rally-annotations/_refresh")
    ours_listed = ok(store.esbench("list", "annotations", f"--environment={ENVIRONMENT}")).stdout
    assert re.split(
        r"\s{2,}",
        next(line for line in ours_listed.splitlines() if line.startswith(rally_id.group(1))).strip(),
    ) == [
        rally_id.group(1),
        "20261127T000000Z",
        "rally wrote this",
    ]
    # Rally's filters: the day.
    only_27 = ok(
        store.esbench("list", "annotations", f"--environment={ENVIRONMENT}", "--to-date=20261127")
    ).stdout
    assert rally_id.group(1) in only_27 and ours.group(1) not in only_27

    deleted = ok(store.esbench("delete", "annotation", f"--id={ours.group(1)},{uuid.uuid4()}"))
    assert f"Successfully deleted [{ours.group(1)}]." in deleted.stdout and "Did not find" in deleted.stdout
    after = store.rally.run("list", "annotations", "--offline")
    assert ours.group(1) not in after.stdout and rally_id.group(1) in after.stdout


def test_annotations_without_a_metrics_store_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ESBENCH_METRICS_STORE", raising=False)
    refused = esbench("list", "annotations")
    assert refused.returncode == 64 and "none is configured" in refused.stderr
    assert "Traceback" not in refused.stderr
