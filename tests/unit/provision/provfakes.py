"""Helpers for provisioning unit tests: fake distributions and JDKs (imported by tests and conftest)."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path

FAKE_ES = Path(__file__).with_name("fake_es.py")

STOCK_JVM_OPTIONS = """\
## GC configuration
-XX:+UseG1GC
-Djava.io.tmpdir=${ES_TMPDIR}
-XX:+HeapDumpOnOutOfMemoryError
-XX:HeapDumpPath=data
-XX:ErrorFile=logs/hs_err_pid%p.log
-Xlog:gc*,gc+age=trace,safepoint:file=logs/gc.log:utctime,level,pid,tags:filecount=32,filesize=64m
"""


def distribution_files(version: str = "8.19.0", mode: str = "ok") -> dict[str, tuple[bytes, int]]:
    """Relative path -> (content, mode) of a fake distribution whose bin/elasticsearch is fake_es.py."""
    top = f"elasticsearch-{version}"
    return {
        f"{top}/bin/elasticsearch": (FAKE_ES.read_bytes(), 0o755),
        f"{top}/lib/elasticsearch-{version}.jar": (b"", 0o644),
        f"{top}/config/jvm.options": (STOCK_JVM_OPTIONS.encode(), 0o644),
        f"{top}/config/elasticsearch.yml": (b"# stock\n", 0o644),
        f"{top}/config/log4j2.properties": (b"", 0o644),
        f"{top}/fake-mode": (mode.encode(), 0o644),
    }


def write_tar(path: Path, files: dict[str, tuple[bytes, int]]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for name, (data, mode) in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = mode
            tf.addfile(info, io.BytesIO(data))
    return path


def write_zip(path: Path, files: dict[str, tuple[bytes, int]]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, (data, mode) in files.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | mode) << 16
            zf.writestr(info, data)
    return path


def make_jdk(base: Path, name: str, version: str, *, release: bool = True) -> Path:
    """A fake JDK dir: ``bin/java`` prints ``version`` like ``java -version``; optional ``release`` file."""
    home = base / name
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2025-01-01' >&2\n")
    java.chmod(0o755)
    if release:
        (home / "release").write_text(f'IMPLEMENTOR="fake"\nJAVA_VERSION="{version}"\n')
    return home
