"""Throughput of bulk body building (esbench.corpus.bulk.BulkSource), the hot path of bulk indexing.

Builds a ~100 MB eventdata corpus file (generated once into a scratch esbench home; or, with
``--documents small``, the ~140-byte documents of the side-by-side ``bulk-4`` case), then times
iterating BulkSource over it: one client reading everything, one client looping over it (passes 2
to 4 only, once the file's pages are mapped), the same as views (what the built-in bulk runner
gets: the first pass, which fills the spool, and passes 2 to 4, views of it), eight clients each
reading their slice, the id-conflicts path, and a file with action-and-meta-data lines (copies and
views); for reference, a Rally-style loop
(readline per document, one action line joined per document) over the same bytes. Prints
documents/s, MB/s of bodies produced and µs of CPU per body.

Reproduce:
    python benchmarks/bench_bulk_source.py [--docs 120000] [--bulk-size 5000] [--home /tmp/esbench-bench]
    python benchmarks/bench_bulk_source.py --documents small --docs 500000 --bulk-size 1000
    ESBENCH_PURE_PYTHON=1 python benchmarks/bench_bulk_source.py ...   # the Python twins of _lines.c
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _prepared(home: Path, docs: int, kind: str):  # type: ignore[no-untyped-def]
    os.environ["ESBENCH_HOME"] = str(home)
    from esbench.corpus import prepare_corpora
    from esbench.track.model import Challenge, DocumentCorpus, Documents, Track

    if kind == "small":
        # The side-by-side bulk-4 documents, placed where esbench looks for a corpus without base-url.
        from sidebyside.corpora import STUB_CORPUS, place, stub_corpus

        stub = stub_corpus(home / "cache", docs)
        place(stub, home / "corpora")
        documents = Documents(source_file=stub.file_name, document_count=docs, target_index="eventdata")
        corpus = DocumentCorpus(name=STUB_CORPUS, documents=(documents,))
    else:
        meta = {"generator": "eventdata", "generator-params": {"doc_count": docs, "seed": 1}}
        documents = Documents(
            source_file="eventdata.json", document_count=docs, target_index="eventdata", meta=meta
        )
        corpus = DocumentCorpus(name="eventdata", documents=(documents,))
    track = Track(
        name="bench",
        root=home,
        challenges=(Challenge(name="c", schedule=(), default=True),),
        corpora=(corpus,),
    )
    return prepare_corpora(track, progress=print).all()[0]


def _amd_copy(prepared, home: Path):  # type: ignore[no-untyped-def]
    """The same documents with Rally-style action lines, as a second prepared file."""
    from dataclasses import replace

    from esbench.corpus.cache import offsets_path_for
    from esbench.corpus.offsets import ensure_offset_index

    path = home / f"{prepared.path.stem}-amd.json"
    if not path.exists():
        action = b'{"index": {"_index": "eventdata"}}\n'
        with open(prepared.path, "rb") as src, open(path, "wb") as out:
            for line in src:
                out.write(action)
                out.write(line)
    offsets = offsets_path_for(path)
    ensure_offset_index(path, offsets)
    return replace(
        prepared,
        path=path,
        offsets_path=offsets,
        includes_action_and_meta_data=True,
        documents=replace(prepared.documents, includes_action_and_meta_data=True),
    )


def _time(label: str, make_sources, repeat: int) -> None:  # type: ignore[no-untyped-def]
    # CPU time of this process is reported beside wall time: other work on the machine inflates
    # wall time but hardly CPU time (page cache hits only, no I/O waits in steady state).
    best_wall = best_cpu = float("inf")
    docs = size = bodies = 0
    for _ in range(repeat):
        sources = make_sources()
        wall, cpu = time.perf_counter(), time.process_time()
        docs = size = bodies = 0
        for source in sources:
            for body, count in source:
                docs += count
                size += len(body)
                bodies += 1
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    print(
        f"{label:<42} {docs / best_cpu:>11,.0f} docs/CPU-s {size / best_cpu / 1e6:>6,.0f} MB/CPU-s"
        f" {best_cpu / bodies * 1e6:>7,.1f} µs CPU/body"
        f" | wall {docs / best_wall:>11,.0f} docs/s  ({docs:,} docs)"
    )


def _later_passes(source):  # type: ignore[no-untyped-def]
    """Passes 2 to 4 of a looped source: the first pass (mapping the file's pages) is left out."""
    import itertools

    bodies = iter(source)
    for _ in itertools.islice(bodies, source.bulks_per_pass):
        pass
    return itertools.islice(bodies, 3 * source.bulks_per_pass)


def _viewed(source, *, skip_first_pass: bool):  # type: ignore[no-untyped-def]
    """Bodies of ``source.requests(views=True)``: the first pass (which fills the looped slice's
    spool) alone, or passes 2 to 4 (views of the spool)."""
    import itertools

    bodies = ((request.body, request.doc_count) for request in source.requests(views=True))
    if not skip_first_pass:
        return itertools.islice(bodies, source.bulks_per_pass)
    for _ in itertools.islice(bodies, source.bulks_per_pass):
        pass
    return itertools.islice(bodies, 3 * source.bulks_per_pass)


def _rally_style(path: Path, bulk_size: int):  # type: ignore[no-untyped-def]
    action = b'{"index": {"_index": "eventdata"}}\n'
    with open(path, "rb") as f:
        while True:
            parts = []
            n = 0
            while n < bulk_size:
                line = f.readline()
                if not line:
                    break
                parts.append(action)
                parts.append(line)
                n += 1
            if not n:
                return
            yield b"".join(parts), n


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--docs", type=int, default=120_000, help="documents in the file (120k ~ 100 MB)")
    parser.add_argument("--bulk-size", type=int, default=5000)
    parser.add_argument(
        "--documents",
        choices=("eventdata", "small"),
        default="eventdata",
        help="eventdata (~820 B each) or small (~140 B, the side-by-side bulk-4 corpus)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs")
    parser.add_argument("--home", type=Path, default=Path("/tmp/esbench-bench"), help="scratch esbench home")
    args = parser.parse_args()

    from esbench.corpus import BulkSource, IdConflicts, lines

    # getattr: an older tree (before the C twin) is measured with the same script.
    COMPILED = getattr(lines, "COMPILED", False)

    prepared = _prepared(args.home, args.docs, args.documents)
    megabytes = prepared.path.stat().st_size / 1e6
    print(f"file: {prepared.path} ({megabytes:,.1f} MB, {prepared.document_count:,} docs)")
    amd = _amd_copy(prepared, args.home)
    bulk = args.bulk_size
    twin = "C twin (_lines.c)" if COMPILED else "Python twin"
    print(f"bulk size {bulk}, best of {args.repeat}, newline primitives: {twin}:")
    print(f"command: python {' '.join(sys.argv)}")
    _time(
        "1 client, whole file",
        lambda: [BulkSource([prepared], client_index=0, num_clients=1, bulk_size=bulk)],
        args.repeat,
    )
    _time(
        "1 client, looped: passes 2 to 4",
        lambda: [
            _later_passes(BulkSource([prepared], client_index=0, num_clients=1, bulk_size=bulk, looped=True))
        ],
        args.repeat,
    )
    if "views" in inspect.signature(BulkSource.requests).parameters:
        # What the built-in bulk runner gets (docs/corpora.md, "Bodies without a copy").
        for label, skip in (("first pass", False), ("passes 2 to 4", True)):
            _time(
                f"1 client, looped, views: {label}",
                lambda skip=skip: [
                    _viewed(
                        BulkSource([prepared], client_index=0, num_clients=1, bulk_size=bulk, looped=True),
                        skip_first_pass=skip,
                    )
                ],
                args.repeat,
            )
    _time(
        "8 clients, each its slice (sequentially)",
        lambda: [BulkSource([prepared], client_index=i, num_clients=8, bulk_size=bulk) for i in range(8)],
        args.repeat,
    )
    _time(
        "1 client, action-and-meta-data file",
        lambda: [BulkSource([amd], client_index=0, num_clients=1, bulk_size=bulk)],
        args.repeat,
    )
    conflicts = IdConflicts(kind="random", probability=25, seed=1)
    if "views" in inspect.signature(BulkSource.requests).parameters:
        _time(
            "1 client, action-and-meta-data file, views",
            lambda: [
                _viewed(
                    BulkSource([amd], client_index=0, num_clients=1, bulk_size=bulk), skip_first_pass=False
                )
            ],
            args.repeat,
        )
    _time(
        "1 client, conflicts=random (25 %)",
        lambda: [
            BulkSource([prepared], client_index=0, num_clients=1, bulk_size=bulk, id_conflicts=conflicts)
        ],
        args.repeat,
    )
    _time("reference: Rally-style readline + join", lambda: [_rally_style(prepared.path, bulk)], args.repeat)


if __name__ == "__main__":
    main()
