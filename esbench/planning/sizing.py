"""Seed 004's sizing calculator for time-based data (logs, metrics) in hot/warm/cold tiers.

Formulas (seed 004, after Elastic's "Benchmarking and sizing your Elasticsearch cluster for logs and
metrics"), per tier::

    total data (GB)    = raw GB/day × retention days × (replicas + 1)
    total storage (GB) = total data × (1 + 0.15 free-space watermark + 0.1 margin)
    data nodes         = ceil(total storage / memory per node (GB) / memory:data ratio)  (+ 1 spare)

with memory:data ratios hot 1:30, warm 1:160, cold 1:500. The seed adds the spare node "for large
clusters": here a tier gets one when it needs more than ``spare_above`` nodes (default 3, which
reproduces both of the seed's examples: 3 nodes for 675 GB on 8 GB nodes, no spare; 4 + 1 hot and
9 + 1 warm nodes for 100 GB/day on 64 GB nodes). Months are 30 days, years 365 days.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from enum import StrEnum

from esbench.exceptions import UserError

WATERMARK = 0.15
MARGIN = 0.10
DEFAULT_SPARE_ABOVE = 3
SECONDS_PER_DAY = 86_400


class Tier(StrEnum):
    """Data tiers, hottest first."""

    HOT = "hot"
    WARM = "warm"
    COLD = "cold"


#: GB of data per GB of memory (memory:data ratio 1:N), seed 004.
MEMORY_DATA_RATIO: dict[Tier, int] = {Tier.HOT: 30, Tier.WARM: 160, Tier.COLD: 500}

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(d|w|m|y)?\s*$", re.IGNORECASE)
_DAYS_PER_UNIT = {"d": 1, "w": 7, "m": 30, "y": 365}


def parse_days(text: str, *, option: str) -> float:
    """A retention period in days: ``30``, ``30d``, ``2w``, ``9m`` (30-day months), ``1y`` (365 days).

    Raises:
        UserError: the text is not a non-negative number with an optional d/w/m/y unit.
    """
    m = _DURATION.match(text)
    if not m:
        raise UserError(f"{option}={text!r} is not a retention period: write e.g. 30d, 2w, 9m or 1y.")
    return float(m[1]) * _DAYS_PER_UNIT[(m[2] or "d").lower()]


@dataclass(frozen=True, kw_only=True)
class TierSize:
    """One tier's size: ``days`` of retention, ``data_gb``, ``storage_gb``, ``nodes`` (spare included)."""

    tier: Tier
    days: float
    data_gb: float
    storage_gb: float
    nodes_needed: int
    spare: int

    @property
    def nodes(self) -> int:
        """Data nodes of the tier, spare included."""
        return self.nodes_needed + self.spare


@dataclass(frozen=True, kw_only=True)
class SizingPlan:
    """The sized cluster: the inputs and one :class:`TierSize` per tier with retention."""

    raw_gb_per_day: float
    replicas: int
    memory_per_node_gb: float
    tiers: tuple[TierSize, ...]

    @property
    def indexing_bytes_per_s(self) -> float:
        """The average indexing rate the daily volume needs, in bytes/s (raw data, 1 GB = 10^9 bytes)."""
        return self.raw_gb_per_day * 1e9 / SECONDS_PER_DAY

    @property
    def data_nodes(self) -> int:
        """Data nodes over all tiers."""
        return sum(t.nodes for t in self.tiers)


def size_cluster(
    *,
    raw_gb_per_day: float,
    retention_days: dict[Tier, float],
    replicas: int = 1,
    memory_per_node_gb: float = 64.0,
    spare_above: int = DEFAULT_SPARE_ABOVE,
) -> SizingPlan:
    """Size the data tiers with the formulas of the module docstring.

    Args:
        raw_gb_per_day: raw data ingested per day, GB.
        retention_days: days each tier keeps the data (tiers with 0 days are left out).
        replicas: replicas per primary shard.
        memory_per_node_gb: memory (RAM) of one data node, GB.
        spare_above: a tier needing more than this many nodes gets one spare node.

    Raises:
        UserError: a negative or zero volume, memory or retention, or negative replicas.
    """
    if raw_gb_per_day <= 0 or memory_per_node_gb <= 0:
        raise UserError(
            f"--raw-gb-per-day ({raw_gb_per_day:g}) and --memory-per-node ({memory_per_node_gb:g}) "
            "must be positive."
        )
    if replicas < 0:
        raise UserError(f"--replicas must not be negative (got {replicas}).")
    if any(days < 0 for days in retention_days.values()) or not any(retention_days.values()):
        raise UserError(
            "Give a positive retention for at least one tier (--hot, --warm, --cold), e.g. --hot=30d."
        )
    tiers = []
    for tier in Tier:
        days = retention_days.get(tier, 0.0)
        if not days:
            continue
        data = raw_gb_per_day * days * (replicas + 1)
        storage = data * (1 + WATERMARK + MARGIN)
        # round() first: 675 / 8 / 30 must not become 2.8125000001 -> 3 by float noise alone.
        needed = math.ceil(round(storage / memory_per_node_gb / MEMORY_DATA_RATIO[tier], 9))
        tiers.append(
            TierSize(
                tier=tier,
                days=days,
                data_gb=data,
                storage_gb=storage,
                nodes_needed=needed,
                spare=1 if needed > spare_above else 0,
            )
        )
    return SizingPlan(
        raw_gb_per_day=raw_gb_per_day,
        replicas=replicas,
        memory_per_node_gb=memory_per_node_gb,
        tiers=tuple(tiers),
    )


def render_plan(plan: SizingPlan) -> str:
    """The plan as a text table (one row per tier) with the inputs and the indexing rate."""
    lines = [
        f"Raw data: {plan.raw_gb_per_day:g} GB/day ({plan.indexing_bytes_per_s / 1e6:,.2f} MB/s on average), "
        f"{plan.replicas} replica(s), {plan.memory_per_node_gb:g} GB memory per data node",
        "",
        f"{'tier':<5} {'days':>6} {'ratio':>6} {'data GB':>10} {'storage GB':>11} {'nodes':>6} {'spare':>6}",
    ]
    for t in plan.tiers:
        lines.append(
            f"{t.tier.value:<5} {t.days:>6g} {'1:' + str(MEMORY_DATA_RATIO[t.tier]):>6} {t.data_gb:>10,.0f} "
            f"{t.storage_gb:>11,.0f} {t.nodes:>6} {t.spare:>6}"
        )
    lines.append(f"Data nodes in all: {plan.data_nodes}")
    return "\n".join(lines)
