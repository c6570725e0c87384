"""Service-level objectives: ``"p99 latency < 100ms, error rate < 1%"``.

Grammar (clauses separated by ``,`` or ``and``, case-insensitive)::

    p<PERCENTILE> latency|service time < | <= <NUMBER> ms|s
    error rate < | <= <NUMBER> %

Latency counts the time a request waited for its scheduled start (throttled tasks), service time does
not (docs/metrics.md); for find-max the latency form is the one a user sees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from esbench.exceptions import UserError

_EXAMPLE = '--slo="p99 latency < 100ms, error rate < 1%"'
_PERCENTILE = re.compile(
    r"^p(?P<p>\d+(?:\.\d+)?)\s+(?P<metric>latency|service[ _-]?time)\s*(?P<op><=|<)\s*"
    r"(?P<value>\d+(?:\.\d+)?)\s*(?P<unit>ms|s)$"
)
_ERROR_RATE = re.compile(r"^error[ _-]?rate\s*(?P<op><=|<)\s*(?P<value>\d+(?:\.\d+)?)\s*%$")


class SloMetric(StrEnum):
    """The per-request duration an SLO clause limits."""

    LATENCY = "latency"
    SERVICE_TIME = "service_time"


@dataclass(frozen=True, kw_only=True)
class PercentileLimit:
    """``p<percentile> <metric> < limit_ms`` (``inclusive``: ``<=``)."""

    metric: SloMetric
    percentile: float
    limit_ms: float
    inclusive: bool = False

    def describe(self) -> str:
        """``p99 latency < 100 ms``."""
        name = "latency" if self.metric is SloMetric.LATENCY else "service time"
        return f"p{self.percentile:g} {name} {'<=' if self.inclusive else '<'} {self.limit_ms:g} ms"

    def holds(self, measured_ms: float | None) -> bool:
        """True when ``measured_ms`` (None = not measured) is within the limit."""
        if measured_ms is None:
            return False
        return measured_ms <= self.limit_ms if self.inclusive else measured_ms < self.limit_ms


@dataclass(frozen=True, kw_only=True)
class ErrorRateLimit:
    """``error rate < limit`` with ``limit`` a fraction (1 % = 0.01)."""

    limit: float
    inclusive: bool = False

    def describe(self) -> str:
        """``error rate < 1 %``."""
        return f"error rate {'<=' if self.inclusive else '<'} {self.limit * 100:g} %"

    def holds(self, measured: float | None) -> bool:
        """True when the measured error rate (a fraction; None = no samples) is within the limit."""
        if measured is None:
            return False
        return measured <= self.limit if self.inclusive else measured < self.limit


@dataclass(frozen=True, kw_only=True)
class Slo:
    """A parsed SLO: percentile limits and at most one error-rate limit; all must hold."""

    text: str
    percentiles: tuple[PercentileLimit, ...]
    error_rate: ErrorRateLimit | None = None

    def describe(self) -> str:
        """The clauses, normalised: ``p99 latency < 100 ms, error rate < 1 %``."""
        parts = [p.describe() for p in self.percentiles]
        if self.error_rate is not None:
            parts.append(self.error_rate.describe())
        return ", ".join(parts)


def parse_slo(text: str, *, option: str = "--slo") -> Slo:
    """Parse an SLO (grammar in the module docstring).

    Raises:
        UserError: an empty SLO, a clause that does not parse, a percentile outside (0, 100], or two
            error-rate clauses; the message names the clause and shows an example.
    """
    clauses = [c.strip() for c in re.split(r",|\band\b", text.strip().lower()) if c.strip()]
    if not clauses:
        raise UserError(f"{option} is empty: give at least one limit, e.g. {_EXAMPLE}.")
    limits: list[PercentileLimit] = []
    error_rate: ErrorRateLimit | None = None
    for clause in clauses:
        clause = re.sub(r"\s+", " ", clause)
        if m := _PERCENTILE.match(clause):
            percentile = float(m["p"])
            if not 0 < percentile <= 100:
                raise UserError(
                    f"{option}: percentile p{m['p']} in '{clause}' must be in (0, 100], e.g. p99."
                )
            value = float(m["value"]) * (1000.0 if m["unit"] == "s" else 1.0)
            metric = SloMetric.LATENCY if m["metric"] == "latency" else SloMetric.SERVICE_TIME
            limits.append(
                PercentileLimit(
                    metric=metric, percentile=percentile, limit_ms=value, inclusive=m["op"] == "<="
                )
            )
        elif m := _ERROR_RATE.match(clause):
            if error_rate is not None:
                raise UserError(f"{option} gives the error rate twice ('{text}'): keep one limit.")
            error_rate = ErrorRateLimit(limit=float(m["value"]) / 100.0, inclusive=m["op"] == "<=")
        else:
            raise UserError(
                f"{option}: cannot parse '{clause}' in '{text}'. Write clauses like 'p99 latency < 100ms', "
                f"'p90 service time <= 0.5s' or 'error rate < 1%', separated by commas, e.g. {_EXAMPLE}."
            )
    if not limits:
        raise UserError(
            f"{option} '{text}' limits only the error rate: add a latency or service-time percentile, "
            f"e.g. {_EXAMPLE}."
        )
    return Slo(text=text, percentiles=tuple(limits), error_rate=error_rate)
