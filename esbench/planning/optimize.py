"""Seed 004's optimiser, automated: double a value until throughput drops, then refine.

Procedure (seed 004, "find the optimal bulk size by doubling documents per bulk from 100 until
throughput drops", then the same for clients):

1. **Double** from ``start`` (start, 2·start, 4·start, ... up to ``max_value``) until a value's
   throughput is lower than the previous value's.
2. **Refine** between the best value and the better of its two measured neighbours: measure their
   (integer) midpoint; repeat with the new best pair ``refine_steps`` times or until no integer
   lies between them.

The optimum is the measured value with the highest throughput.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, kw_only=True)
class OptimizeOutcome:
    """Result of :func:`optimize_value`: ``best`` value, every ``(value, throughput)`` in measured order."""

    best: int | None
    measured: tuple[tuple[int, float | None], ...]


def optimize_value(
    measure: Callable[[int], float | None],
    *,
    start: int,
    max_value: int,
    refine_steps: int = 2,
) -> OptimizeOutcome:
    """Find the value with the highest throughput (procedure in the module docstring).

    Args:
        measure: value -> throughput (None when nothing was measured, which counts as lowest).
        start: first value (>= 1). max_value: no value above it is tried.
        refine_steps: midpoints measured after the doubling phase.

    Raises:
        ValueError: ``start < 1``, ``max_value < start`` or ``refine_steps < 0``.
    """
    if start < 1 or max_value < start or refine_steps < 0:
        raise ValueError(
            f"need 1 <= start <= max_value and refine_steps >= 0, got {start}, {max_value}, {refine_steps}"
        )
    results: dict[int, float | None] = {}
    order: list[int] = []

    def run(value: int) -> float:
        results[value] = measure(value)
        order.append(value)
        return _score(results[value])

    value, previous = start, None
    while value <= max_value:
        score = run(value)
        if previous is not None and score < previous:
            break
        previous = score
        if value == max_value:
            break
        value = min(value * 2, max_value)
    for _ in range(refine_steps):
        values = sorted(results)
        b = max(range(len(values)), key=lambda i: _score(results[values[i]]))
        neighbours = [i for i in (b - 1, b + 1) if 0 <= i < len(values)]
        if not neighbours:
            break
        n = max(neighbours, key=lambda i: _score(results[values[i]]))
        mid = (values[b] + values[n]) // 2
        if mid in results:
            break
        run(mid)
    measured = tuple((v, results[v]) for v in order)
    best = (
        max(results, key=lambda v: _score(results[v]))
        if any(t is not None for t in results.values())
        else None
    )
    return OptimizeOutcome(best=best, measured=measured)


def _score(throughput: float | None) -> float:
    return throughput if throughput is not None else float("-inf")
