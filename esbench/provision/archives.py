"""Unpack distribution archives (zip, tar.gz) safely and atomically into a cache directory."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

from esbench.exceptions import SupplyError

#: Written into an unpacked directory once it is complete; its absence means "unpack again".
COMPLETE_MARKER = ".esbench-complete"


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing): serialises concurrent esbench runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def archive_kind(path: Path) -> str:
    """``"zip"`` or ``"tar"`` by file name; raises SupplyError for anything else."""
    name = path.name.lower()
    if name.endswith(".zip"):
        return "zip"
    if name.endswith((".tar.gz", ".tgz", ".tar")):
        return "tar"
    raise SupplyError(
        f"'{path}' is not a .zip, .tar.gz or .tgz archive: --distribution-path needs an Elasticsearch "
        f"distribution archive."
    )


def _extract_zip(archive: Path, dest: Path) -> None:
    # zipfile ignores Unix permissions; restore them (bin/elasticsearch must stay executable) and keep
    # files readable by the unprivileged account that will run the node.
    with zipfile.ZipFile(archive) as zf:
        for info in zf.infolist():
            mode = (info.external_attr >> 16) & 0xFFFF
            target = Path(zf.extract(info, dest))
            if stat.S_ISLNK(mode):
                link = zf.read(info).decode()
                target.unlink()
                target.symlink_to(link)
                continue
            perm = stat.S_IMODE(mode)
            if info.is_dir():
                os.chmod(target, (perm or 0o755) | 0o755)
            else:
                os.chmod(target, ((perm or 0o644) | 0o444) & 0o775)


def _extract_tar(archive: Path, dest: Path) -> None:
    with tarfile.open(archive) as tf:
        tf.extractall(dest, filter="data")


def unpack(archive: Path, target: Path) -> Path:
    """Unpack ``archive`` so that its single top-level directory becomes ``target``.

    Idempotent and safe against concurrent callers: a lock file beside ``target`` serialises them, the
    archive is extracted into a temporary sibling and renamed, and :data:`COMPLETE_MARKER` marks a
    finished directory (a half-unpacked one left by a crash is replaced).

    Raises:
        SupplyError: the archive is corrupt or does not have exactly one top-level directory.
    """
    with file_lock(target.with_name(target.name + ".lock")):
        if (target / COMPLETE_MARKER).exists():
            return target
        tmp = target.with_name(f"{target.name}.tmp-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        try:
            if archive_kind(archive) == "zip":
                _extract_zip(archive, tmp)
            else:
                _extract_tar(archive, tmp)
            entries = [p for p in tmp.iterdir()]
            if len(entries) != 1 or not entries[0].is_dir():
                raise SupplyError(
                    f"'{archive}' does not look like an Elasticsearch distribution: expected one top-level "
                    f"directory, found {sorted(p.name for p in entries)[:5]}."
                )
            shutil.rmtree(target, ignore_errors=True)
            entries[0].rename(target)
            (target / COMPLETE_MARKER).touch()
        except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as e:
            shutil.rmtree(target, ignore_errors=True)
            raise SupplyError(f"Cannot unpack '{archive}': {e}. Delete it and download it again.", e) from e
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return target
