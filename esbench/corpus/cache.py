"""Where prepared corpus files live under ``esbench_home()/"corpora"``.

Layout::

    corpora/
      <corpus>/<file>                  downloads (archive + decompressed file + .offset), like Rally's
                                       ~/.rally/benchmarks/data/<corpus>/; also where a user may put
                                       files by hand
      _local/<key>/<file>              decompressed copies of archives found in a track directory,
                                       and offset indices of uncompressed files used in place there;
                                       <key> = first 16 hex digits of sha256(absolute source path)
      _generated/<generator>/<key>/    generator output; <key> = "v<version>-" + a digest of the
                                       generator params (params.json in the directory spells them out)

Keying local copies by the source's absolute path keeps two tracks with the same file name apart;
a ``.source`` stamp beside each copy records the source's size and mtime to detect changes.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path

from esbench.home import home_subdir

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def corpora_home() -> Path:
    """``esbench_home()/"corpora"`` (created on first use)."""
    return home_subdir("corpora")


def corpus_dir(corpus_name: str) -> Path:
    """Download/manual-placement directory of a corpus (not created)."""
    return corpora_home() / (_UNSAFE.sub("_", corpus_name).strip(".") or "_")


def local_dir(source: Path) -> Path:
    """Cache directory for files derived from ``source``, a file outside the cache (not created)."""
    digest = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:16]
    return corpora_home() / "_local" / digest


def generated_dir(generator: str, version: str, params: Mapping[str, object]) -> Path:
    """Directory for the output of ``generator`` at ``version`` with normalized ``params`` (not created)."""
    canonical = json.dumps(dict(params), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:12]
    return (
        corpora_home() / "_generated" / _UNSAFE.sub("_", generator) / f"v{_UNSAFE.sub('_', version)}-{digest}"
    )


def is_in_cache(path: Path) -> bool:
    """True if ``path`` lies under the corpora cache."""
    try:
        path.resolve().relative_to(corpora_home().resolve())
    except ValueError:
        return False
    return True


def offsets_path_for(data_path: Path) -> Path:
    """Where the offset index of ``data_path`` goes: beside it in the cache, else under ``_local``."""
    if is_in_cache(data_path):
        return data_path.with_name(data_path.name + ".offset")
    return local_dir(data_path) / (data_path.name + ".offset")


def source_stamp(source: Path) -> str:
    """A stamp identifying the current content of ``source`` (size and mtime in ns)."""
    st = source.stat()
    return f"{source.resolve()} {st.st_size} {st.st_mtime_ns}\n"
