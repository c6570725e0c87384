"""Corpus files of the side-by-side benchmark: generated once into a cache, then linked for each tool.

Both tools must read byte-identical documents, so the files are generated here (not by either tool)
under ``<bench home>/corpora/`` and hard-linked (copied if the file system refuses) into each tool's
own data directory, where each finds an uncompressed corpus of a track without ``base-url``:

- Rally: ``<local.dataset.cache>/<corpus>/<source-file>`` (esrally ``track/loader.py``: the data
  root is ``benchmarks.local.dataset.cache`` + corpus name);
- esbench: ``$ESBENCH_HOME/corpora/<corpus>/<source-file>`` (esbench ``corpus/cache.py``: the
  download/manual-placement directory, Rally's layout).

Corpora:

- ``stub-docs``: small flat documents (~120 bytes) for bulk against the nginx stub;
- ``eventdata-bench``: esbench's ``eventdata`` generator (``esbench.corpus.generators``; seed 1),
  HTTP access-log documents of ~820 bytes, for the real-node case.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

STUB_CORPUS = "stub-docs"
EVENTDATA_CORPUS = "eventdata-bench"

_HOSTS = [f"web-{i:02d}" for i in range(40)]
_PATHS = [
    "/",
    "/index.html",
    "/search",
    "/api/v1/items",
    "/static/app.js",
    "/img/logo.png",
    "/login",
    "/cart",
]
_STATUSES = [200, 200, 200, 200, 200, 200, 304, 301, 404, 500]


@dataclass(frozen=True, kw_only=True)
class CorpusFile:
    """A generated corpus file.

    Attributes:
        corpus: corpus name in the tracks (``stub-docs``, ``eventdata-bench``).
        path: the uncompressed NDJSON file in the bench cache.
        document_count: lines in ``path``.
    """

    corpus: str
    path: Path
    document_count: int

    @property
    def file_name(self) -> str:
        return self.path.name


def _stub_line(i: int) -> str:
    # Deterministic, no randomness: the corpus is the same on every machine.
    return (
        f'{{"@timestamp":"2024-01-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}.'
        f'{i % 1000:03d}Z",'
        f'"host":"{_HOSTS[i % 40]}","path":"{_PATHS[i % 8]}","status":{_STATUSES[i % 10]},'
        f'"bytes":{(i * 7919) % 100000},"message":"request {i} served"}}\n'
    )


def _meta_ok(path: Path, count: int, kind: str) -> bool:
    meta = path.with_suffix(".meta.json")
    if not path.exists() or not meta.exists():
        return False
    try:
        m = json.loads(meta.read_text())
    except ValueError:
        return False
    return (
        m.get("document_count") == count and m.get("kind") == kind and m.get("bytes") == path.stat().st_size
    )


def _write_meta(path: Path, count: int, kind: str) -> None:
    path.with_suffix(".meta.json").write_text(
        json.dumps({"kind": kind, "document_count": count, "bytes": path.stat().st_size}) + "\n"
    )


def stub_corpus(cache: Path, document_count: int, *, log: Callable[[str], None] = print) -> CorpusFile:
    """The ``stub-docs`` corpus with ``document_count`` documents (generated on first use, ~1 s/M docs)."""
    path = cache / STUB_CORPUS / f"{STUB_CORPUS}-{document_count}.json"
    kind = "stub-docs-v1"
    if not _meta_ok(path, document_count, kind):
        log(f"generating {document_count:,} stub documents into {path}")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with open(tmp, "w", encoding="ascii") as f:
            step = 100_000
            for start in range(0, document_count, step):
                f.write("".join(_stub_line(i) for i in range(start, min(start + step, document_count))))
        os.replace(tmp, path)
        _write_meta(path, document_count, kind)
    return CorpusFile(corpus=STUB_CORPUS, path=path, document_count=document_count)


def eventdata_corpus(cache: Path, document_count: int, *, log: Callable[[str], None] = print) -> CorpusFile:
    """The ``eventdata-bench`` corpus: esbench's eventdata generator, seed 1, ``document_count`` docs.

    Uses the generator contract of ``esbench.corpus.generators`` (``get_generator``,
    ``normalize_params``, ``render_chunk``, ``chunk_size``).

    Raises:
        RuntimeError: esbench's eventdata generator is not importable.
    """
    try:
        from esbench.corpus.generators import get_generator
    except ImportError as e:  # pragma: no cover - depends on the checkout
        raise RuntimeError(f"esbench's eventdata generator is not available ({e})") from e
    gen = get_generator("eventdata")
    params = gen.normalize_params({"seed": 1})
    kind = f"eventdata-v{gen.version}-{json.dumps(params, sort_keys=True)}"
    path = cache / EVENTDATA_CORPUS / f"{EVENTDATA_CORPUS}-{document_count}.json"
    if not _meta_ok(path, document_count, kind):
        log(f"generating {document_count:,} eventdata documents into {path}")
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            done, chunk = 0, 0
            while done < document_count:
                n = min(gen.chunk_size, document_count - done)
                f.write(gen.render_chunk(params, chunk, n))
                done += n
                chunk += 1
        os.replace(tmp, path)
        _write_meta(path, document_count, kind)
    return CorpusFile(corpus=EVENTDATA_CORPUS, path=path, document_count=document_count)


def place(corpus: CorpusFile, data_root: Path) -> Path:
    """Make ``corpus`` available as ``data_root/<corpus>/<file name>`` (hard link, else copy).

    The file names carry the document count (``stub-docs-2000000.json``), as do the tracks'
    ``source-file`` entries, so a placed file never changes content. A file of another size under
    that name (an interrupted copy) is replaced together with the tool's offset index beside it.
    """
    target = data_root / corpus.corpus / corpus.file_name
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        if os.path.samefile(target, corpus.path) or target.stat().st_size == corpus.path.stat().st_size:
            return target
        target.unlink()
        for stale in target.parent.glob(corpus.file_name + ".offset*"):
            stale.unlink()
    try:
        os.link(corpus.path, target)
    except OSError:
        tmp = target.with_name(target.name + ".tmp")
        shutil.copyfile(corpus.path, tmp)
        os.replace(tmp, target)
    return target


def bulk_body(corpus: CorpusFile, *, index: str, docs: int) -> bytes:
    """The first ``docs`` documents of ``corpus`` as one ``_bulk`` body (for wrk's bulk reference)."""
    action = json.dumps({"index": {"_index": index}}).encode() + b"\n"
    out: list[bytes] = []
    with open(corpus.path, "rb") as f:
        for _, line in zip(range(docs), f, strict=False):
            out.append(action)
            out.append(line)
    return b"".join(out)
