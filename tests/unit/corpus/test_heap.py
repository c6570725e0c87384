"""Freed bulk bodies' memory stays in the process (glibc), so the next body does not fault it in."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import textwrap

import pytest

_FAULTS = textwrap.dedent(
    """
    import resource, sys
    from esbench.corpus import heap
    if sys.argv[1] == "retain":
        assert heap.retain_freed_bodies() is True
        assert heap.retain_freed_bodies() is True  # once per process, the same answer
    chunk = b"x" * (4 << 20)
    bodies = [chunk[:-1] + b"y" for _ in range(3)]  # warm up: the heap has grown once
    del bodies
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for i in range(40):
        body = chunk[:-1] + bytes([i])  # a new 4 MiB body, like one of 5,000 eventdata documents
        del body
    print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 40)
    """
)


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc's mallopt"
)
def test_a_new_large_body_reuses_the_freed_one_instead_of_faulting_its_pages_in() -> None:
    def faults_per_body(mode: str) -> float:
        out = subprocess.run(
            [sys.executable, "-c", _FAULTS, mode], capture_output=True, text=True, check=True, env=os.environ
        )
        return float(out.stdout.strip())

    default, retained = faults_per_body("default"), faults_per_body("retain")
    if default < 100:
        pytest.skip(f"{default} faults per 4 MiB body with glibc's defaults: huge pages, nothing to save")
    assert retained < 5, f"{retained} page faults per 4 MiB body with freed memory retained"
