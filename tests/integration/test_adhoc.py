"""``esbench query`` and ``esbench load`` against a real node: what they send is what Elasticsearch
indexes and counts, and each run is an ordinary stored race that ``compare`` accepts."""

from __future__ import annotations

import base64
import json
import re
import time
import uuid
from pathlib import Path

import pytest
from adhoc_harness import count, last_race
from harness import esbench


@pytest.fixture
def name() -> str:
    return f"adhoc-{uuid.uuid4().hex[:8]}"


def test_rdict_takes_every_dictionary_line(es, es_hosts, name, tmp_path):
    lines = [f"w{i:02d}" for i in range(20)]
    (tmp_path / "dict.txt").write_text("\n".join(lines) + "\n")
    es.indices.create(index=name, settings={"number_of_shards": 1, "number_of_replicas": 0})
    # The search stats group of each request is its dictionary line: Elasticsearch counts them.
    body = '{"stats": ["$RDICT"], "size": 0, "query": {"term": {"k": "$RDICT"}}}'
    esbench(
        "query",
        "-d",
        str(tmp_path / "dict.txt"),
        "-c",
        "2",
        "-n",
        "400",
        "--body",
        body,
        f"http://{es_hosts[0]}/{name}/_search",
        "-q",
    )
    groups = es.indices.stats(index=name, metric="search", groups="_all")["_all"]["total"]["search"]["groups"]
    totals = {g: v["query_total"] for g, v in groups.items()}
    assert set(totals) == set(lines)
    assert sum(totals.values()) == 800
    # 800 draws over 20 lines: 40 expected each; a line below 15 or above 70 has p < 1e-6 if uniform.
    assert all(15 <= v <= 70 for v in totals.values()), totals
    race = last_race()
    assert race["track"] == "adhoc-query" and race["tasks"][0]["sample_count"] == 800


LOADGEN_VARIABLES = """
runner:
  no_warm: true
env:
  ADHOC_TEST_ENV: from-config
variables:
  - {name: f, type: file, path: words.txt}
  - {name: l, type: list, data: [red, green, blue]}
  - {name: seq, type: sequence, from: 100}
  - {name: seq64, type: sequence64, from: 5000000000}
  - {name: rng, type: range, from: 10, to: 13}
  - {name: arr, type: random_array, variable_key: rng, size: 3, square_bracket: true}
  - {name: sarr, type: random_array, variable_key: l, size: 2, variable_type: string, square_bracket: true}
  - {name: uuid, type: uuid}
  - {name: local, type: now_local}
  - {name: utc, type: now_utc}
  - {name: lite, type: now_utc_lite}
  - {name: unix, type: now_unix}
  - {name: fmt, type: now_with_format, format: "2006-01-02T15:04:05-0700"}
requests:
  - request:
      method: POST
      url: http://@HOST@/_bulk
      runtime_variables: {batch: seq}
      runtime_body_line_variables: {row: uuid}
      body_repeat_times: @TIMES@
      body: |
        {"create": {"_index": "@INDEX@", "_id": "$[[row]]"}}
        @DOC@
    assert:
      equals:
        _ctx.response.body_json.errors: false
"""


_FIELDS = ("f", "l", "seq64", "rng", "arr", "uuid", "row", "batch", "local", "utc", "lite", "unix", "fmt")
DOC = (
    "{"
    + ", ".join(f'"{k}": "$[[{k}]]"' for k in _FIELDS)
    + ', "sarr": $[[sarr]], "env": "$[[env.ADHOC_TEST_ENV]]"}'
)


def write_config(tmp_path: Path, host: str, index: str, times: int) -> Path:
    (tmp_path / "words.txt").write_text("alpha\nbeta\ngamma\n")
    cfg = tmp_path / "loadgen.yml"
    cfg.write_text(
        LOADGEN_VARIABLES.replace("@HOST@", host)
        .replace("@INDEX@", index)
        .replace("@TIMES@", str(times))
        .replace("@DOC@", DOC)
    )
    return cfg


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_body_repeat_times_and_every_variable_type(es, es_hosts, name, tmp_path, compress):
    cfg = write_config(tmp_path, es_hosts[0], name, times=13)
    started = time.time()
    esbench(
        "load",
        "--config",
        str(cfg),
        "-c",
        "3",
        "-l",
        "7",
        "-d",
        "120",
        "-q",
        *(["--compress"] if compress else []),
    )
    # 7 requests of 13 documents each (the limit is shared out among the 3 clients: 3+2+2)
    assert count(es, name) == 91
    race = last_race()
    task = race["tasks"][0]
    assert task["error_count"] == 0 and task["total_weight"] == 91 and task["throughput_unit"] == "docs/s"
    docs = [h["_source"] | {"_id": h["_id"]} for h in es.search(index=name, size=100)["hits"]["hits"]]
    assert {d["f"] for d in docs} <= {"alpha", "beta", "gamma"}
    assert {d["l"] for d in docs} <= {"red", "green", "blue"}
    assert all(10 <= int(d["rng"]) <= 13 for d in docs)
    assert all(re.fullmatch(r"\[1[0-3],1[0-3],1[0-3]\]", d["arr"]) for d in docs)
    assert all(len(d["sarr"]) == 2 and set(d["sarr"]) <= {"red", "green", "blue"} for d in docs)
    # uuid: xids (20 base32hex characters, the creation second first), one per occurrence
    assert all(re.fullmatch(r"[0-9a-v]{20}", d["uuid"]) for d in docs)
    second = int.from_bytes(base64.b32hexdecode(docs[0]["uuid"].upper() + "====")[:4], "big")
    assert started - 5 <= second <= time.time() + 5
    assert len({d["uuid"] for d in docs} | {d["row"] for d in docs}) == 182
    # runtime_body_line_variables: one value per line, used twice (the _id and the row field)
    assert all(d["_id"] == d["row"] for d in docs)
    # runtime_variables: one sequence value per request (13 documents each), 7 distinct in 101..107
    batches = {}
    for d in docs:
        batches.setdefault(d["batch"], 0)
        batches[d["batch"]] += 1
    assert sorted(map(int, batches)) == list(range(101, 108)) and set(batches.values()) == {13}
    assert len({d["seq64"] for d in docs}) == 91 and all(int(d["seq64"]) > 5_000_000_000 for d in docs)
    assert all(
        re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [+-]\d{4} \S+", d["local"]) for d in docs
    )
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC", d["utc"]) for d in docs)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}", d["lite"]) for d in docs)
    assert all(started - 5 <= int(d["unix"]) <= time.time() + 5 for d in docs)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}", d["fmt"]) for d in docs)
    assert {d["env"] for d in docs} == {"from-config"}


