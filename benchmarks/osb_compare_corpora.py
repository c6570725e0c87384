"""Small corpora for OpenSearch Benchmark workloads, generated from each workload's index mappings.

The public workloads download their corpora from a CDN that these machines cannot reach. For a
test-mode comparison (benchmarks/osb_compare.py) each tool needs the ``-1k`` file of every
document set of the workload: 1,000 documents whose fields fit the target index's mapping, written
where each tool looks for it offline:

* OSB 2.4.0: ``$HOME/.benchmark/benchmarks/data/<corpus>/<file>`` — ``data_dir`` and
  ``DocumentSetPreparator.prepare_document_set`` in ``osbenchmark/workload/loader.py``: the
  uncompressed file is used as it is when present (test mode drops the size checks,
  ``TestModeWorkloadProcessor``); its line count must equal the document count (1,000).
* esbench: ``$ESBENCH_HOME/corpora/<corpus>/<file>`` (esbench/corpus/prepare.py, step 1).

The ``-1k`` name is the one both tools give the file in test mode (``x.json.bz2`` →
``x-1k.json``, uncompressed). Values are deterministic (seeded by the workload and corpus name), so
both tools index the same documents. Field types map to plausible values: text and keyword
words, numbers in small ranges, dates in the mapping's ``format`` (the first of ``a||b``; Java
patterns such as ``yyyy-MM-dd HH:mm:ss`` and the named ``epoch_second``/``epoch_millis``/
``strict_date_optional_time``), ``geo_point``/``geo_shape`` around one area, ``knn_vector`` of the
mapping's ``dimension``, ``percolator`` a ``match`` query on a text field of the same mapping.

Vector data sets (``hdf5``) for the vector workloads are written by :func:`write_hdf5` with the
OSB venv's Python, which has h5py.
"""

from __future__ import annotations

import bz2
import datetime
import json
import random
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from esbench.track.model import Track

DOCS = 1000
_WORDS = (
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
    "search",
    "index",
    "shard",
    "cluster",
    "node",
    "query",
    "vector",
    "taxi",
    "weather",
    "station",
    "river",
    "city",
)
_COMPRESSED = (".bz2", ".gz", ".zst", ".zip")
_BASE = datetime.datetime(2016, 1, 1, tzinfo=datetime.UTC)
# Java date pattern letters -> strftime, longest first (DateTimeFormatter symbols).
_JAVA = (
    ("yyyy", "%Y"),
    ("uuuu", "%Y"),
    ("MM", "%m"),
    ("dd", "%d"),
    ("HH", "%H"),
    ("mm", "%M"),
    ("ss", "%S"),
)


def uncompressed_name(source_file: str) -> str:
    """``x-1k.json.bz2`` -> ``x-1k.json``: the file both tools read after decompressing."""
    for ext in _COMPRESSED:
        if source_file.endswith(ext):
            return source_file[: -len(ext)]
    return source_file


def _date(fmt: str | None, rnd: random.Random) -> Any:
    when = _BASE + datetime.timedelta(seconds=rnd.randrange(0, 365 * 86400))
    first = (fmt or "strict_date_optional_time").split("||")[0].strip()
    if first == "epoch_second":
        return int(when.timestamp())
    if first == "epoch_millis":
        return int(when.timestamp() * 1000)
    if first in ("date", "strict_date", "yyyy-MM-dd"):
        return when.strftime("%Y-%m-%d")
    if re.fullmatch(r"[A-Za-z_]+", first) and not re.search(r"[yMdHms]{2}", first):
        # A named format (strict_date_optional_time, date_time, ...): ISO 8601 with millis.
        return when.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    out = first.replace("'T'", "T").replace("'Z'", "Z")
    millis = f"{when.microsecond // 1000:03d}"
    out = out.replace("SSS", millis)
    for java, py in _JAVA:
        out = out.replace(java, py)
    out = re.sub(r"(?<!%)XXX|(?<!%)ZZ|(?<![%A-Za-z])Z(?![A-Za-z])", "+00:00", out)
    return when.strftime(out)


def _shape(kind: str, rnd: random.Random) -> dict[str, Any]:
    lon, lat = rnd.uniform(-10, 10), rnd.uniform(40, 50)
    line = [[lon + i * 0.01, lat + i * 0.01] for i in range(3)]
    if kind == "polygon":
        ring = [[lon, lat], [lon + 0.01, lat], [lon + 0.01, lat + 0.01], [lon, lat]]
        return {"type": "polygon", "coordinates": [ring]}
    if kind == "multilinestring":
        return {"type": "multilinestring", "coordinates": [line, [[x + 0.1, y] for x, y in line]]}
    if kind == "linestring":
        return {"type": "linestring", "coordinates": line}
    return {"type": "point", "coordinates": [lon, lat]}


