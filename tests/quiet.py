"""Noise-sensitive bounds in timing tests: checked on one quiet run of a few, never loosened.

A lower bound or a count holds on any machine and is checked on every run. An upper bound (how
close to a delay, how close to a target rate) can be broken by another process taking the CPU for
a moment, so a run that breaks only those is repeated, up to :data:`ATTEMPTS` runs; a wrong
measurement breaks them on every run and still fails (CONTRIBUTING.md, "Rules the suite keeps").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: Runs of a measurement before a noise-sensitive bound counts as broken.
ATTEMPTS = 3


def until_quiet(
    measure: Callable[[], T], always: Callable[[T], None], when_quiet: Callable[[T], None]
) -> None:
    """Run ``measure()``; ``always(result)`` must hold on every run, ``when_quiet(result)`` on one
    run of at most :data:`ATTEMPTS` (its last AssertionError is raised if it never holds)."""
    for attempt in range(1, ATTEMPTS + 1):
        result = measure()
        always(result)
        try:
            when_quiet(result)
            return
        except AssertionError:
            if attempt == ATTEMPTS:
                raise
