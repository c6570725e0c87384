"""Run esbench's Rally plugin fixture tracks under Rally 2.13 and under esbench; compare them.

The fixtures (tests/resources/tracks/rallyplugins, rallyplugins-errors) use only Rally's plugin API.
Both tools race them against the same Elasticsearch node (8.8.2 integ-test-zip by default: Rally
needs ``GET /``, which later integ-test-zips do not answer), one after the other. Compared:

* the main fixture: the task list (in order) and the requests per task (warmup + measurement) -
  Rally's from its metrics store (``service_time`` documents per task in ``rally-metrics-*``, the
  node itself serves as Rally's metrics store), esbench's from its results.json;
* the failing fixture, per ``fail_in``: both tools exit non-zero.

Rally is installed with pip into its own virtualenv if missing (see benchmarks/sidebyside/tools.py).
Prints the comparison and the command; exits 1 when the tools disagree.

    python3 benchmarks/rally_plugin_fixtures.py [--home DIR] [--hosts 127.0.0.1:9200]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sidebyside.node import real_node
from sidebyside.tools import BenchPaths, ensure_rally, rally_ini_text, run_measured

REPO = Path(__file__).resolve().parents[1]
TRACKS = REPO / "tests" / "resources" / "tracks"
FAIL_IN = ("constructor", "params", "next", "runner", "processor")


def _get(host: str, path: str, body: dict | None = None, method: str | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        f"http://{host}{path}", data=data, headers={"content-type": "application/json"}, method=method
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def rally_requests(host: str, race_id: str) -> dict[str, int]:
    """Requests per task of one Rally race: its ``service_time`` samples (warmup included), in
    the order the tasks ran."""
    _get(host, "/rally-metrics-*/_refresh", method="POST")
    query = {
        "size": 0,
        "query": {"bool": {"filter": [{"term": {"race-id": race_id}}, {"term": {"name": "service_time"}}]}},
        "aggs": {
            "tasks": {
                "terms": {"field": "task", "size": 100},
                "aggs": {"first": {"min": {"field": "@timestamp"}}},
            }
        },
    }
    buckets = _get(host, "/rally-metrics-*/_search", query)["aggregations"]["tasks"]["buckets"]
    return {b["key"]: b["doc_count"] for b in sorted(buckets, key=lambda b: b["first"]["value"])}


def esbench_requests(results_json: Path) -> dict[str, int]:
    data = json.loads(results_json.read_text())
    return {t["task"]: t["sample_count"] + t["warmup_sample_count"] for t in data["tasks"]}


def prepare_metrics_store(paths: BenchPaths, host: str) -> None:
    """Put Rally's ``rally-metrics`` template with ``keyword`` instead of ``wildcard`` (the
    integ-test-zip lacks the wildcard field type, so Rally's own template is rejected; Rally keeps
    an existing template)."""
    pattern = "lib/python*/site-packages/esrally/resources/metrics-template.json"
    template = next(paths.rally_venv.glob(pattern))
    body = json.loads(template.read_text().replace('"wildcard"', '"keyword"'))
    _get(host, "/_index_template/rally-metrics", body, method="PUT")


def rally_ini_with_es_store(paths: BenchPaths, host: str) -> str:
    ini_host, port = host.split(":")
    return (
        rally_ini_text(paths)
        .replace("datastore.type = in-memory", "datastore.type = elasticsearch")
        .replace("datastore.host =\n", f"datastore.host = {ini_host}\n")
        .replace("datastore.port =\n", f"datastore.port = {port}\n")
    )


def run_rally(
    paths: BenchPaths, host: str, track: Path, run_dir: Path, name: str, params: str = ""
) -> tuple[int | None, str | None, Path]:
    cmd = [
        str(paths.rally_bin),
        "race",
        "--pipeline=benchmark-only",
        "--offline",
        f"--track-path={track}",
        f"--target-hosts={host}",
        "--on-error=continue",
        "--report-format=csv",
        f"--report-file={run_dir / (name + '.report.csv')}",
    ]
    if params:
        cmd.append(f"--track-params={params}")
    env = dict(os.environ, RALLY_HOME=str(paths.rally_home))
    rc, _usage, log = run_measured(cmd, run_dir=run_dir, name=name, env=env, timeout=900)
    race_id = None
    for line in log.read_text(errors="replace").splitlines():
        if "Race id is [" in line:
            race_id = line.split("Race id is [", 1)[1].split("]", 1)[0]
    return rc, race_id, log


def run_esbench(
    paths: BenchPaths, host: str, track: Path, run_dir: Path, name: str, params: str = ""
) -> tuple[int | None, Path | None, Path]:
    cmd = [
        sys.executable,
        "-m",
        "esbench",
        "race",
        "--pipeline=benchmark-only",
        "--offline",
        f"--target-hosts={host}",
        f"--track-path={track}",
    ]
    if params:
        cmd.append(f"--track-params={params}")
    env = dict(os.environ, ESBENCH_HOME=str(paths.esbench_home), PYTHONPATH=str(REPO))
    rc, _usage, log = run_measured(cmd, run_dir=run_dir, name=name, env=env, timeout=900)
    results = None
    for line in log.read_text(errors="replace").splitlines():
        if "results in " in line:
            results = Path(line.rsplit("results in ", 1)[1].strip()) / "results.json"
    return rc, results, log


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--home", type=Path, default=Path.home() / ".esbench-bench", help="state directory")
    parser.add_argument("--hosts", help="use this running node (host:port) instead of provisioning one")
    parser.add_argument("--node-version", default="8.8.2", help="Elasticsearch of the provisioned node")
    args = parser.parse_args()
    paths = BenchPaths(home=args.home)
    print("Rally:", ensure_rally(paths))
    ini = paths.rally_home / ".rally" / "rally.ini"
    run_dir = paths.home / "runs" / f"plugins-{time.strftime('%Y%m%d-%H%M%S')}"
    run_dir.mkdir(parents=True, exist_ok=True)
    agree = True
    with real_node(
        version=args.node_version, car="defaults", race_dir=run_dir / "node", hosts=args.hosts
    ) as host:
        ini.write_text(rally_ini_with_es_store(paths, host))
        prepare_metrics_store(paths, host)
        rc, race_id, log = run_rally(paths, host, TRACKS / "rallyplugins", run_dir, "rally.main")
        rally = rally_requests(host, race_id) if rc == 0 and race_id else {}
        print(f"Rally   exit {rc}, log {log}")
        rc_e, results, log_e = run_esbench(paths, host, TRACKS / "rallyplugins", run_dir, "esbench.main")
        esb = esbench_requests(results) if rc_e == 0 and results else {}
        print(f"esbench exit {rc_e}, log {log_e}")
        print(f"\n{'task':<24} {'Rally':>7} {'esbench':>8}")
        for task in list(dict.fromkeys([*rally, *esb])):
            print(f"{task:<24} {rally.get(task, '-'):>7} {esb.get(task, '-'):>8}")
        same_order = list(rally) == list(esb)
        print(f"same task list and order: {same_order}; same request counts: {rally == esb}")
        agree = agree and bool(rally) and rally == esb and same_order
        print("\nfailing fixture (exit codes):")
        for fail_in in FAIL_IN:
            r_rc, _, _ = run_rally(
                paths,
                host,
                TRACKS / "rallyplugins-errors",
                run_dir,
                f"rally.{fail_in}",
                f"fail_in:{fail_in}",
            )
            e_rc, _, _ = run_esbench(
                paths,
                host,
                TRACKS / "rallyplugins-errors",
                run_dir,
                f"esbench.{fail_in}",
                f"fail_in:{fail_in}",
            )
            both = bool(r_rc) and bool(e_rc)
            agree = agree and both
            verdict = "both fail" if both else "DIFFERENT"
            print(f"  fail_in={fail_in:<12} Rally exit {r_rc}, esbench exit {e_rc}: {verdict}")
    print(f"\nrun directory: {run_dir}")
    print(f"command: python3 {' '.join(sys.argv)}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
