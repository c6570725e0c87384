"""Speed and statistics of the eventdata corpus generator (esbench.corpus.generators.eventdata).

Measures: catalog build time; single-core rendering speed (documents per CPU second and per wall
second); the full cached generation of ``--docs`` documents (default 1,000,000) with one worker
process per core, including the uncompressed file, zstd copy, -1k variant, offset index and
metadata; then line-size statistics and field distributions on the first ``--stats-docs``
documents (default 200,000), to compare with the original corpus (docs/corpora.md).

Reproduce:
    python benchmarks/bench_eventdata_generator.py [--docs 1000000] [--seed 1] [--workers N]
        [--stats-docs 200000] [--out /tmp/esbench-gen-bench]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import time
from collections import Counter
from pathlib import Path


def _pct(values: list[int], q: float) -> int:
    return values[min(len(values) - 1, int(q * len(values)))]


def _stats(lines: list[bytes]) -> None:
    n = len(lines)
    sizes = sorted(len(line) + 1 for line in lines)
    print(f"\nline size over {n:,} documents (bytes, including the newline):")
    print(
        f"  mean {statistics.fmean(sizes):.1f}  median {_pct(sizes, 0.5)}  p1 {_pct(sizes, 0.01)}  "
        f"p10 {_pct(sizes, 0.10)}  p90 {_pct(sizes, 0.90)}  p99 {_pct(sizes, 0.99)}  "
        f"min {sizes[0]}  max {sizes[-1]}"
    )
    docs = [json.loads(line) for line in lines]

    def share(values: list[object], k: int = 6) -> str:
        counts = Counter(values)
        return (
            ", ".join(f"{v} {100 * c / n:.1f} %" for v, c in counts.most_common(k))
            + f"  ({len(counts):,} distinct)"
        )

    print("  useragent.name:   ", share([d["useragent"]["name"] for d in docs]))
    print("  useragent.os_name:", share([d["useragent"]["os_name"] for d in docs]))
    print("  geoip.country_name:", share([d["geoip"]["country_name"] for d in docs]))
    print("  response:         ", share([d["response"] for d in docs], 7))
    print("  verb:             ", share([d["verb"] for d in docs], 2))
    agents = Counter(d["agent"] for d in docs).most_common()
    top10 = sum(c for _, c in agents[:10]) / n
    top100 = sum(c for _, c in agents[:100]) / n
    mean_agent = statistics.fmean(len(d["agent"]) for d in docs)
    print(
        f"  agent: {len(agents):,} distinct, top 10 {100 * top10:.1f} %, top 100 {100 * top100:.1f} %, "
        f"mean {mean_agent:.1f} chars"
    )
    requests = Counter(d["request"] for d in docs)
    head = ", ".join(f"{r} {100 * c / n:.1f} %" for r, c in requests.most_common(3))
    mean_request = statistics.fmean(len(d["request"]) for d in docs)
    print(f"  request: {len(requests):,} distinct, mean {mean_request:.1f} chars; head: {head}")
    referrers = [d["referrer"] for d in docs]
    dash = referrers.count('"-"') / n
    mean_referrer = statistics.fmean(len(r) for r in referrers)
    print(f"  referrer: '\"-\"' {100 * dash:.1f} %, mean {mean_referrer:.1f} chars")
    ips = [d["clientip"] for d in docs]
    nets = [ip for ip in ips if ip.endswith(".0")]
    print(
        f"  clientip: {100 * len(nets) / n:.1f} % a.b.c.0 networks ({len(set(nets)):,} distinct), "
        f"{len(set(ips)):,} distinct in all"
    )
    sizes_b = sorted(d["bytes"] for d in docs)
    zero = sum(1 for b in sizes_b if b == 0) / n
    print(
        f"  bytes: zero {100 * zero:.1f} %, median {_pct(sizes_b, 0.5):,}, "
        f"mean {statistics.fmean(sizes_b):,.0f}, "
        f"p90 {_pct(sizes_b, 0.9):,}, p99 {_pct(sizes_b, 0.99):,}"
    )
    print(f"  message: mean {statistics.fmean(len(d['message']) for d in docs):.1f} chars")
    stamps = [d["@timestamp"] for d in docs]
    print(
        f"  @timestamp: {stamps[0]} .. {stamps[-1]}, non-decreasing: {stamps == sorted(stamps)}, "
        f"{n / len(set(stamps)):.1f} documents per distinct millisecond"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=None, help="processes (default: one per core)")
    parser.add_argument("--stats-docs", type=int, default=200_000)
    parser.add_argument("--out", type=Path, default=Path("/tmp/esbench-gen-bench"))
    args = parser.parse_args()

    from esbench.corpus.generate import generate_file
    from esbench.corpus.generators.eventdata import GENERATOR
    from esbench.corpus.generators.eventdata_catalog import catalog

    start = time.perf_counter()
    catalog()
    print(f"catalog build: {time.perf_counter() - start:.2f} s (once per process)")

    params = GENERATOR.normalize_params({"seed": args.seed, "doc_count": args.docs})
    chunks = 4
    wall, cpu = time.perf_counter(), time.process_time()
    rendered = [GENERATOR.render_chunk(params, k, GENERATOR.chunk_size) for k in range(chunks)]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    docs = chunks * GENERATOR.chunk_size
    print(f"one core: {docs / cpu:,.0f} docs/CPU-s, {docs / wall:,.0f} docs/s wall ({docs:,} docs)")

    shutil.rmtree(args.out, ignore_errors=True)
    wall, cpu = time.perf_counter(), time.process_time()
    result = generate_file(
        GENERATOR, params, path=args.out / "eventdata.json", document_count=args.docs, workers=args.workers
    )
    wall = time.perf_counter() - wall
    print(
        f"generate_file({args.docs:,} docs, workers={args.workers or 'cores'}): {wall:.1f} s wall "
        f"({args.docs / wall:,.0f} docs/s), parent CPU {time.process_time() - cpu:.1f} s; "
        f"{result.uncompressed_bytes / 1e6:,.1f} MB uncompressed, "
        f"{(result.compressed_bytes or 0) / 1e6:,.1f} MB zstd"
    )

    stats_lines: list[bytes] = []
    k = 0
    while len(stats_lines) < args.stats_docs:
        chunk = rendered[k] if k < len(rendered) else GENERATOR.render_chunk(params, k, GENERATOR.chunk_size)
        stats_lines.extend(chunk.split(b"\n")[:-1])
        k += 1
    _stats(stats_lines[: args.stats_docs])


if __name__ == "__main__":
    main()