class _Fields:
    """Values for one mapping's fields; ``shape`` is the geo_shape geometry kind of the corpus."""

    def __init__(self, properties: Mapping[str, Any], shape: str, rnd: random.Random) -> None:
        self.root = properties
        self.shape = shape
        self.rnd = rnd

    def text_field(self, props: Mapping[str, Any] | None = None, prefix: str = "") -> str | None:
        for name, spec in (props if props is not None else self.root).items():
            if spec.get("type") in ("text", "match_only_text"):
                return prefix + name
            if "properties" in spec:
                found = self.text_field(spec["properties"], f"{prefix}{name}.")
                if found:
                    return found
        return None

    def document(self, props: Mapping[str, Any]) -> dict[str, Any]:
        doc: dict[str, Any] = {}
        for name, spec in props.items():
            value = self.value(spec)
            if value is not None:
                doc[name] = value
        return doc

    def value(self, spec: Mapping[str, Any]) -> Any:
        rnd = self.rnd
        kind = spec.get("type", "object" if "properties" in spec else None)
        if kind in ("object", "nested", None) and "properties" in spec:
            inner = self.document(spec["properties"])
            return [inner, self.document(spec["properties"])] if kind == "nested" else inner
        if kind in ("text", "match_only_text", "search_as_you_type"):
            return " ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(3, 12)))
        if kind in ("keyword", "wildcard"):
            return rnd.choice(_WORDS)
        if kind == "constant_keyword":
            return spec.get("value", "constant")
        if kind in ("long", "integer", "short", "unsigned_long"):
            return rnd.randint(0, 10_000)
        if kind == "byte":
            return rnd.randint(0, 100)
        if kind in ("float", "double", "half_float", "scaled_float"):
            return round(rnd.uniform(0, 1000), 2)
        if kind in ("date", "date_nanos"):
            return _date(spec.get("format"), rnd)
        if kind == "boolean":
            return rnd.random() < 0.5
        if kind == "ip":
            return f"10.{rnd.randint(0, 255)}.{rnd.randint(0, 255)}.{rnd.randint(1, 254)}"
        if kind == "geo_point":
            return {"lat": round(rnd.uniform(40, 50), 5), "lon": round(rnd.uniform(-10, 10), 5)}
        if kind == "geo_shape":
            return _shape(self.shape, rnd)
        if kind in ("knn_vector", "dense_vector"):
            return [
                round(rnd.uniform(-1, 1), 4) for _ in range(int(spec.get("dimension", spec.get("dims", 8))))
            ]
        if kind == "percolator":
            field = self.text_field()
            return {"match": {field: rnd.choice(_WORDS)}} if field else {"match_all": {}}
        if kind == "flat_object":
            return {"key": rnd.choice(_WORDS)}
        if kind in ("rank_feature",):
            return round(rnd.uniform(0.1, 10), 2)
        if kind in ("rank_features",):
            return {rnd.choice(_WORDS): round(rnd.uniform(0.1, 10), 2)}
        if kind in ("integer_range", "long_range", "float_range", "double_range"):
            low = rnd.randint(0, 100)
            return {"gte": low, "lte": low + rnd.randint(1, 100)}
        if kind == "date_range":
            return {"gte": _date(spec.get("format"), rnd), "lte": _date(spec.get("format"), rnd)}
        # alias, join, completion, ...: left out of the document (the node fills nothing in).
        return None


def _properties(body: Mapping[str, Any] | None) -> Mapping[str, Any]:
    mappings = (body or {}).get("mappings", {})
    if "properties" not in mappings and len(mappings) == 1:
        # A pre-7 mapping keyed by type name.
        (mappings,) = mappings.values()
    props = mappings.get("properties", {})
    return props if isinstance(props, Mapping) else {}


def documents(track: Track, corpus: str, target_index: str | None, count: int = DOCS) -> list[str]:
    """``count`` NDJSON lines for ``target_index`` of ``corpus``, fitting its mapping in ``track``.

    An index the workload creates without a mapping (or a data stream) gets a message and a
    timestamp field, so bulk requests succeed under a dynamic mapping."""
    body = next((i.body for i in track.indices if i.name == target_index), None)
    props = _properties(body)
    if not props:
        props = {"@timestamp": {"type": "date"}, "message": {"type": "text"}}
    shape = next((k for k in ("multilinestring", "linestring", "polygon") if k in corpus), "point")
    fields = _Fields(props, shape, random.Random(f"{track.name}/{corpus}/{target_index}"))
    return [json.dumps(fields.document(props), separators=(",", ":")) for _ in range(count)]


