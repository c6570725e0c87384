from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from provfakes import distribution_files, write_tar, write_zip

from esbench.exceptions import SupplyError
from esbench.provision.archives import COMPLETE_MARKER, unpack


@pytest.mark.parametrize("kind", ["zip", "tar"])
def test_unpack_keeps_exec_bits_and_marks_complete(tmp_path: Path, kind: str) -> None:
    files = distribution_files()
    archive = (write_zip if kind == "zip" else write_tar)(tmp_path / f"d.{kind}", files)
    home = unpack(archive, tmp_path / "cache" / "es")
    script = home / "bin" / "elasticsearch"
    assert script.read_bytes() == files["elasticsearch-8.19.0/bin/elasticsearch"][0]
    assert os.stat(script).st_mode & stat.S_IXOTH
    assert os.stat(home / "config" / "jvm.options").st_mode & stat.S_IROTH
    assert (home / COMPLETE_MARKER).exists()
    assert [p.name for p in (tmp_path / "cache").iterdir() if ".tmp-" in p.name] == []


def test_unpack_is_skipped_when_complete_and_redone_when_half_done(tmp_path: Path) -> None:
    archive = write_tar(tmp_path / "d.tar.gz", distribution_files())
    target = tmp_path / "es"
    unpack(archive, target)
    (target / "sentinel").write_text("x")
    unpack(archive, target)
    assert (target / "sentinel").exists()  # not unpacked again
    (target / COMPLETE_MARKER).unlink()  # as if a previous unpack crashed
    unpack(archive, target)
    assert not (target / "sentinel").exists()


def test_corrupt_archive_is_a_supply_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(SupplyError, match="Cannot unpack"):
        unpack(bad, tmp_path / "es")
    assert not (tmp_path / "es").exists()


def test_archive_without_single_top_dir_is_rejected(tmp_path: Path) -> None:
    archive = write_zip(tmp_path / "flat.zip", {"a.txt": (b"", 0o644), "b.txt": (b"", 0o644)})
    with pytest.raises(SupplyError, match="one top-level"):
        unpack(archive, tmp_path / "es")
