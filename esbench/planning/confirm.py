"""Verify a rate found by the search with repeated races: step down until it holds, and show that a
rate ``margin`` higher does not.

The search (:mod:`esbench.planning.search`) brackets the maximum with single races, and a node's
capacity moves between races (by about 10 % between 3-second races on a 2-core machine), so the rate
it ends on sits on an edge that one more race may miss. Verification judges rates on fresh, repeated
evidence, with one rule for both directions:

* a rate is **sustained** when it met the SLO in every one of ``repeats`` races (the search's own
  confirmation rule); a race that misses it ends the rate's check (it can no longer be sustained);
* starting at the search's rate ``R``: if ``R`` is not sustained, step down to ``R × (1 - step)``
  and check again (each further failure in a row doubles the step, up to ``margin``); if it is, check
  ``R × (1 + margin)``. When that higher rate is not sustained, ``R`` is the answer: sustained, and
  ``margin`` more is not. When the higher rate is sustained too, it becomes ``R`` (its check is
  already done) and the one ``margin`` above it is checked.

Pure logic: the caller's ``evaluate(rate, repeat)`` runs one race and says whether it met the SLO;
``repeat`` counts the verification races at that rate (0-based). Stepped rates are rounded to 4
significant digits. Checked rates are never measured again, so with noisy evidence the answer is the
first rate found sustained whose ``margin``-higher rate was not, even if a rate in between failed
earlier (every check is in :attr:`Confirmation.checks`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: How much higher than the answer a rate must be refuted (0.2 = 20 %).
DEFAULT_MARGIN = 0.2


@dataclass(frozen=True, kw_only=True)
class RateCheck:
    """The verification races at one ``rate`` (ops/s): ``passed`` per race, in order."""

    rate: float
    passed: tuple[bool, ...]
    repeats: int

    @property
    def sustained(self) -> bool:
        """True when all ``repeats`` races ran and met the SLO."""
        return len(self.passed) == self.repeats and all(self.passed)


@dataclass(frozen=True, kw_only=True)
class Confirmation:
    """Result of :func:`confirm_max_rate`.

    Attributes:
        rate: the highest rate found sustained whose ``margin``-higher rate was not (or which is
            ``max_rate`` / the last sustained one when the budget ended); None when none was sustained.
        refuted: the rate ``margin`` above ``rate`` that was not sustained; None when it was not
            checked (above ``max_rate``, or out of budget).
        checks: every rate checked, in order.
    """

    rate: float | None
    refuted: float | None
    checks: tuple[RateCheck, ...]

    def check_at(self, rate: float | None) -> RateCheck | None:
        """The check of ``rate``, if it was checked."""
        return next((c for c in self.checks if c.rate == rate), None)


def confirm_max_rate(
    evaluate: Callable[[float, int], bool],
    *,
    rate: float,
    repeats: int,
    min_rate: float,
    max_rate: float,
    margin: float = DEFAULT_MARGIN,
    step: float = 0.05,
    max_measurements: int = 20,
) -> Confirmation:
    """Verify ``rate`` and the rate ``margin`` above it with repeated races (module docstring).

    Args:
        evaluate: ``(rate, repeat) -> bool``: one race at ``rate`` (ops/s) met the SLO.
        rate: where to start, normally the search's lower bound (ops/s).
        repeats: races a rate must pass in all (>= 1).
        min_rate / max_rate: the range (ops/s); no rate below ``min_rate`` is tried, and the higher
            rate is not checked when it exceeds ``max_rate``.
        margin: the higher rate is ``rate × (1 + margin)``. step: a failed rate steps down by this
            fraction.
        max_measurements: at most this many races in all.

    Raises:
        ValueError: non-positive ``rate``/``margin``, ``step`` outside (0, 1), ``repeats < 1``.
    """
    if not 0 < min_rate <= rate <= max_rate:
        raise ValueError(f"need 0 < min_rate <= rate <= max_rate, got {min_rate}, {rate}, {max_rate}")
    if repeats < 1 or margin <= 0 or not 0 < step < 1:
        raise ValueError(f"need repeats >= 1, margin > 0 and 0 < step < 1, got {repeats}, {margin}, {step}")
    checks: dict[float, RateCheck] = {}
    used = 0

    def check(r: float) -> RateCheck | None:
        """The check of ``r`` (run now unless done before); None when the budget ended it early."""
        nonlocal used
        if r in checks:
            return checks[r]
        passed: list[bool] = []
        while len(passed) < repeats and (not passed or passed[-1]):
            if used >= max_measurements:
                return None
            used += 1
            passed.append(evaluate(r, len(passed)))
        checks[r] = RateCheck(rate=r, passed=tuple(passed), repeats=repeats)
        return checks[r]

    def done(answer: float | None, refuted: float | None) -> Confirmation:
        return Confirmation(rate=answer, refuted=refuted, checks=tuple(checks.values()))

    current = rate
    failed_in_a_row = 0
    while True:
        at = check(current)
        if at is None:
            return done(None, None)
        if not at.sustained:
            # Each further failure in a row doubles the step: a search that overshot by much, or a
            # node slowed by other work, is left in a few races. The step stops growing at the
            # margin: below that the way back up is by the margin, at ``repeats`` races a step.
            failed_in_a_row += 1
            current = _rounded(current * (1 - min(step * 2 ** (failed_in_a_row - 1), margin, 0.5)))
            if current < min_rate:
                return done(None, None)
            continue
        higher = _rounded(current * (1 + margin))
        if higher > max_rate:
            return done(current, None)
        above = check(higher)
        if above is None:
            return done(current, None)
        if not above.sustained:
            return done(current, higher)
        current = higher


def _rounded(rate: float) -> float:
    """``rate`` to 4 significant digits: stepped rates get short labels (``63``, not
    ``63.00000000000001``), and two rates that print alike are the same rate (the same stored race)."""
    return float(f"{rate:.4g}")
