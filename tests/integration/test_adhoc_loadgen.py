"""esperf's command line and Loadgen's DSL and runner keys against a real node.

The fixtures are our own, written to the formats Loadgen documents (``loadgen.yml``, ``.dsl``
with ``# 200`` / ``# {...}`` assertions and ``# key: {...}`` option blocks); what counts is what
Elasticsearch received, indexed and logged.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest
from adhoc_harness import count, last_race
from harness import esbench, ok


@pytest.fixture
def name() -> str:
    return f"lg-{uuid.uuid4().hex[:8]}"


SEED_001_BODY = (
    '{"from": 100, "size": 1, "timeout": "60s", "post_filter": {"bool": {"filter": [{"geo_shape": '
    '{"theGeom": {"shape": {"type": "Point", "coordinates": [$RDICT]}, "relation": "intersects"}, '
    '"ignore_unmapped": false, "boost": 1.0}}, {"terms": {"brand": ["KFC"], "boost": 1.0}}], '
    '"adjust_pure_negative": true, "boost": 1.0}}, "_source": {"includes": ["id", "brand", "storeCode", '
    '"name", "areaType", "status", "updateTime"], "excludes": []}, "sort": [{"name": {"order": "asc"}}, '
    '{"storeCode": {"order": "asc"}}]}\n'
)


def test_seed_001_esperf_command_line(es, es_hosts, name, tmp_path):
    """`esperf -r 50 -t 1 -d ./location.txt URL` with `esbench query` instead: 50 requests from one
    client, each with a dictionary line, as the node's search stats, HTTP client stats and search
    slow log show."""
    lines = ["11.5,22.5", "33.25,44.75", "-55.5,66.125", "77.0,-8.5"]
    (tmp_path / "location.txt").write_text("\n".join(lines) + "\n")
    es.indices.create(
        index=name,
        settings={"number_of_replicas": 0, "index.search.slowlog.threshold.query.info": "0ms"},
        # geo_point: this node's distribution has no geo_shape field type; the query works on both.
        mappings={
            "properties": {
                "theGeom": {"type": "geo_point"},
                **{f: {"type": "keyword"} for f in ("brand", "name", "storeCode")},
            }
        },
    )
    logs = Path(next(iter(es.nodes.info(node_id="_local")["nodes"].values()))["settings"]["path"]["logs"])
    slowlogs = list(logs.glob("*_index_search_slowlog.json"))
    before = {p: p.stat().st_size for p in slowlogs}
    url = f"http://{es_hosts[0]}/{name}/_search"
    ok(
        esbench(
            "query",
            "-r",
            "50",
            "-t",
            "1",
            "-d",
            "./location.txt",
            url,
            "-q",
            stdin=SEED_001_BODY,
            cwd=tmp_path,
        )
    )
    stats = es.indices.stats(index=name, metric="search")["indices"][name]["total"]["search"]
    assert stats["query_total"] == 50
    task = last_race()["tasks"][0]
    assert task["sample_count"] == 50 and task["error_count"] == 0
    # One client: the node saw one HTTP connection send the 50 searches.
    http = es.nodes.stats(node_id="_local", metric="http")["nodes"]
    channels = [
        c for n in http.values() for c in n["http"]["clients"] if c.get("last_uri") == f"/{name}/_search"
    ]
    assert [c["request_count"] for c in channels] == [50]
    sources = []
    for path in logs.glob("*_index_search_slowlog.json"):
        with path.open("rb") as f:
            f.seek(before.get(path, 0))
            for raw in f.read().decode().splitlines():
                entry = json.loads(raw)
                if entry.get("elasticsearch.slowlog.message", "").startswith(f"[{name}]"):
                    sources.append(entry["elasticsearch.slowlog.source"])
    assert len(sources) == 50
    used = [next(line for line in lines if f"[{line}]" in s) for s in sources]
    assert len(set(used)) >= 2  # 50 draws over 4 lines


API_TEST = """\
# // An API test of our own, in Loadgen's DSL: run with EP and IDX set.
# runner: {
#   total_rounds: 1,
#   no_warm: true,
#   assert_invalid: true,
#   continue_on_assert_invalid: @CONTINUE@,
#   default_endpoint: "$[[env.EP]]",
# },
# variables: [
#   {name: "colour", type: "list", data: ["red", "blue"]},
#   {name: "row", type: "uuid"},
# ],
# env: {IDX: "never-used"}

