"""Make a track's corpora available locally: find, download, decompress or generate, index, check.

Where a document file is looked for (Rally's order, ``esrally/track/loader.py``:
``DefaultTrackPreparator``/``DocumentSetPreparator``), for ``source-file: NAME.json.bz2``:

1. the uncompressed ``NAME.json`` in the track's data directory (the corpus ``root``, else the
   track directory), then in ``corpora/<corpus>/`` of the esbench home, then in Rally's data
   directory ``~/.rally/benchmarks/data/<corpus>/`` (read only, so corpora Rally downloaded
   before are reused) — used if its size matches ``uncompressed-bytes`` (when given);
2. the archive ``NAME.json.bz2`` in the same places (size checked against ``compressed-bytes``):
   decompressed once into the cache (:mod:`esbench.corpus.cache`);
3. a download of ``base-url/NAME.json.bz2`` into ``corpora/<corpus>/``, then decompression.
   Offline, or without ``base-url``, this is an error that says where to put the file by hand.

Corpora with a ``generator`` in their ``meta`` (see :mod:`esbench.corpus.generators`) are
generated into the cache instead of step 3, unless the file is found in the track's directory.

Every file gets an offset index (built once, reused while the file is unchanged), and its line
count must equal ``document-count`` (times two with ``includes-action-and-meta-data``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from esbench.corpus.cache import (
    corpus_dir,
    generated_dir,
    local_dir,
    offsets_path_for,
    source_stamp,
)
from esbench.corpus.decompress import decompress
from esbench.corpus.download import download, file_url
from esbench.corpus.generate import TEST_MODE_DOCS, generate_file, read_generated
from esbench.corpus.generators import get_generator
from esbench.corpus.model import CorpusSet, DataSetFile, PreparedDocuments
from esbench.corpus.names import archive_suffix, document_file_name
from esbench.corpus.offsets import ensure_offset_index
from esbench.exceptions import DataError, DownloadError, NotFound, TrackValidationError
from esbench.track.model import DocumentCorpus, Documents, Track

Progress = Callable[[str], None]


#: (bytes per unit, name) from the largest; progress shows an amount in the unit of its total.
_BYTE_UNITS: tuple[tuple[float, str], ...] = ((1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1, "bytes"))


class _Reporter:
    """Turns byte/document counters into a few readable progress lines (every 10 %)."""

    def __init__(self, progress: Progress | None) -> None:
        self._progress = progress
        self._last: dict[str, int] = {}

    def say(self, message: str) -> None:
        if self._progress is not None:
            self._progress(message)

    def step(self, label: str, done: int, total: int | None, unit: str) -> None:
        if self._progress is None:
            return
        if not total:
            mb = done / 1e6
            bucket = int(mb // 100)
            if self._last.get(label) != bucket:
                self._last[label] = bucket
                self._progress(f"{label}: {mb:,.0f} MB")
            return
        pct = min(100, int(100 * done / total))
        bucket = pct // 10
        if self._last.get(label) == bucket:
            return
        self._last[label] = bucket
        if unit == "docs":
            self._progress(f"{label}: {done:,} of {total:,} documents ({pct}%)")
        else:
            # In the unit of the total, so a small file does not read "0.0 of 0.0 MB".
            scale, name = next((f, n) for f, n in _BYTE_UNITS if total >= f or f == 1)
            digits = 0 if scale == 1 else 1
            amount = f"{done / scale:,.{digits}f} of {total / scale:,.{digits}f} {name}"
            self._progress(f"{label}: {amount} ({pct}%)")


def prepare_corpora(
    track: Track,
    *,
    corpus_names: Iterable[str] | None = None,
    offline: bool = False,
    progress: Progress | None = None,
) -> CorpusSet:
    """Make every document file of the track's corpora (or of ``corpus_names``) ready for bulk clients.

    Args:
        track: the loaded track (in test mode its documents already name the ``-1k`` files).
        corpus_names: prepare only these corpora (default: all of the track's).
        offline: never download; a missing file is then a :class:`DownloadError`.
        progress: receives short human-readable progress lines.

    Returns:
        The prepared files by corpus, in track order.

    Raises:
        NotFound: a name in ``corpus_names`` is not a corpus of the track.
        DataError: a file is missing, corrupt, has the wrong size or document count.
        DownloadError: a download failed or was needed while offline.
        TrackValidationError: unknown generator or bad generator params.
    """
    reporter = _Reporter(progress)
    wanted = list(corpus_names) if corpus_names is not None else None
    if wanted is not None:
        known = {c.name for c in track.corpora}
        missing = [n for n in wanted if n not in known]
        if missing:
            raise NotFound(
                f"Track '{track.name}' has no corpus {', '.join(repr(n) for n in missing)}. "
                f"Its corpora are: {', '.join(sorted(known)) or 'none'}."
            )
    by_corpus: dict[str, tuple[PreparedDocuments, ...]] = {}
    data_sets: dict[str, tuple[DataSetFile, ...]] = {}
    for corpus in track.corpora:
        if wanted is not None and corpus.name not in wanted:
            continue
        files = [
            _prepare_documents(track, corpus, documents, offline=offline, reporter=reporter)
            for documents in corpus.documents
            if documents.source_format == "bulk"
        ]
        by_corpus[corpus.name] = tuple(files)
        # OSB's vector data sets (hdf5, big-ann): fetched and decompressed like document files,
        # read whole by the vector operations, so they have no offset index or line count.
        vectors = [
            DataSetFile(
                corpus=corpus.name,
                source_format=documents.source_format,
                path=_prepare_file(track, corpus, documents, offline=offline, reporter=reporter)[0],
            )
            for documents in corpus.documents
            if documents.source_format != "bulk"
        ]
        if vectors:
            data_sets[corpus.name] = tuple(vectors)
    return CorpusSet(by_corpus, data_sets)


def _data_roots(track: Track, corpus: DocumentCorpus) -> list[Path]:
    root = corpus.root if corpus.root is not None else track.root
    return [root] if root is not None and Path(root).is_dir() else []


def generator_meta(corpus: DocumentCorpus, documents: Documents) -> tuple[str, Mapping[str, object]] | None:
    """``(generator name, params)`` when ``documents`` (or its corpus) is generated, else None."""
    for meta in (documents.meta, corpus.meta):
        if meta and meta.get("generator"):
            params = meta.get("generator-params", {})
            if not isinstance(params, Mapping):
                raise TrackValidationError(
                    f"'generator-params' in the meta of corpus '{corpus.name}' must be an object, "
                    f"got {params!r}."
                )
            return str(meta["generator"]), params
    return None


def _prepare_documents(
    track: Track, corpus: DocumentCorpus, documents: Documents, *, offline: bool, reporter: _Reporter
) -> PreparedDocuments:
    generator = generator_meta(corpus, documents)
    local = _find_in_roots(_data_roots(track, corpus), documents) if generator else None
    if generator is not None and local is None:
        path, offsets_path = _prepare_generated(corpus, documents, generator, reporter)
    else:
        path, offsets_path = _prepare_file(track, corpus, documents, offline=offline, reporter=reporter)
    index = ensure_offset_index(
        path,
        offsets_path,
        progress=lambda done, total: reporter.step(
            f"Building the offset index of [{path.name}]", done, total, "bytes"
        ),
    )
    lines_per_doc = 2 if documents.includes_action_and_meta_data else 1
    expected = documents.document_count * lines_per_doc
    if index.line_count != expected:
        per_doc = " (two lines per document with action-and-meta-data)" if lines_per_doc == 2 else ""
        raise DataError(
            f"Data in [{path}] for corpus '{corpus.name}' of track '{track.name}' are invalid: expected "
            f"{expected:,} lines{per_doc} for the 'document-count' of {documents.document_count:,} but the "
            f"file has {index.line_count:,}. Fix 'document-count' in the track, or delete the file so that "
            f"esbench fetches it again."
        )
    return PreparedDocuments(
        corpus=corpus.name,
        documents=documents,
        path=path,
        offsets_path=offsets_path,
        document_count=documents.document_count,
        includes_action_and_meta_data=documents.includes_action_and_meta_data,
        target_index=documents.target_index,
        target_data_stream=documents.target_data_stream,
    )


def _rally_data_dir(corpus_name: str) -> list[Path]:
    """Rally's default ``local.dataset.cache`` directory of a corpus, if it exists."""
    path = Path.home() / ".rally" / "benchmarks" / "data" / corpus_name
    return [path] if path.is_dir() else []


def _size_ok(path: Path, expected: int | None) -> bool:
    return expected is None or path.stat().st_size == expected


def _find_in_roots(roots: list[Path], documents: Documents) -> Path | None:
    """A usable uncompressed file or archive in the track's own data directory, if any."""
    for root in roots:
        for name in (document_file_name(documents.source_file), documents.source_file):
            candidate = root / name
            if candidate.is_file():
                return candidate
    return None


def _prepare_file(
    track: Track, corpus: DocumentCorpus, documents: Documents, *, offline: bool, reporter: _Reporter
) -> tuple[Path, Path]:
    doc_name = document_file_name(documents.source_file)
    suffix = archive_suffix(documents.source_file)
    roots = _data_roots(track, corpus)
    cache = corpus_dir(corpus.name)
    looked: list[Path] = []
    wrong_size: list[tuple[Path, int]] = []

    places = [*roots, cache, *_rally_data_dir(corpus.name)]
    for root in places:
        candidate = root / doc_name
        looked.append(candidate)
        if candidate.is_file():
            if _size_ok(candidate, documents.uncompressed_bytes):
                return candidate, offsets_path_for(candidate)
            wrong_size.append((candidate, documents.uncompressed_bytes or 0))

    if suffix:
        for root in places:
            archive = root / documents.source_file
            looked.append(archive)
            if not archive.is_file():
                continue
            if not _size_ok(archive, documents.compressed_bytes):
                wrong_size.append((archive, documents.compressed_bytes or 0))
                continue
            target_dir = cache if root == cache else local_dir(archive)
            return _decompressed(archive, target_dir / doc_name, documents, reporter), offsets_path_for(
                target_dir / doc_name
            )

    target = cache / documents.source_file
    by_hand = (
        f"To prepare it by hand, put [{documents.source_file}] into [{cache}]"
        + (f" (or the decompressed [{doc_name}])" if suffix else "")
        + (f" or into the track directory [{roots[0]}]" if roots else "")
        + "."
    )
    if not documents.base_url:
        if wrong_size:
            path, expected = wrong_size[0]
            raise DataError(
                f"[{path}] is present but does not have the expected size of {expected:,} bytes and "
                f"it cannot be downloaded because the corpus '{corpus.name}' has no base-url. Replace "
                f"the file or fix the size in the track."
            )
        raise DataError(
            f"Document file [{documents.source_file}] of corpus '{corpus.name}' (track '{track.name}') "
            f"was not found; looked for {', '.join(str(p) for p in looked)}. The track gives no "
            f"base-url to download it from. {by_hand}"
        )
    url = file_url(documents.base_url, documents.source_file)
    if offline:
        raise DownloadError(
            f"Document file [{documents.source_file}] of corpus '{corpus.name}' is not available locally and "
            f"esbench runs offline, so it cannot be downloaded from [{url}]. {by_hand}"
        )
    reporter.say(f"Downloading [{url}] to [{target}] ...")
    download(
        url,
        target,
        expected_bytes=documents.compressed_bytes if suffix else documents.uncompressed_bytes,
        progress=lambda done, total: reporter.step(
            f"Downloading [{documents.source_file}]", done, total, "bytes"
        ),
        manual_hint=f"Check the network and the URL, or: {by_hand}",
    )
    if suffix:
        return _decompressed(target, cache / doc_name, documents, reporter), offsets_path_for(
            cache / doc_name
        )
    return target, offsets_path_for(target)


def _decompressed(archive: Path, target: Path, documents: Documents, reporter: _Reporter) -> Path:
    """``target`` decompressed from ``archive``, reusing an earlier copy made from the same archive."""
    stamp_path = target.with_name(target.name + ".source")
    stamp = source_stamp(archive)
    if target.is_file() and _size_ok(target, documents.uncompressed_bytes):
        try:
            if stamp_path.read_text(encoding="utf-8") == stamp:
                return target
        except OSError:
            pass
    reporter.say(f"Decompressing [{archive}] to [{target}] ...")
    decompress(
        archive,
        target,
        offsets_path=offsets_path_for(target),
        expected_bytes=documents.uncompressed_bytes,
        progress=lambda done: reporter.step(
            f"Decompressing [{archive.name}]", done, documents.uncompressed_bytes, "bytes"
        ),
    )
    stamp_path.write_text(stamp, encoding="utf-8")
    return target


def _prepare_generated(
    corpus: DocumentCorpus,
    documents: Documents,
    generator_meta: tuple[str, Mapping[str, object]],
    reporter: _Reporter,
) -> tuple[Path, Path]:
    name, raw_params = generator_meta
    generator = get_generator(name)
    params = generator.normalize_params(raw_params)
    out_dir = generated_dir(generator.name, generator.version, params)
    doc_name = document_file_name(documents.source_file)
    path = out_dir / doc_name
    existing = read_generated(
        path, generator=generator, params=params, document_count=documents.document_count
    )
    if existing is not None:
        return existing.path, existing.offsets_path
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "params.json").write_text(
        json.dumps({"generator": generator.name, "version": generator.version, "params": params}, indent=2)
        + "\n",
        encoding="utf-8",
    )
    stem = doc_name[: -len(".json")] if doc_name.endswith(".json") else doc_name
    is_test_variant = stem.endswith("-1k") and documents.document_count <= TEST_MODE_DOCS
    reporter.say(
        f"Generating {documents.document_count:,} documents of corpus '{corpus.name}' with generator "
        f"'{generator.name}' into [{path}] (once; later runs reuse it) ..."
    )
    generated = generate_file(
        generator,
        params,
        path=path,
        document_count=documents.document_count,
        compression=archive_suffix(documents.source_file),
        with_test_variant=not is_test_variant,
        progress=lambda done, total: reporter.step(f"Generating [{doc_name}]", done, total, "docs"),
    )
    return generated.path, generated.offsets_path
