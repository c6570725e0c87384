"""Cost of telemetry sampling beside the load, and the size of what an hour of samples keeps.

Times, in the coordinator's sampler thread's terms, one ``node-stats`` sample's parsing and
recording (``parse_node_stats`` + ``SampleTable.add``) on a real Elasticsearch 8.19 ``_nodes/stats``
response with ``nodes`` copies of the node; then feeds an hour of 1 s samples and reports the rows
kept, the table's memory (arrays), and the time and bytes to save the series to the results store
and load them back. No cluster needed.

Reproduce:
    python benchmarks/bench_telemetry.py [--nodes 3] [--seconds 3600]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

RESPONSE = Path(__file__).resolve().parents[1] / "tests" / "resources" / "telemetry" / "nodes_stats_8.19.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=3600)
    args = parser.parse_args()
    from esbench.records import RaceResult
    from esbench.results.store import ResultsStore
    from esbench.telemetry.devices.node_stats import NodeStats, parse_node_stats

    one = json.loads(RESPONSE.read_text())
    (node,) = one["nodes"].values()
    body = {"nodes": {f"id{i}": {**node, "name": f"node-{i}"} for i in range(args.nodes)}}
    device = NodeStats({})
    start = time.perf_counter()
    for second in range(args.seconds):
        values, units = parse_node_stats(body, device.sections, device.indices_metrics)
        device.table.add(1_763_900_000.0 + second, values, units)
    per_sample_ms = (time.perf_counter() - start) / args.seconds * 1000
    table = device.table
    memory = sum(col.itemsize * len(col) for col in table._columns.values()) + 8 * len(table._times)
    series = table.series()
    race = RaceResult(
        race_id="bench", timestamp="2026-11-23T00:00:00Z", track="t", challenge="c", telemetry=series
    )
    with tempfile.TemporaryDirectory() as tmp:
        store = ResultsStore.open(Path(tmp) / "results.db")
        t0 = time.perf_counter()
        store.save(race)
        saved_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        loaded = store.get("bench")
        loaded_s = time.perf_counter() - t0
        assert loaded.telemetry == series
        stored = store._conn.execute("SELECT sum(length(timestamps) + length(samples)) FROM telemetry_series")
        stored_bytes = stored.fetchone()[0]
        store.close()
    json_bytes = len(json.dumps([s.__dict__ for s in series]))
    print(f"command: python benchmarks/bench_telemetry.py --nodes {args.nodes} --seconds {args.seconds}")
    print(
        f"node-stats sample of {args.nodes} node(s): {len(table.columns())} series, "
        f"{per_sample_ms:.2f} ms per sample (parse + record)"
    )
    print(
        f"after {args.seconds} samples: {len(series[0].timestamps)} samples kept per series "
        f"(stride {table.stride}), "
        f"table arrays {memory / 2**20:.1f} MiB"
    )
    print(
        f"results store: save {saved_s:.2f} s, load {loaded_s:.2f} s, {stored_bytes / 2**20:.1f} MiB stored "
        f"(as JSON text: {json_bytes / 2**20:.1f} MiB)"
    )


if __name__ == "__main__":
    main()
