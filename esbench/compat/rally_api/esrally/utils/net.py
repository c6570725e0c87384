"""Rally's ``esrally.utils.net`` (2.13): downloads for plugins (HTTP(S) only)."""

from __future__ import annotations

import urllib.request
from pathlib import Path
from typing import Any

from esbench.corpus.download import download as _download


def download_http(
    url: str, local_path: str, expected_size_in_bytes: int | None = None, progress_indicator: Any = None
) -> int:
    """Download ``url`` into ``local_path``; returns the number of bytes.

    Raises:
        esbench.exceptions.DownloadError: HTTP or network error, or an unexpected size.
    """
    _download(url, Path(local_path), expected_bytes=expected_size_in_bytes)
    return Path(local_path).stat().st_size


def download(
    url: str, local_path: str, expected_size_in_bytes: int | None = None, progress_indicator: Any = None
) -> int:
    """Rally's ``download`` for ``http(s)://`` URLs (``s3://`` and ``gs://`` need Rally's cloud clients).

    Raises:
        esbench.exceptions.DownloadError: see :func:`download_http`, or an unsupported scheme.
    """
    if not url.startswith(("http://", "https://")):
        from esbench.exceptions import DownloadError

        raise DownloadError(
            f"Cannot download [{url}]: esbench's Rally compatibility downloads http(s) URLs only."
        )
    return download_http(url, local_path, expected_size_in_bytes, progress_indicator)


def retrieve_content_as_string(url: str) -> str:
    """The body of ``url`` as text (UTF-8)."""
    with urllib.request.urlopen(url, timeout=60) as response:
        body: bytes = response.read()
        return body.decode("utf-8")