def test_bulk_items_accounted_like_the_bulk_runner(es, es_hosts, name, tmp_path):
    cfg = tmp_path / "dup.yml"
    cfg.write_text(
        f"runner: {{no_warm: true}}\n"
        f"requests:\n  - request:\n      method: POST\n      url: http://{es_hosts[0]}/_bulk\n"
        f"      body_repeat_times: 5\n      body: |\n"
        f'        {{"create": {{"_index": "{name}", "_id": "same"}}}}\n        {{"n": 1}}\n'
    )
    esbench("load", "--config", str(cfg), "-c", "1", "-l", "2", "-d", "60", "-q")
    task = last_race()["tasks"][0]
    # 10 create actions on one id: 1 created, 9 version conflicts; both requests are bulk errors
    assert count(es, name) == 1
    assert task["item_errors_by_status"] == {"409": 9}
    assert task["error_count"] == 2 and task["total_weight"] == 10


def test_query_and_load_runs_are_races_that_compare(es, es_hosts, name, tmp_path):
    es.indices.create(index=name, settings={"number_of_shards": 1, "number_of_replicas": 0})
    esbench(
        "query",
        "-n",
        "20",
        "--body",
        '{"size": 0}',
        f"http://{es_hosts[0]}/{name}/_search",
        "--user-tag=adhoc:query",
        "-q",
    )
    cfg = tmp_path / "search.yml"
    cfg.write_text(
        f"runner: {{no_warm: true}}\n"
        f"requests:\n  - request:\n      method: POST\n      url: http://{es_hosts[0]}/{name}/_search\n"
        f"      body: '{{\"size\": 0}}'\n    assert:\n      _ctx.response.status: 200\n"
    )
    esbench("load", "--config", str(cfg), "-c", "1", "-d", "2", "--user-tag=adhoc:load", "-q")
    listed = esbench("list", "races").stdout
    assert "adhoc-query" in listed and "adhoc-load" in listed
    compared = esbench(
        "compare", "--baseline=tag:adhoc:query", "--contender=tag:adhoc:load", "--report-format", "json"
    )
    data = json.loads(compared.stdout)
    text = json.dumps(data)
    assert "adhoc-query" in text or "query /" in text
    assert "POST /" in text


def test_rally_track_with_templated_requests(es, es_hosts):
    """examples/templated-track: seed 002's templated bulks and seed 001's $RDICT queries, no track.py."""
    track = Path(__file__).resolve().parents[2] / "examples" / "templated-track"
    esbench(
        "race",
        f"--track-path={track}",
        f"--target-hosts={es_hosts[0]}",
        # 1 s warmups instead of the example's 10 and 5 s: what is asserted does not depend on them.
        "--track-params=bulk_size:200,bulk_clients:2,bulk_time_period:3,search_time_period:3,"
        "bulk_warmup_time_period:1,search_warmup_time_period:1",
        "-q",
    )
    tasks = {t["task"]: t for t in last_race()["tasks"]}
    bulk, search = tasks["bulk-nginx-logs"], tasks["term-on-random-ip"]
    assert bulk["error_count"] == 0 and bulk["throughput_unit"] == "docs/s" and bulk["sample_count"] > 0
    # every measured bulk indexed 200 documents; warmup bulks come on top
    assert bulk["total_weight"] == 200 * bulk["sample_count"]
    assert count(es, "test-*") >= bulk["total_weight"]
    assert search["error_count"] == 0 and search["sample_count"] > 0  # the assertion held on every response


def test_target_hosts_override_the_url_host(es, es_hosts, name):
    es.indices.create(index=name)
    # Port 9 (discard) answers nothing: the request only succeeds if --target-hosts wins.
    esbench(
        "query",
        "-n",
        "3",
        "--body",
        '{"size": 0}',
        f"http://127.0.0.1:9/{name}/_search",
        f"--target-hosts={es_hosts[0]}",
        "--report-format=csv",
        "-q",
    )
    task = last_race()["tasks"][0]
    assert task["sample_count"] == 3 and task["error_count"] == 0
