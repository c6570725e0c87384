"""Download of corpus files from a track's ``base-url``, resumable and retried.

Like Rally's ``Downloader`` (``esrally/track/loader.py``): the URL is ``base-url`` + ``/`` + the
file name, joined by hand; the size is checked against the track's ``compressed-bytes`` (archives)
or ``uncompressed-bytes`` (plain files) when given.

Unlike Rally, whose downloads restart from zero after a broken connection, the bytes received so far
stay in ``.<name>.partial`` beside the target, and the next attempt (in the same call, after a backoff,
or in a later esbench run) asks for the rest with an HTTP ``Range: bytes=N-`` request (RFC 9110
§14.2). A server that ignores the range answers 200 with the whole file, which is then written from
the start; a 416 answer means the partial file is already whole (or foreign) and is checked by size.
"""

from __future__ import annotations

import http.client
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from esbench.exceptions import DownloadError

_CHUNK = 1 << 20
_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class RetryPolicy:
    """How often a broken download is tried again.

    Attributes:
        attempts: tries in all (the first one included).
        backoff_s: wait before the second try, in seconds; doubled before each further try.
        max_backoff_s: upper bound of one wait, in seconds.
    """

    attempts: int = 5
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0

    def wait_before(self, attempt: int) -> float:
        """Seconds to wait before try number ``attempt`` (1-based; 0 before the first)."""
        if attempt <= 1:
            return 0.0
        # attempt >= 2 here, so the power is an int (typeshed leaves int ** int untyped: a negative
        # exponent would give a float).
        factor: int = 2 ** (attempt - 2)
        return min(self.max_backoff_s, self.backoff_s * factor)


DEFAULT_RETRY = RetryPolicy()


def file_url(base_url: str, file_name: str) -> str:
    """``base_url`` joined with ``file_name`` by one ``/`` (Rally's rule)."""
    return f"{base_url}{'' if base_url.endswith('/') else '/'}{file_name}"


def partial_path(target: Path) -> Path:
    """Where the bytes of an unfinished download of ``target`` are kept between tries."""
    return target.with_name(f".{target.name}.partial")


class _Transient(Exception):
    """A failure worth another try: a broken connection, a timeout, a 5xx or 429 answer."""


def _open(url: str, offset: int) -> tuple[BinaryIO, int, int | None]:
    """Open ``url`` from byte ``offset``; returns (response, the offset the body starts at, total size)."""
    request = urllib.request.Request(url, headers={"Range": f"bytes={offset}-"} if offset else {})
    response = urllib.request.urlopen(request, timeout=_TIMEOUT_S)
    length = response.headers.get("Content-Length")
    size = int(length) if length and length.isdigit() else None
    if offset and response.status == 206:
        content_range = response.headers.get("Content-Range", "")  # "bytes 100-199/200"
        total = content_range.rpartition("/")[2]
        return response, offset, int(total) if total.isdigit() else None
    return response, 0, size


def _attempt(
    url: str, partial: Path, progress: Callable[[int, int | None], None] | None, expected: int | None
) -> int:
    """One try: continue ``partial`` from its size; returns the bytes it holds at the end."""
    offset = partial.stat().st_size if partial.exists() else 0
    if expected is not None and offset == expected:
        return offset
    try:
        response, start, total = _open(url, offset)
    except urllib.error.HTTPError as e:
        if e.code == 416 and offset:
            return offset  # nothing left to send: the size check decides
        if e.code >= 500 or e.code == 429:
            raise _Transient(f"HTTP status {e.code} ({e.reason})") from e
        raise
    except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
        raise _Transient(str(getattr(e, "reason", e))) from e
    done = start
    with response, open(partial, "r+b" if start else "wb") as out:
        out.seek(start)
        out.truncate()
        while True:
            try:
                chunk = response.read(_CHUNK)
            except (OSError, http.client.HTTPException) as e:
                # Only the network side is retried; a local write error (disk full) propagates.
                raise _Transient(f"the connection broke after {done} bytes ({type(e).__name__}: {e})") from e
            if not chunk:
                break
            out.write(chunk)
            done += len(chunk)
            if progress is not None:
                progress(done, total or expected)
    if total is not None and done < total:
        raise _Transient(f"the server closed the connection after {done} of {total} bytes")
    return done


def download(
    url: str,
    target: Path,
    *,
    expected_bytes: int | None = None,
    progress: Callable[[int, int | None], None] | None = None,
    manual_hint: str = "",
    retry: RetryPolicy = DEFAULT_RETRY,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Fetch ``url`` into ``target``, resuming a partial download and retrying transient failures.

    ``progress(bytes_so_far, total_or_None)`` is called per 1 MiB chunk. A broken connection, a
    timeout or a 5xx/429 answer is retried ``retry.attempts`` times in all with exponential backoff;
    each retry continues where the previous one stopped. ``target`` appears only when complete.

    Raises:
        DownloadError: the server refused (4xx), every try failed, or the size differs from
            ``expected_bytes`` (the partial file is then removed, since it cannot be continued);
            the message names the URL and target and ends with ``manual_hint``.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = partial_path(target)
    hint = f" {manual_hint}" if manual_hint else ""
    last_problem = ""
    done = 0
    for attempt in range(1, retry.attempts + 1):
        sleep(retry.wait_before(attempt))
        try:
            done = _attempt(url, partial, progress, expected_bytes)
            break
        except _Transient as e:
            last_problem = str(e)
        except urllib.error.HTTPError as e:
            status = f"HTTP status: {e.code}, reason: {e.reason}"
            raise DownloadError(f"Could not download [{url}] to [{target}] ({status}).{hint}", cause=e) from e
        except (OSError, ValueError) as e:
            raise DownloadError(f"Could not download [{url}] to [{target}]: {e}.{hint}", cause=e) from e
    else:
        kept = partial.stat().st_size if partial.exists() else 0
        raise DownloadError(
            f"Could not download [{url}] to [{target}] in {retry.attempts} tries: {last_problem}. "
            f"The {kept} bytes received so far are kept in [{partial}]; the next run continues from "
            f"there.{hint}"
        )
    if expected_bytes is not None and done != expected_bytes:
        partial.unlink(missing_ok=True)
        raise DownloadError(
            f"[{url}] is corrupt or incomplete: downloaded {done} bytes but {expected_bytes} bytes "
            f"are expected.{hint}"
        )
    partial.replace(target)