DELETE /$[[env.IDX]]

PUT /$[[env.IDX]]
{"settings": {"number_of_replicas": 0}}
# @STATUS@
# {"acknowledged": true, "index": "@INDEX@"}

POST /_bulk
{"index": {"_index": "$[[env.IDX]]", "_id": "$[[row]]"}}
{"colour": "$[[colour]]", "batch": "$[[batch]]"}
# request: {
#   body_repeat_times: 3,
#   runtime_variables: {batch: "row"},
# },
# assert: {_ctx: {response: {body_json: {errors: false}}}}

GET /$[[env.IDX]]/_refresh
# sleep: {sleep_in_milli_seconds: 400}

GET http://@HOST@/$[[env.IDX]]/_count
# {"count": 3}

GET /$[[env.IDX]]/_search
# 200 {"hits": {"total": {"value": gte(3)}, "hits": [{"_index": "@INDEX@"}]}, "took": lt(60000),
#      "timed_out": false}
"""


def api_test(tmp_path: Path, index: str, host: str, *, status: int = 200, go_on: bool = True) -> Path:
    text = API_TEST.replace("@INDEX@", index).replace("@STATUS@", str(status)).replace("@HOST@", host)
    path = tmp_path / "api.dsl"
    path.write_text(text.replace("@CONTINUE@", "true" if go_on else "false"))
    return path


def test_dsl_api_test_passes_in_file_order(es, es_hosts, name, tmp_path):
    dsl = api_test(tmp_path, name, es_hosts[0])
    ok(
        esbench(
            "load", "-run", str(dsl), "-q", cwd=tmp_path, env={"EP": f"http://{es_hosts[0]}", "IDX": name}
        )
    )
    race = last_race()
    assert [t["task"] for t in race["tasks"]] == [
        f"DELETE /{name}",
        f"PUT /{name}",
        "POST /_bulk",
        f"GET /{name}/_refresh",
        f"GET /{name}/_count",
        f"GET /{name}/_search",
    ]
    # Every assertion held; only the DELETE of the index that did not exist yet failed (404).
    assert [t["error_count"] for t in race["tasks"]] == [1, 0, 0, 0, 0, 0]
    # sleep: the client paused 400 ms after the refresh, outside the service time.
    refresh = race["tasks"][3]
    assert refresh["processing_time_ms"]["100"] >= 400 > refresh["service_time_ms"]["100"], refresh
    docs = [h["_source"] for h in es.search(index=name)["hits"]["hits"]]
    assert len(docs) == 3 and {d["colour"] for d in docs} <= {"red", "blue"}
    assert len({d["batch"] for d in docs}) == 1  # runtime_variables: one value per request
    listed = ok(esbench("list", "races")).stdout
    assert race["race_id"][:8] in listed


def test_dsl_wrong_status_fails_the_run_naming_request_and_values(es, es_hosts, name, tmp_path):
    env = {"EP": f"http://{es_hosts[0]}", "IDX": name}
    result = esbench(
        "load", "-run", str(api_test(tmp_path, name, es_hosts[0], status=201)), cwd=tmp_path, env=env
    )
    assert result.returncode == 1, result.stderr[-2000:]
    assert f"PUT /{name}: 1 of 1 responses failed the assertion" in result.stderr
    assert "_ctx.response.status is 200, expected it to equal 201" in result.stderr
    assert "Traceback" not in result.stderr
    # continue_on_assert_invalid: the requests after it ran; the race is stored with the failure.
    assert count(es, name) == 3
    put = last_race()["tasks"][1]
    assert put["errors_by_type"] == {"assertion": 1}
    es.indices.delete(index=name)

    result = esbench(
        "load",
        "-run",
        str(api_test(tmp_path, name, es_hosts[0], status=201, go_on=False)),
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode != 0
    text = result.stderr.replace("\n", " ")
    assert f"PUT /{name}: assertion failed: _ctx.response.status is 200, expected it to equal 201" in text
    assert "Traceback" not in text
    # The run ended there: the bulk was never sent.
    assert count(es, name) == 0


RUNNER_KEYS = """\
runner:
  total_rounds: 2
  no_warm: false
  valid_status_codes_during_warmup: [404]
  log_status_codes: [404]
  skip_invalid_assert: true
  assert_invalid: true
  continue_on_assert_invalid: true
  reset_context: true
  no_stats: false
  metric_sample_size: 100
