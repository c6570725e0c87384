"""The cases of the side-by-side benchmark and the options that shape them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sidebyside.tools import WrkSpec

TRACKS_DIR = Path(__file__).resolve().parents[1] / "tracks"

#: Case names in run order.
ALL_CASES: tuple[str, ...] = ("search-1", "search-16", "bulk-4", "node")
ALL_TOOLS: tuple[str, ...] = ("esbench", "rally", "wrk", "vegeta")
#: Tools that send the wrk reference request (``Case.wrk``) rather than run the case's track.
HTTP_TOOLS: tuple[str, ...] = ("wrk", "vegeta")

SEARCH_BODY = b'{"query":{"match_all":{}}}'
TERM_BODY = b'{"query":{"term":{"useragent.os_name":"Windows 7"}}}'


@dataclass(frozen=True, kw_only=True)
class Options:
    """Everything a benchmark run depends on (the CLI flags of ``side_by_side.py``).

    Times in seconds; ``stub_docs`` / ``node_docs`` in documents.
    """

    cases: tuple[str, ...] = ALL_CASES
    tools: tuple[str, ...] = ALL_TOOLS
    repetitions: int = 3
    warmup_s: int = 5
    time_period_s: int = 20
    stub_docs: int = 2_000_000
    bulk_clients: int = 4
    bulk_size: int = 1000
    node_version: str = "8.8.2"
    node_car: str = "defaults"
    node_docs: int = 500_000
    node_bulk_clients: int = 8
    node_bulk_size: int = 5000
    node_bulk_warmup_s: int = 10
    node_bulk_time_period_s: int = 30
    node_warmup_runs: int = 1
    node_search_warmup_iterations: int = 200
    node_search_iterations: int = 1000
    node_hosts: str | None = None
    nginx_workers: str = "auto"
    port: int = 0
    pause_s: float = 2.0
    install: bool = True
    home: Path = field(default_factory=lambda: Path.home() / ".esbench-bench")
    out: Path | None = None


@dataclass(frozen=True, kw_only=True)
class Case:
    """One benchmark case.

    Attributes:
        name: ``search-1``, ``search-16``, ``bulk-4``, ``node``.
        description: one line for the report.
        target: ``stub`` (nginx) or ``node`` (a real Elasticsearch).
        track: directory under ``benchmarks/tracks``.
        params: track params (the same for both race tools).
        tasks: the tasks whose rows are read from the reports.
        shown: ``(task, metric)`` pairs of the summary table (metric names of ``tools.ROW_NAMES``).
        wrk: the wrk reference run, or None; vegeta sends the same request on the stub cases.
        timeout_s: upper bound of one race tool run.
    """

    name: str
    description: str
    target: str
    track: str
    params: dict[str, Any]
    tasks: tuple[str, ...]
    shown: tuple[tuple[str, str], ...]
    wrk: WrkSpec | None
    timeout_s: float

    @property
    def track_path(self) -> Path:
        return TRACKS_DIR / self.track


def build_cases(opts: Options, *, bodies: dict[str, Path]) -> list[Case]:
    """The selected cases, in :data:`ALL_CASES` order.

    Args:
        bodies: request body files for wrk: ``"search"``, ``"bulk"``, ``"term"``.
    """
    out: list[Case] = []
    search_timeout = 3 * (opts.warmup_s + opts.time_period_s) + 180
    for name in ALL_CASES:
        if name not in opts.cases:
            continue
        if name.startswith("search-"):
            clients = int(name.split("-")[1])
            out.append(
                Case(
                    name=name,
                    description=f"search (match_all) against the nginx stub, {clients} client(s), "
                    f"warmup {opts.warmup_s} s, time-period {opts.time_period_s} s",
                    target="stub",
                    track="stub-search",
                    params={
                        "search_clients": clients,
                        "warmup_time_period": opts.warmup_s,
                        "time_period": opts.time_period_s,
                    },
                    tasks=("search",),
                    shown=(("search", "throughput"), ("search", "service_time_p50_ms")),
                    wrk=WrkSpec(
                        task="search",
                        connections=clients,
                        threads=min(clients, 2),
                        duration_s=opts.time_period_s,
                        path="/stub/_search",
                        body_file=bodies["search"],
                    ),
                    timeout_s=search_timeout,
                )
            )
        elif name == "bulk-4":
            out.append(
                Case(
                    name=name,
                    description=f"bulk against the nginx stub, {opts.bulk_clients} clients, bulk-size "
                    f"{opts.bulk_size}, looping over {opts.stub_docs:,} small documents (~140 B), "
                    f"warmup {opts.warmup_s} s, time-period {opts.time_period_s} s",
                    target="stub",
                    track="stub-bulk",
                    params={
                        "bulk_indexing_clients": opts.bulk_clients,
                        "bulk_size": opts.bulk_size,
                        "document_count": opts.stub_docs,
                        "warmup_time_period": opts.warmup_s,
                        "time_period": opts.time_period_s,
                    },
                    tasks=("index-append",),
                    shown=(("index-append", "throughput"), ("index-append", "service_time_p50_ms")),
                    wrk=WrkSpec(
                        task="index-append",
                        connections=opts.bulk_clients,
                        threads=min(opts.bulk_clients, 2),
                        duration_s=opts.time_period_s,
                        path="/_bulk",
                        body_file=bodies["bulk"],
                        content_type="application/x-ndjson",
                        docs_per_request=opts.bulk_size,
                    ),
                    timeout_s=search_timeout + opts.stub_docs / 20_000,
                )
            )
        elif name == "node":
            out.append(
                Case(
                    name=name,
                    description=f"one real Elasticsearch {opts.node_version} node: eventdata index-append "
                    f"({opts.node_bulk_clients} clients, bulk-size {opts.node_bulk_size}, looping over "
                    f"{opts.node_docs:,} docs, warmup {opts.node_bulk_warmup_s} s, time-period "
                    f"{opts.node_bulk_time_period_s} s) then a term search (1 client, "
                    f"{opts.node_search_iterations} iterations)",
                    target="node",
                    track="eventdata-node",
                    params={
                        "document_count": opts.node_docs,
                        "bulk_indexing_clients": opts.node_bulk_clients,
                        "bulk_size": opts.node_bulk_size,
                        "bulk_warmup_time_period": opts.node_bulk_warmup_s,
                        "bulk_time_period": opts.node_bulk_time_period_s,
                        "search_warmup_iterations": opts.node_search_warmup_iterations,
                        "search_iterations": opts.node_search_iterations,
                    },
                    tasks=("index-append", "term"),
                    shown=(
                        ("index-append", "throughput"),
                        ("term", "service_time_p50_ms"),
                        ("term", "service_time_p90_ms"),
                    ),
                    wrk=WrkSpec(
                        task="term",
                        connections=1,
                        threads=1,
                        duration_s=10,
                        path="/eventdata/_search",
                        body_file=bodies["term"],
                    ),
                    timeout_s=1200.0
                    + opts.node_bulk_warmup_s
                    + opts.node_bulk_time_period_s
                    + opts.node_docs / 5000,
                )
            )
    return out


def tool_order(tools: tuple[str, ...], rep: int, case_index: int) -> list[str]:
    """The tools rotated by ``rep + case_index``: each tool goes first in turn, so slow drift of the
    machine (other load, page cache, thermal) spreads over all tools."""
    if not tools:
        return []
    k = (rep + case_index) % len(tools)
    return list(tools[k:] + tools[:k])
