"""Keep freed bulk bodies' memory in the process for the next body (glibc ``mallopt``).

A bulk body is one large ``bytes`` object (4 MB for 5,000 eventdata documents), made, sent and
freed once per request. With glibc's defaults such a block is served by ``mmap`` and given back to
the kernel when freed, or trimmed off the heap top, so every new body faults its pages in again:
512 page faults and ~1,100 µs of CPU per 4 MB body, against ~320 µs and no faults once freed
memory stays (``benchmarks/bench_bulk_source.py``; docs/performance.md, "Bulk body assembly").

:func:`retain_freed_bodies` raises the ``mmap`` threshold (``M_MMAP_THRESHOLD``) to
:data:`MMAP_THRESHOLD` and the trim threshold (``M_TRIM_THRESHOLD``) to :data:`TRIM_THRESHOLD`, in
the processes that build bulk bodies only (the first :class:`~esbench.corpus.bulk.BulkSource`
iteration calls it). Setting them also turns off glibc's own adjustment of both (``mallopt(3)``).
The cost is memory the process keeps after a burst of large bodies: at most the trim threshold
above what it uses. Elsewhere than glibc (musl, macOS) this is a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

#: Blocks below this many bytes come from the heap, so a freed body's memory is reused.
MMAP_THRESHOLD = 64 << 20
#: Free memory at the heap top kept up to this many bytes instead of being returned.
TRIM_THRESHOLD = 128 << 20
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_done: bool | None = None


def retain_freed_bodies() -> bool:
    """Set glibc's thresholds once per process (idempotent); True if they are set.

    Source of the option numbers and their effect: glibc ``malloc/malloc.h`` and ``mallopt(3)``.
    Never raises: where ``mallopt`` is missing or refuses, the defaults stay and False is returned.
    """
    global _done
    if _done is not None:
        return _done
    _done = False
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # mallopt returns 1 on success, 0 on error (musl has no mallopt: AttributeError above).
    _done = (
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    )
    return _done