requests:
  - request:
      method: GET
      url: http://@HOST@/@INDEX@/_doc/missing
    assert:
      equals: {_ctx.response.status: 404}
  - request:
      method: POST
      url: http://@HOST@/@INDEX@/_doc
      execute_repeat_times: 3
      body: '{"n": 1}'
    assert:
      no_such_condition: {_ctx.response.status: 201}
  - request:
      method: GET
      simple_mode: true
      url: http://@HOST@/@INDEX@/_count
      body: 'not json: sent only without simple_mode'
"""


def test_yaml_runner_and_request_keys(es, es_hosts, name, tmp_path):
    es.indices.create(index=name, settings={"number_of_replicas": 0})
    cfg = tmp_path / "keys.yml"
    cfg.write_text(RUNNER_KEYS.replace("@HOST@", es_hosts[0]).replace("@INDEX@", name))
    ok(esbench("load", "--config", str(cfg), "-c", "2", "-d", "60", "-q"))
    race = last_race()
    tasks = {t["task"]: t for t in race["tasks"]}
    assert race["track"] == "adhoc-load"
    assert not tasks[f"warm-up POST /{name}/_doc"]["include_in_reporting"]
    post = tasks[f"POST /{name}/_doc"]
    # total_rounds 2 x 2 clients x execute_repeat_times 3 measured, + 3 in the warm-up round
    assert post["sample_count"] == 12 and count(es, name) == 15
    # the 404 is what the assertion expects; simple_mode sent no body, so _count answered 200
    assert all(t["error_count"] == 0 for t in race["tasks"]), race["tasks"]
    assert tasks[f"GET /{name}/_count"]["sample_count"] == 4
    log = (Path(os.environ["ESBENCH_HOME"]) / "races" / race["race_id"] / "esbench.log").read_text()
    assert f"[GET] /{name}/_doc/missing" in log and "status: 404" in log
    assert f"[POST] /{name}/_doc" not in log  # log_status_codes: only the 404s

    # Without 404 among valid_status_codes_during_warmup the warm-up round stops the run.
    cfg.write_text(cfg.read_text().replace("valid_status_codes_during_warmup: [404]", "log_requests: true"))
    result = esbench("load", "--config", str(cfg), "-q")
    assert result.returncode != 0
    assert (
        "the warm-up round got HTTP 404" in result.stderr
        and "valid_status_codes_during_warmup" in result.stderr
    )
    assert count(es, name) == 15


def test_yaml_benchmark_only_skips_assertions(es, es_hosts, name, tmp_path):
    es.indices.create(index=name, settings={"number_of_replicas": 0})
    cfg = tmp_path / "bench.yml"
    text = (
        "runner: {no_warm: true, total_rounds: 3, assert_invalid: true, benchmark_only: @B@}\n"
        f"requests:\n  - request: {{method: GET, url: 'http://{es_hosts[0]}/{name}/_count'}}\n"
        "    assert: {equals: {_ctx.response.body_json.count: 42}}\n"
    )
    cfg.write_text(text.replace("@B@", "true"))
    ok(esbench("load", "--config", str(cfg), "-q"))
    assert last_race()["tasks"][0]["sample_count"] == 3
    cfg.write_text(text.replace("@B@", "false"))
    result = esbench("load", "--config", str(cfg), "-q")
    assert (
        result.returncode == 1
        and "_ctx.response.body_json.count is 0, expected it to equal 42" in result.stderr
    )
