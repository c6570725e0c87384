"""Rally's ``--enable-driver-profiling`` for esbench's workers: each worker process runs under
:mod:`cProfile` and keeps its profile with the race.

Rally (``esrally/driver/driver.py``, ``AsyncProfiler``) profiles each client's coroutine and writes
the statistics to its log. esbench profiles each worker process (all of its clients and the event
loop) and writes, beside the race log, ``profiles/worker-N.pstats`` (for ``pstats``/snakeviz) and
``profiles/worker-N.txt`` (the costliest functions by cumulative time).
"""

from __future__ import annotations

import contextlib
import cProfile
import io
import logging
import pstats
from collections.abc import Iterator
from pathlib import Path

logger = logging.getLogger(__name__)

#: Functions listed in ``worker-N.txt``.
TEXT_FUNCTIONS = 60


@contextlib.contextmanager
def worker_profile(worker_id: int, log_file: str | None) -> Iterator[None]:
    """Profile the block when ``log_file`` (the race log; the profiles go to ``profiles/`` beside
    it) is given; else run it as is. A profile that cannot be written is logged, never raised."""
    if log_file is None:
        yield
        return
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        yield
    finally:
        profiler.disable()
        try:
            write_profile(profiler, Path(log_file).parent / "profiles", worker_id)
        except OSError as e:
            logger.warning("Profile of worker %d not written: %s", worker_id, e)


def write_profile(profiler: cProfile.Profile, directory: Path, worker_id: int) -> Path:
    """Write ``worker-N.pstats`` and ``worker-N.txt`` into ``directory``; return the ``.pstats`` path.

    Raises:
        OSError: the directory or files cannot be written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"worker-{worker_id}.pstats"
    profiler.dump_stats(path)
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(TEXT_FUNCTIONS)
    (directory / f"worker-{worker_id}.txt").write_text(text.getvalue(), encoding="utf-8")
    logger.info("Profile of worker %d written to %s", worker_id, path)
    return path