def write_corpora(track: Track, data_dirs: list[Path]) -> list[Path]:
    """Write every bulk document set of ``track`` (loaded in test mode) under each of
    ``data_dirs`` as ``<dir>/<corpus>/<uncompressed -1k name>``; returns the files written.

    Sets whose ``source-format`` is not ``bulk`` (``hdf5``, ``big-ann``) are skipped: see
    :func:`write_hdf5`."""
    written: list[Path] = []
    for corpus in track.corpora:
        for docs in corpus.documents:
            if docs.source_format != "bulk":
                continue
            lines = documents(track, corpus.name, docs.target_index, docs.document_count)
            if docs.includes_action_and_meta_data:
                index = docs.target_index or docs.target_data_stream
                action = json.dumps({"index": {"_index": index}} if index else {"index": {}})
                lines = [part for line in lines for part in (action, line)]
            payload = "\n".join(lines) + "\n"
            for root in data_dirs:
                target = root / corpus.name / uncompressed_name(docs.source_file)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(payload)
                written.append(target)
    return written


def write_osb_offset_tables(files: list[Path]) -> None:
    """An empty OSB file offset table (``<file>.offset``) beside each of ``files``.

    OSB 2.4.0 offline never builds the table itself: ``prepare_file_offset_table``
    (``osbenchmark/utils/io.py``) first tries to download a pre-generated one, and its
    ``Downloader`` refuses offline with "Cannot find [....offset]. Please disable offline mode".
    The table has one ``line;offset`` entry per 50,000 lines, so for 1,000 documents it is empty;
    it is valid when not older than the data file."""
    for path in files:
        Path(f"{path}.offset").write_text("")


def write_query_files(root: Path) -> list[Path]:
    """The query files a workload's plugin reads beside its ``workload.py`` (neural_search: the
    ``source-file`` entries of ``workload_queries.json``, NDJSON lines ``{"text": ...}``), each
    uncompressed and bz2-compressed, so its param sources do not download them.

    neural_search's ``workload.py`` (``QueryParamSource.load_queries_file``) downloads
    ``queries.json.bz2`` with OSB's Downloader whenever ``variable-queries`` > 0, online or not,
    unless the compressed file is there, and decompresses it unless the uncompressed one is."""
    listing = root / "workload_queries.json"
    if not listing.is_file():
        return []
    written = []
    rnd = random.Random(root.name)
    entries = json.loads(listing.read_text())
    # neural_search lists several query files; treccovid_semantic_search names one as an object.
    for entry in entries if isinstance(entries, list) else [entries]:
        source = root / entry["source-file"]
        lines = [json.dumps({"text": " ".join(rnd.choice(_WORDS) for _ in range(6))}) for _ in range(100)]
        payload = ("\n".join(lines) + "\n").encode()
        source.write_bytes(bz2.compress(payload))
        Path(uncompressed_name(str(source))).write_bytes(payload)
        written += [source, Path(uncompressed_name(str(source)))]
    return written


_HDF5 = """
import sys, h5py, numpy
path, dim, train, test, k = sys.argv[1], *map(int, sys.argv[2:6])
rng = numpy.random.default_rng(7)
with h5py.File(path, "w") as f:
    f.create_dataset("train", data=rng.random((train, dim), dtype=numpy.float32))
    f.create_dataset("test", data=rng.random((test, dim), dtype=numpy.float32))
    f.create_dataset("neighbors", data=rng.integers(0, train, (test, k), dtype=numpy.int32))
    f.create_dataset("distances", data=rng.random((test, k), dtype=numpy.float32))
"""


def write_hdf5(
    python: Path, path: Path, dimension: int, train: int = DOCS, test: int = 100, k: int = 100
) -> None:
    """An ann-benchmarks style HDF5 data set (``train``, ``test``, ``neighbors``, ``distances``) of
    random float32 vectors, as OSB's vector workloads read it (``osbenchmark/utils/dataset.py``).

    Raises:
        subprocess.CalledProcessError: ``python`` has no h5py/numpy or cannot write ``path``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [str(python), "-c", _HDF5, str(path), str(dimension), str(train), str(test), str(k)],
        check=True,
        capture_output=True,
    )
