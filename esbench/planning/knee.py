"""The knee of a throughput/latency curve.

Rule (issue 10, after seeds 003 and 004: "qps rises then plateaus" while latency grows): walking the
points in sweep order, the knee is the first point *i* after which throughput gains less than
``min_gain`` (a fraction, default 5 %): no later point's throughput exceeds point *i*'s by
``min_gain`` or more, **and** latency keeps rising: every later point's latency is higher than point
*i*'s. More load after the knee only queues: throughput stays, latency grows. Comparing with all
later points (not only the next one) keeps one noisy point from naming a knee too early.

A flattening where either point had a saturated load driver (its CPU, see
:mod:`esbench.planning.driver_cpu`) is not named a knee: the client, not the cluster, stopped the
throughput (seed 003 checked this by spreading the threads over three machines).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Default minimal relative throughput gain from one point to the next (5 %).
DEFAULT_MIN_GAIN = 0.05


@dataclass(frozen=True, kw_only=True)
class CurvePoint:
    """One point of a sweep as the knee rule sees it.

    Attributes:
        throughput: mean throughput (any unit, the same for all points); None = not measured.
        latency_ms: the latency the rule watches (the sweep uses p50 latency), ms; None = not measured.
        driver_saturated: the load driver's CPU was saturated during the point's task.
    """

    throughput: float | None
    latency_ms: float | None
    driver_saturated: bool = False


@dataclass(frozen=True, kw_only=True)
class Knee:
    """The outcome of :func:`find_knee`.

    Attributes:
        index: position of the knee point in the sweep, or None when there is none.
        reason: one sentence explaining the outcome.
        driver_limited: the curve flattened, but with a saturated load driver (no knee named).
    """

    index: int | None
    reason: str
    driver_limited: bool = False


def find_knee(points: Sequence[CurvePoint], *, min_gain: float = DEFAULT_MIN_GAIN) -> Knee:
    """Find the knee of ``points`` (in sweep order) by the rule of the module docstring.

    Args:
        points: the sweep's points, in the order the swept value grows.
        min_gain: minimal relative throughput gain (0.05 = 5 %) for the curve to count as rising.

    Raises:
        ValueError: ``min_gain`` is negative.
    """
    if min_gain < 0:
        raise ValueError(f"min_gain must not be negative, got {min_gain}")
    measured = [p for p in points if p.throughput is not None and p.latency_ms is not None]
    if len(measured) < 2:
        # A knee is where the curve bends: one point (or one measured point) has no curve.
        what = "one point" if len(points) == 1 else f"{len(measured)} measured point(s) of {len(points)}"
        return Knee(
            index=None,
            reason=f"{what} cannot show a knee: sweep at least two values (e.g. --clients=1,2,4,8).",
        )
    for i, a in enumerate(points[:-1]):
        later = [
            (p, p.throughput, p.latency_ms)
            for p in points[i + 1 :]
            if p.throughput is not None and p.latency_ms is not None
        ]
        if not a.throughput or a.latency_ms is None or not later:
            continue
        gain = max(throughput for _, throughput, _ in later) / a.throughput - 1
        if gain < min_gain and all(latency > a.latency_ms for _, _, latency in later):
            if a.driver_saturated or any(p.driver_saturated for p, _, _ in later):
                return Knee(
                    index=None,
                    driver_limited=True,
                    reason=(
                        f"throughput flattened after point {i + 1} (at most {gain:+.1%} later) but the load "
                        "driver was saturated there, so the limit may be esbench's own: add load driver "
                        "cores or workers (--load-driver-workers) before reading a knee."
                    ),
                )
            return Knee(
                index=i,
                reason=(
                    f"no later point gains {min_gain:.0%} throughput over it (at most {gain:+.1%}) while "
                    f"latency rises from {a.latency_ms:.1f} ms to {later[-1][2]:.1f} ms."
                ),
            )
    return Knee(
        index=None,
        reason=f"throughput kept gaining at least {min_gain:.0%} per point (or latency did not rise): "
        "no knee in the swept range; extend the sweep.",
    )
