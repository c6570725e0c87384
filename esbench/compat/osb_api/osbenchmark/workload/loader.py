"""OSB's ``osbenchmark.workload.loader`` (2.4.0): workload processors and the data helpers
workload plugins use (``Downloader``, ``Decompressor``).

A workload processor is Rally's track processor with OSB's hook names
(``on_after_load_workload``, ``on_prepare_workload``); esbench runs it through
:class:`esbench.compat.osbregistry.WorkloadProcessorAdapter`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from osbenchmark import exceptions

from esbench.compat.processors import DefaultTrackPreparator
from esbench.corpus.cache import offsets_path_for
from esbench.corpus.decompress import decompress
from esbench.corpus.download import download, file_url
from esbench.exceptions import DownloadError

logger = logging.getLogger(__name__)


class WorkloadProcessor:
    """OSB's ``WorkloadProcessor``: both hooks do nothing by default."""

    def on_after_load_workload(self, input_workload: Any, **kwargs: Any) -> None:
        """Change the (mutable) ``input_workload`` in place after it is loaded."""

    @staticmethod
    def _noop() -> None:
        return None

    def on_prepare_workload(
        self, workload: Any, data_root_dir: str
    ) -> Generator[tuple[Callable[..., Any], dict[str, Any]], None, None]:
        """Yield ``(function, kwargs)`` pairs that prepare data; the default yields a no-op."""
        yield WorkloadProcessor._noop, {}


class DefaultWorkloadPreparator(DefaultTrackPreparator):
    """OSB's default corpus preparation (a ``DefaultTrackPreparator``: esbench's corpus stage
    prepares the corpora). OSB's constructor takes the config; it is optional here."""

    def __init__(self, cfg: Any = None) -> None:
        super().__init__()
        self.cfg = cfg

    def on_after_load_workload(self, input_workload: Any, **kwargs: Any) -> None:
        """OSB's name of :meth:`on_after_load_track`."""
        self.on_after_load_track(input_workload)

    def on_prepare_workload(self, workload: Any, data_root_dir: str) -> Any:
        """OSB's name of :meth:`on_prepare_track`."""
        return self.on_prepare_track(workload, data_root_dir)


class Downloader:
    """OSB's ``Downloader(offline, test_mode)``: fetch one data file, with esbench's resuming,
    retrying download (:func:`esbench.corpus.download.download`)."""

    def __init__(self, offline: bool, test_mode: bool) -> None:
        self.offline = offline
        self.test_mode = test_mode

    def download(
        self, base_url: str | None, source_url: str | None, target_path: str, size_in_bytes: int | None
    ) -> None:
        """Fetch ``source_url`` (else ``base_url`` joined with the file name) to ``target_path``.

        Raises:
            osbenchmark.exceptions.DataError: no base URL; the download failed; the file has another
                size than ``size_in_bytes`` (OSB's checks and order).
            osbenchmark.exceptions.SystemSetupError: offline.
        """
        if not base_url:
            raise exceptions.DataError("Cannot download data because no base URL is provided.")
        if self.offline:
            raise exceptions.SystemSetupError(
                f"Cannot find [{target_path}]. Please disable offline mode and retry."
            )
        url = source_url or file_url(base_url, os.path.basename(target_path))
        try:
            download(url, Path(target_path), expected_bytes=size_in_bytes or None)
        except DownloadError as e:
            raise exceptions.DataError(f"Could not download [{url}] to [{target_path}]: {e}", e) from e


class Decompressor:
    """OSB's ``Decompressor``: decompress a data archive beside it, with esbench's decompression
    (which also writes the offset table of the documents file)."""

    def decompress(self, archive_path: str, documents_path: str, uncompressed_size: int | None) -> None:
        """Decompress ``archive_path`` into ``documents_path``.

        Raises:
            osbenchmark.exceptions.DataError: the archive cannot be read, or the result has another
                size than ``uncompressed_size``.
        """
        target = Path(documents_path)
        offsets = offsets_path_for(target)
        try:
            offsets.parent.mkdir(parents=True, exist_ok=True)
            decompress(
                Path(archive_path), target, offsets_path=offsets, expected_bytes=uncompressed_size or None
            )
        except exceptions.BenchmarkError:
            raise
        except Exception as e:
            raise exceptions.DataError(
                f"Decompressing [{archive_path}] did not create [{documents_path}]: {e}", e
            ) from e
