"""Rally's ``esrally.track.loader`` (2.13): track processors and template rendering for plugins."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from esbench.compat.processors import DefaultTrackPreparator, TrackProcessor  # noqa: F401
from esbench.compat.rally_exceptions import InvalidSyntax
from esbench.corpus.cache import offsets_path_for
from esbench.corpus.decompress import decompress
from esbench.corpus.download import download, file_url
from esbench.exceptions import DataError
from esbench.track import render
from esbench.track.assemble import assemble_file


class TrackSyntaxError(InvalidSyntax):
    """Rally: a syntax problem in the track specification."""


def render_template_from_file(
    template_file_name: str,
    template_vars: dict[str, Any],
    complete_track_params: Any = None,
    build_flavor: str | None = None,
    serverless_operator: bool | None = None,
) -> str:
    """Rally's function: render a track file with Rally's Jinja environment (``rally.collect``
    pre-inclusion, ``rally.helpers``, ``now``, ``glob``, date filters) and ``template_vars`` as
    globals; returns the rendered text. ``complete_track_params`` (Rally collects the names the
    file uses in it) is accepted and not needed here.

    Raises:
        esbench.exceptions.TrackSyntaxError: invalid Jinja (file and line).
    """
    path = Path(template_file_name)
    env = render.track_environment(
        path.parent,
        dict(template_vars or {}),
        build_flavor=build_flavor,
        serverless_operator=bool(serverless_operator),
    )
    return render.render_assembled(env, assemble_file(path), description=f"template '{path}'")


class DocumentSetPreparator:
    """Rally's ``DocumentSetPreparator(track_name, downloader, decompressor)``: makes one document
    file available in ``data_root`` (download from ``base_url`` if missing, decompress the archive,
    build the offset table), with esbench's download and decompression code."""

    def __init__(self, track_name: str, downloader: Any = None, decompressor: Any = None) -> None:
        self.track_name = track_name
        self.downloader = downloader
        self.decompressor = decompressor

    def is_locally_available(self, file_name: str) -> bool:
        return os.path.isfile(file_name)

    def has_expected_size(self, file_name: str, expected_size: int | None) -> bool:
        return expected_size is None or os.path.getsize(file_name) == expected_size

    def prepare_document_set(self, document_set: Any, data_root: str) -> None:
        """Download and decompress ``document_set`` into ``data_root`` unless it is there.

        Raises:
            esbench.exceptions.DataError / DownloadError: no source, a failed download, a corrupt archive.
        """
        root = Path(data_root)
        doc_file = root / Path(document_set.document_file).name
        if self.is_locally_available(str(doc_file)) and self.has_expected_size(
            str(doc_file), document_set.uncompressed_size_in_bytes or None
        ):
            document_set.document_file = str(doc_file)
            return
        if document_set.document_archive is None:
            if not document_set.base_url:
                raise DataError(
                    f"Document file [{doc_file}] of track [{self.track_name}] is missing and has no base-url."
                )
            download(file_url(document_set.base_url, doc_file.name), doc_file)
            document_set.document_file = str(doc_file)
            return
        archive = root / Path(document_set.document_archive).name
        if not self.is_locally_available(str(archive)):
            if not document_set.base_url:
                raise DataError(
                    f"Archive [{archive}] of track [{self.track_name}] is missing and has no base-url."
                )
            download(
                file_url(document_set.base_url, archive.name),
                archive,
                expected_bytes=document_set.compressed_size_in_bytes or None,
            )
        decompress(
            archive,
            doc_file,
            offsets_path=offsets_path_for(doc_file),
            expected_bytes=document_set.uncompressed_size_in_bytes or None,
        )
        document_set.document_file = str(doc_file)

    def prepare_bundled_document_set(self, document_set: Any, data_root: str) -> bool:
        """Rally: prepare a file that ships with the track; False if neither it nor its archive is there."""
        root = Path(data_root)
        present = (root / Path(document_set.document_file).name).is_file() or (
            document_set.document_archive is not None
            and (root / Path(document_set.document_archive).name).is_file()
        )
        if not present:
            return False
        self.prepare_document_set(document_set, data_root)
        return True
