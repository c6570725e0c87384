"""CPU cost per request of the driver's hot path, one event loop (not a test: prints measurements).

Run::

    python benchmarks/bench_request_cost.py                                   # this tree
    python benchmarks/bench_request_cost.py --source /path/to/old/tree --source .   # A/B, alternating

Starts the loopback nginx stub of ``benchmarks/sidebyside/`` (an instant Elasticsearch) and, in one
process on one uvloop event loop (what one worker process of the driver runs), ``--clients``
clients of a ``search`` task (``match_all``, unthrottled, ``--requests`` requests in all) through the
real per-client path: :class:`esbench.driver.worker.executor.ClientExecutor` → the built-in ``search``
runner → :class:`esbench.driver.transport.rawhttp.RawHttpTransport` →
:class:`esbench.metrics.recorder.TaskRecorder`.
``--operation bulk`` sends bulks of ``--bulk-size`` small documents instead (one body, copied per
request); ``--operation bulk-corpus`` sends the bulks of a real track corpus (the ~140-byte documents
of the side-by-side ``bulk-4`` case, ``--corpus-docs`` of them, generated once under
``~/.esbench-bench/request-cost``) through the track's ``bulk`` param source, so that building each
body from the corpus file is in the figure too.

Prints, per run, the process CPU time per request (µs: user + system, so the socket system calls
are in it) and requests per wall-clock second (``--one-run`` also prints page faults and context
switches per 1,000 requests); then the median per source over ``--repetitions``
runs. CPU per request is the figure to compare: it moves much less than throughput when other
processes share the two cores (wall-clock throughput is printed for orientation only). With several
``--source`` trees, each run is a subprocess with ``PYTHONPATH`` set to that tree, and the sources
alternate so that drift of the machine affects them alike.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _one_run(args: argparse.Namespace) -> dict[str, float]:
    """Run the clients once in this process; ``{"cpu_us": ..., "rps": ..., "requests": ...}``."""
    import asyncio

    import uvloop

    from esbench.driver.coordinator.allocator import ClientAllocation, ClientPlan
    from esbench.driver.transport.client import ClientOptions, ConnectionSettings, create_client
    from esbench.driver.worker.context import RaceContext
    from esbench.driver.worker.executor import ClientExecutor, StepControl, TaskRun
    from esbench.driver.worker.registry import default_registry
    from esbench.driver.worker.runners.base import PREPARED
    from esbench.driver.worker.runners.bulk import prepare_bulk
    from esbench.driver.worker.taskruns import build_task_runs
    from esbench.track.model import Challenge, Operation, Task, Track

    bulk_body = b""
    corpora = None
    if args.operation == "bulk-corpus":
        corpus, corpora = _small_corpus(args.corpus_docs)
        operation = Operation(
            name="op", operation_type="bulk", params={"bulk-size": args.bulk_size, "looped": True}
        )
    elif args.operation == "bulk":
        doc = b'{"message":"GET /index.html HTTP/1.1","status":200,"size":1043}'
        bulk_body = b"".join(b'{"index":{"_index":"idx"}}\n' + doc + b"\n" for _ in range(args.bulk_size))
        operation = Operation(name="op", operation_type="bulk", params={"index": "idx", "bulk-size": 1})
    else:
        operation = Operation(
            name="op", operation_type="search", params={"index": "idx", "body": {"query": {"match_all": {}}}}
        )
    per_client = args.requests // args.clients
    task = Task(name="op", operation=operation, clients=args.clients, iterations=per_client)
    track = Track(
        name="bench",
        root=Path("/nonexistent"),
        challenges=(Challenge(name="c", schedule=(task,)),),
        corpora=(corpus,) if corpora is not None else (),
    )
    settings = ConnectionSettings.create([args.host], ClientOptions(timeout=30))

    async def main() -> tuple[float, float, float, int, int, int]:
        if args.operation == "bulk":
            # The bulk runner with a new body per request, as BulkClientSource hands it (no corpus
            # files needed: the body is built here once and copied per request).
            base = {"index": "idx", "action-metadata-present": True, "unit": "docs"}
            base[PREPARED] = prepare_bulk(base)
            runs = {
                task.name: TaskRun(
                    task=task,
                    runner=default_registry().runner("bulk"),
                    source=_BulkBodies(base, bulk_body, args.bulk_size),
                    schedulers={},
                )
            }
        else:
            runs = build_task_runs(
                default_registry(),
                {task.name: task},
                track=track,
                corpora=corpora,
                on_error="continue",
                seed=1,
            )
        clients = [create_client(settings) for _ in range(args.clients)]
        start_at = time.perf_counter()
        control = StepControl(start_at)
        for run in runs.values():
            run.start(start_at)
        executors = [
            ClientExecutor(
                plan=ClientPlan(
                    client_id=i,
                    allocations=(
                        ClientAllocation(
                            task=task,
                            client_index_in_task=i,
                            global_client_index=i,
                            total_clients=args.clients,
                        ),
                    ),
                ),
                es=clients[i],
                runs=runs,
                control=control,
                context=RaceContext(),
            )
            for i in range(args.clients)
        ]
        usage0 = resource.getrusage(resource.RUSAGE_SELF)
        wall0 = time.perf_counter()
        await asyncio.gather(*(e.run() for e in executors))
        wall = time.perf_counter() - wall0
        usage1 = resource.getrusage(resource.RUSAGE_SELF)
        user = usage1.ru_utime - usage0.ru_utime
        system = usage1.ru_stime - usage0.ru_stime
        faults = usage1.ru_minflt - usage0.ru_minflt
        switches = usage1.ru_nvcsw - usage0.ru_nvcsw + usage1.ru_nivcsw - usage0.ru_nivcsw
        count = runs[task.name].recorder.count
        errors = runs[task.name].recorder.error_count
        if errors:
            raise SystemExit(f"{errors} of {count} requests failed: is the stub running on {args.host}?")
        for client in clients:
            await client.http.close()
            await client.close()
        return user, system, wall, count, faults, switches

    user, system, wall, count, faults, switches = uvloop.run(main())
    return {
        "cpu_us": (user + system) / count * 1e6,
        "user_us": user / count * 1e6,
        "system_us": system / count * 1e6,
        "rps": count / wall,
        "requests": float(count),
        "page_faults_per_1k": faults / count * 1000,
        "context_switches_per_1k": switches / count * 1000,
    }


def _small_corpus(docs: int):  # type: ignore[no-untyped-def]
    """(DocumentCorpus, CorpusSet) of ``docs`` side-by-side stub documents, prepared once."""
    home = Path.home() / ".esbench-bench" / "request-cost"
    os.environ["ESBENCH_HOME"] = str(home)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from sidebyside.corpora import STUB_CORPUS, place, stub_corpus

    from esbench.corpus import prepare_corpora
    from esbench.track.model import Challenge, DocumentCorpus, Documents, Track

    stub = stub_corpus(home / "cache", docs, log=lambda _: None)
    place(stub, home / "corpora")
    corpus = DocumentCorpus(
        name=STUB_CORPUS,
        documents=(Documents(source_file=stub.file_name, document_count=docs, target_index="idx"),),
    )
    track = Track(name="bench", root=home, challenges=(Challenge(name="c", schedule=()),), corpora=(corpus,))
    return corpus, prepare_corpora(track, progress=lambda _: None)


class _BulkBodies:
    """A bulk param source without corpus files: a fresh copy of one body per request."""

    def __init__(self, base: dict[str, object], body: bytes, docs: int) -> None:
        self._base, self._body, self._docs = base, body, docs

    def partition(self, index: int, total: int) -> _BulkBodies:
        return self

    def params(self) -> dict[str, object]:
        params = self._base.copy()
        params["body"] = bytes(bytearray(self._body))  # a new object per request, like BulkSource
        params["bulk-size"] = self._docs
        return params


def start_stub() -> object:
    """The nginx stub this script measures against (one worker process); ``.host``, ``.stop()``."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from sidebyside.nginx_stub import NginxStub

    return NginxStub.start(workers=1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--source", action="append", help="esbench tree to measure (repeatable; default: this one)"
    )
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=160_000, help="requests per run (all clients)")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--operation", choices=("search", "bulk", "bulk-corpus"), default="search")
    parser.add_argument("--bulk-size", type=int, default=100)
    parser.add_argument("--corpus-docs", type=int, default=200_000, help="documents of bulk-corpus's corpus")
    parser.add_argument("--host", help="an already running stub (HOST:PORT); default: start nginx")
    parser.add_argument("--one-run", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.one_run:
        print(json.dumps(_one_run(args)))
        return

    print("command:", " ".join([Path(sys.executable).name, *sys.argv]))
    stub = None
    if args.host is None:
        stub = start_stub()
        args.host = stub.host  # type: ignore[attr-defined]
    sources = [str(Path(s).resolve()) for s in (args.source or [str(ROOT)])]
    results: dict[str, list[dict[str, float]]] = {s: [] for s in sources}
    try:
        for rep in range(args.repetitions):
            for source in sources:
                env = {**os.environ, "PYTHONPATH": source}
                cmd = [
                    sys.executable, __file__, "--one-run", "--host", args.host,
                    "--clients", str(args.clients), "--requests", str(args.requests),
                    "--operation", args.operation, "--bulk-size", str(args.bulk_size),
                    "--corpus-docs", str(args.corpus_docs),
                ]  # fmt: skip
                out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
                if out.returncode != 0:
                    raise SystemExit(f"run failed for {source}:\n{out.stderr[-3000:]}")
                run = json.loads(out.stdout.strip().splitlines()[-1])
                results[source].append(run)
                load = os.getloadavg()[0]
                print(
                    f"rep {rep} {source}: {run['cpu_us']:.1f} µs CPU/request (user {run['user_us']:.1f}, "
                    f"system {run['system_us']:.1f}), {run['rps']:,.0f} requests/s "
                    f"(load {load:.1f})",
                    flush=True,
                )
    finally:
        if stub is not None:
            stub.stop()  # type: ignore[attr-defined]
    print(f"\n{args.operation}, {args.clients} clients, {args.requests:,} requests per run, one event loop:")
    medians = {}
    for source, runs in results.items():
        cpu = statistics.median(r["cpu_us"] for r in runs)
        user = statistics.median(r["user_us"] for r in runs)
        system = statistics.median(r["system_us"] for r in runs)
        rps = statistics.median(r["rps"] for r in runs)
        medians[source] = cpu
        print(
            f"  {source}: median {cpu:.1f} µs CPU/request (user {user:.1f}, system {system:.1f}), "
            f"{rps:,.0f} requests/s"
        )
    if len(sources) > 1:
        base = medians[sources[0]]
        for source in sources[1:]:
            print(f"  {source} / {sources[0]}: {medians[source] / base:.2f}x CPU per request")


if __name__ == "__main__":
    main()
