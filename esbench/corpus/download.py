"""Download of corpus files from a track's ``base-url`` (no resume).

Like Rally's ``Downloader`` (``esrally/track/loader.py``): the URL is ``base-url`` + ``/`` + the
file name, joined by hand; the size is checked against the track's ``compressed-bytes`` (archives)
or ``uncompressed-bytes`` (plain files) when given.
"""

from __future__ import annotations

import os
import shutil
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from esbench.exceptions import DownloadError

_CHUNK = 1 << 20
_TIMEOUT_S = 60.0


def file_url(base_url: str, file_name: str) -> str:
    """``base_url`` joined with ``file_name`` by one ``/`` (Rally's rule)."""
    return f"{base_url}{'' if base_url.endswith('/') else '/'}{file_name}"


def download(
    url: str,
    target: Path,
    *,
    expected_bytes: int | None = None,
    progress: Callable[[int, int | None], None] | None = None,
    manual_hint: str = "",
) -> None:
    """Fetch ``url`` into ``target`` (via a temporary file renamed at the end).

    ``progress(bytes_so_far, total_or_None)`` is called per 1 MB chunk.

    Raises:
        DownloadError: HTTP or network error, or a size different from ``expected_bytes``; the
            message names the URL and target and ends with ``manual_hint``.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.download")
    hint = f" {manual_hint}" if manual_hint else ""
    done = 0
    try:
        with urllib.request.urlopen(url, timeout=_TIMEOUT_S) as response, open(tmp, "wb") as out:
            length = response.headers.get("Content-Length") if hasattr(response, "headers") else None
            total = int(length) if length and length.isdigit() else expected_bytes
            while chunk := response.read(_CHUNK):
                out.write(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
    except urllib.error.HTTPError as e:
        tmp.unlink(missing_ok=True)
        raise DownloadError(
            f"Could not download [{url}] to [{target}] (HTTP status: {e.code}, reason: {e.reason}).{hint}",
            cause=e,
        ) from e
    except (urllib.error.URLError, OSError, ValueError) as e:
        tmp.unlink(missing_ok=True)
        reason = getattr(e, "reason", e)
        raise DownloadError(f"Could not download [{url}] to [{target}]: {reason}.{hint}", cause=e) from e
    if expected_bytes is not None and done != expected_bytes:
        tmp.unlink(missing_ok=True)
        raise DownloadError(
            f"[{url}] is corrupt or incomplete: downloaded {done} bytes but {expected_bytes} bytes "
            f"are expected.{hint}"
        )
    shutil.move(str(tmp), str(target))
