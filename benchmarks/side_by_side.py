"""Side-by-side benchmark of the load drivers: esbench vs Rally vs wrk vs vegeta (issues #5, #14).

One command::

    python benchmarks/side_by_side.py                      # all cases, 3 repetitions (~25 min)
    python benchmarks/side_by_side.py --cases search-1,search-16 --repetitions 1 --time-period 10

Cases: ``search-1`` / ``search-16`` (match_all search, 1 / 16 clients, against an nginx stub that
answers instantly), ``bulk-4`` (bulk, 4 clients, bulk-size 1000, 2,000,000 small documents, against
the stub), ``node`` (a real Elasticsearch node provisioned by esbench: eventdata index-append
throughput and term-search service time). esbench and Rally run the same tracks
(``benchmarks/tracks/``) and corpora; wrk (POST with the same body) is the physical reference, and
vegeta (a Go load tester: the same request, a closed loop of N workers) a second one on the stub
cases. Tools alternate, each run is measured as a whole process tree (CPU seconds, peak RSS/PSS,
CPU seconds per 1,000 requests), and the medians, the ratios esbench/Rally, esbench/wrk and
esbench/vegeta and the resource table are printed and written to ``summary.json`` / ``summary.md`` in
the run directory (``~/.esbench-bench/runs/<timestamp>``).

Installs what is missing (as root: ``apt-get install nginx-light wrk``; Rally with pip into
``~/.esbench-bench/rally-venv``; vegeta with ``go install github.com/tsenart/vegeta/v12@v12.13.0``
into ``~/.esbench-bench/tools/bin``), unless ``--no-install``. Sends traffic to 127.0.0.1 only; every run
is bounded in time; nginx, the node and all tool processes are stopped at the end, on errors and on
Ctrl-C. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sidebyside.cases import ALL_CASES, ALL_TOOLS, Options
from sidebyside.runner import run_benchmark


def _csv(allowed: tuple[str, ...]):
    def parse(text: str) -> tuple[str, ...]:
        items = tuple(x.strip() for x in text.split(",") if x.strip())
        bad = [x for x in items if x not in allowed]
        if bad:
            raise argparse.ArgumentTypeError(f"unknown {bad}; choose from {', '.join(allowed)}")
        return items

    return parse


def parse_args(argv: list[str]) -> Options:
    d = Options()
    p = argparse.ArgumentParser(
        prog="side_by_side.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--cases", type=_csv(ALL_CASES), default=d.cases, help="comma-separated (default: all)")
    p.add_argument("--tools", type=_csv(ALL_TOOLS), default=d.tools, help="comma-separated (default: all)")
    p.add_argument("--repetitions", type=int, default=d.repetitions, help="runs per tool and case")
    p.add_argument("--warmup", type=int, default=d.warmup_s, help="search warmup-time-period, s (default 5)")
    p.add_argument(
        "--time-period", type=int, default=d.time_period_s, help="search time-period and wrk duration, s"
    )
    p.add_argument("--stub-docs", type=int, default=d.stub_docs, help="bulk-4 corpus documents")
    p.add_argument("--bulk-clients", type=int, default=d.bulk_clients)
    p.add_argument("--bulk-size", type=int, default=d.bulk_size)
    p.add_argument("--node-version", default=d.node_version, help="Elasticsearch of the node case (8.8.2)")
    p.add_argument("--node-car", default=d.node_car, help="esbench car of the node (default: defaults)")
    p.add_argument("--node-docs", type=int, default=d.node_docs, help="eventdata documents (default 500,000)")
    p.add_argument("--node-bulk-clients", type=int, default=d.node_bulk_clients)
    p.add_argument("--node-bulk-size", type=int, default=d.node_bulk_size)
    p.add_argument("--node-bulk-warmup", type=int, default=d.node_bulk_warmup_s, help="s (default 10)")
    p.add_argument(
        "--node-bulk-time-period", type=int, default=d.node_bulk_time_period_s, help="s (default 30)"
    )
    p.add_argument(
        "--node-warmup-runs", type=int, default=d.node_warmup_runs, help="unmeasured races that warm the node"
    )
    p.add_argument("--node-search-iterations", type=int, default=d.node_search_iterations)
    p.add_argument(
        "--node-hosts",
        default=None,
        help="use this running node (127.0.0.1:PORT), do not provision",
    )
    p.add_argument("--nginx-workers", default=d.nginx_workers, help="nginx worker_processes (default auto)")
    p.add_argument("--port", type=int, default=0, help="stub port on 127.0.0.1 (default: a free one)")
    p.add_argument("--pause", type=float, default=d.pause_s, help="seconds between runs (default 2)")
    p.add_argument(
        "--no-install", action="store_true", help="fail instead of installing nginx/wrk/Rally/vegeta"
    )
    p.add_argument("--home", type=Path, default=d.home, help="state dir (default ~/.esbench-bench)")
    p.add_argument("--out", type=Path, default=None, help="run dir (default HOME/runs/<timestamp>)")
    a = p.parse_args(argv)
    if a.node_hosts and not a.node_hosts.startswith(("127.", "localhost", "[::1]")):
        p.error("--node-hosts must be a loopback address (127.0.0.0/8)")
    if a.repetitions < 1:
        p.error("--repetitions must be >= 1")
    return Options(
        cases=a.cases,
        tools=a.tools,
        repetitions=a.repetitions,
        warmup_s=a.warmup,
        time_period_s=a.time_period,
        stub_docs=a.stub_docs,
        bulk_clients=a.bulk_clients,
        bulk_size=a.bulk_size,
        node_version=a.node_version,
        node_car=a.node_car,
        node_docs=a.node_docs,
        node_bulk_clients=a.node_bulk_clients,
        node_bulk_size=a.node_bulk_size,
        node_bulk_warmup_s=a.node_bulk_warmup,
        node_bulk_time_period_s=a.node_bulk_time_period,
        node_warmup_runs=a.node_warmup_runs,
        node_search_iterations=a.node_search_iterations,
        node_hosts=a.node_hosts,
        nginx_workers=a.nginx_workers,
        port=a.port,
        pause_s=a.pause,
        install=not a.no_install,
        home=a.home,
        out=a.out,
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    opts = parse_args(argv)
    try:
        run_benchmark(opts, argv=["benchmarks/side_by_side.py", *argv])
    except KeyboardInterrupt:
        return 130
    except RuntimeError as e:
        # A tool cannot be installed or started (missing Go, apt, pip): say so without a traceback.
        print(f"side_by_side.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
