"""Track bundles: one tar file that carries a track and its corpora to a machine without network.

``esbench bundle --track=NAME --output=FILE.tar`` writes::

    esbench-bundle.json       manifest: track name, source (repository, revision), files with sizes
                              and SHA-256, esbench version
    track/                    the track directory as loaded (track.json, index bodies, track.py ...)
    track/<source-file>       each corpus file, beside track.json where the corpus stage looks first

A corpus file goes in as the track names it (``documents.json.bz2``) when that archive is on disk
(downloaded before, or in the track directory), else as the uncompressed file the corpus stage
prepared (``documents.json``), which the corpus stage finds by the same rule. Generated corpora
(``meta.generator``, e.g. eventdata) are not bundled: they are generated again, byte for byte.

``--track-bundle=FILE.tar`` unpacks into ``<esbench home>/bundles/<name>-<digest>/`` (once; the
digest is the manifest's SHA-256), checks every file's SHA-256, renames ``track/`` to the track's
name (the loader names a track after its directory) and races that directory, so
``esbench race --track-bundle=FILE.tar --offline`` needs nothing else.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import tarfile
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from esbench.corpus.cache import corpus_dir
from esbench.corpus.prepare import generator_meta, prepare_corpora
from esbench.exceptions import DataError, UserError
from esbench.home import home_subdir
from esbench.track.model import Track
from esbench.version import __version__

MANIFEST = "esbench-bundle.json"
BUNDLE_FORMAT = 1


@dataclass(frozen=True)
class BundledFile:
    """One file of a bundle: ``path`` inside the tar (``track/...``), ``size`` in bytes, ``sha256`` hex."""

    path: str
    size: int
    sha256: str


@dataclass(frozen=True)
class BundleManifest:
    """What a bundle holds (the JSON of ``esbench-bundle.json``)."""

    track: str
    files: tuple[BundledFile, ...]
    track_repository: str | None = None
    track_revision: str | None = None
    esbench_version: str = __version__
    format: int = BUNDLE_FORMAT

    def to_json(self) -> bytes:
        """The manifest as UTF-8 JSON."""
        return json.dumps(asdict(self), indent=2, sort_keys=True).encode()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _corpus_files(
    track: Track, *, test_mode_tracks: Iterable[Track], progress: Callable[[str], None]
) -> dict[str, Path]:
    """``{name beside track.json: local file}`` of every corpus file of the tracks that is not generated."""
    found: dict[str, Path] = {}
    for variant in (track, *test_mode_tracks):
        corpora = [c for c in variant.corpora if any(generator_meta(c, d) is None for d in c.documents)]
        if not corpora:
            continue
        prepared = prepare_corpora(variant, corpus_names=[c.name for c in corpora], progress=progress)
        for corpus in corpora:
            for documents, ready in zip(corpus.documents, prepared.files(corpus.name), strict=True):
                if generator_meta(corpus, documents) is not None:
                    continue
                places = (track.root, corpus_dir(corpus.name))
                archive = next(
                    (p / documents.source_file for p in places if (p / documents.source_file).is_file()), None
                )
                if archive is not None:
                    found[documents.source_file] = archive
                else:
                    found[ready.path.name] = ready.path
    return found


def make_bundle(
    track: Track,
    output: Path,
    *,
    test_mode_track: Track | None = None,
    track_repository: str | None = None,
    track_revision: str | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> BundleManifest:
    """Write the bundle of ``track`` (and the ``-1k`` files of ``test_mode_track``) to ``output``.

    Raises:
        DataError / DownloadError: a corpus file cannot be prepared (see :func:`prepare_corpora`).
        UserError: ``output`` cannot be written.
    """
    corpus_files = _corpus_files(
        track, test_mode_tracks=[test_mode_track] if test_mode_track else [], progress=progress
    )
    members: list[tuple[Path, str]] = [
        (p, f"track/{p.relative_to(track.root).as_posix()}")
        for p in sorted(track.root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and ".git" not in p.parts
    ]
    inside = {arcname for _, arcname in members}
    members += [
        (path, f"track/{name}")
        for name, path in sorted(corpus_files.items())
        if f"track/{name}" not in inside
    ]
    files = []
    for path, arcname in members:
        progress(f"Checksumming [{arcname}]")
        files.append(BundledFile(path=arcname, size=path.stat().st_size, sha256=_sha256(path)))
    manifest = BundleManifest(
        track=track.name, files=tuple(files), track_repository=track_repository, track_revision=track_revision
    )
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(output, "w") as tar:
            data = manifest.to_json()
            info = tarfile.TarInfo(MANIFEST)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            for path, arcname in members:
                progress(f"Adding [{arcname}]")
                tar.add(path, arcname=arcname, recursive=False)
    except OSError as e:
        raise UserError(f"Cannot write the bundle '{output}': {e}. Check --output.") from e
    return manifest


def unpack_bundle(bundle: Path) -> tuple[Path, BundleManifest]:
    """Unpack ``bundle`` into the esbench home (once) and return ``(track directory, manifest)``.

    Raises:
        DataError: not an esbench bundle, an unsafe member path, or a file whose size or SHA-256
            differs from the manifest (a damaged copy).
    """
    try:
        with tarfile.open(bundle) as tar:
            member = tar.extractfile(MANIFEST)
            if member is None:
                raise KeyError(MANIFEST)
            raw = member.read()
            data = json.loads(raw)
            manifest = BundleManifest(**{**data, "files": tuple(BundledFile(**f) for f in data["files"])})
            target = (
                home_subdir("bundles") / f"{_dir_name(manifest.track)}-{hashlib.sha256(raw).hexdigest()[:12]}"
            )
            if not (target / MANIFEST).is_file():
                staging = target.with_name(target.name + ".partial")
                shutil.rmtree(staging, ignore_errors=True)
                tar.extractall(
                    staging, filter="data"
                )  # refuses absolute paths and "..", like a safe unpacker
                _verify(staging, manifest, bundle)
                shutil.rmtree(target, ignore_errors=True)
                staging.rename(target)
    except (tarfile.TarError, KeyError, ValueError, TypeError) as e:
        raise DataError(
            f"'{bundle}' is not a readable esbench track bundle ({type(e).__name__}: {e}). Make it with "
            "`esbench bundle --track=NAME --output=FILE.tar`."
        ) from e
    except OSError as e:
        raise DataError(f"Cannot read the track bundle '{bundle}': {e}.") from e
    return _named_track_dir(target, manifest.track), manifest


def _dir_name(track: str) -> str:
    # A repository track may be nested (``elastic/logs``): its last part names it, as for --track-path.
    return track.rstrip("/").rsplit("/", 1)[-1] or "track"


def _named_track_dir(target: Path, track: str) -> Path:
    """The unpacked track directory, named after the track the bundle holds: the loader names a track
    after its directory (Rally's rule), and a directory called ``track`` would store every bundled race
    as track 'track'. A ``track.json`` outside ``track/`` is never there: the manifest lists every file."""
    named = target / _dir_name(track)
    if not named.is_dir():
        # Unpacked as ``track/`` (the tar layout, and bundles unpacked by older esbench versions).
        (target / "track").rename(named)
    return named


def _verify(root: Path, manifest: BundleManifest, bundle: Path) -> None:
    for f in manifest.files:
        path = root / f.path
        if not path.is_file() or path.stat().st_size != f.size or _sha256(path) != f.sha256:
            raise DataError(
                f"The track bundle '{bundle}' is damaged: '{f.path}' is missing or differs from its "
                "checksum. Copy the bundle again."
            )
