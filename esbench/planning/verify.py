"""``esbench size --verify``: does the cluster index the sized daily volume fast enough?

The daily volume needs, on average, ``raw GB/day × 10^9 / 86 400`` bytes/s. With the track corpus's
mean document size (its ``uncompressed-bytes`` / ``document-count``) that is a rate in docs/s. One
race runs the bulk task throttled to that rate (``target-throughput`` in docs/s); the cluster keeps
up when the achieved mean throughput reaches ``tolerance`` (95 %) of it without errors. The rate is
the day's average: peaks need headroom above it (seed 004 verifies the daily volume, not its peaks).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from esbench.exceptions import ConfigError
from esbench.planning.measure import PointResult
from esbench.planning.sizing import SizingPlan
from esbench.planning.sweep import PointRunner
from esbench.settings import RaceSettings
from esbench.track import load_track
from esbench.track.overrides import TaskOverride

#: Share of the required rate the achieved throughput must reach.
DEFAULT_TOLERANCE = 0.95


@dataclass(frozen=True, kw_only=True)
class Verification:
    """The verifying race: required rate (docs/s), mean document size (bytes), the point, the verdict."""

    required_docs_per_s: float
    mean_doc_bytes: float
    point: PointResult
    keeps_up: bool
    tolerance: float

    def render(self) -> str:
        """One paragraph: the rate asked for, the rate achieved and the verdict."""
        p = self.point
        achieved = "nothing" if p.throughput is None else f"{p.throughput:,.0f} {p.throughput_unit}"
        errors = "-" if p.error_rate is None else f"{p.error_rate:.2%}"
        verdict = "KEEPS UP" if self.keeps_up else "DOES NOT KEEP UP"
        return (
            f"Verification race {p.race_id}: required {self.required_docs_per_s:,.0f} docs/s "
            f"(mean document {self.mean_doc_bytes:,.0f} bytes), achieved {achieved}, error rate {errors}: "
            f"{verdict} (needs {self.tolerance:.0%} of the required rate and no errors)."
        )


def mean_document_bytes(settings: RaceSettings) -> float:
    """The mean uncompressed document size (bytes) of the track's corpora.

    Raises:
        ConfigError: the track has no corpus, or its documents do not give ``uncompressed-bytes``.
    """
    track = load_track(
        name=None if settings.track_path else settings.track_name,
        path=settings.track_path,
        params=dict(settings.track_params),
        test_mode=settings.test_mode,
    )
    docs = [d for c in track.corpora for d in c.documents]
    if not docs or any(d.uncompressed_bytes is None or not d.document_count for d in docs):
        raise ConfigError(
            f"Track '{track.name}' does not give 'uncompressed-bytes' and 'document-count' for every corpus "
            "file, so the daily volume cannot be turned into docs/s: add them to the track's corpora."
        )
    return sum(d.uncompressed_bytes or 0 for d in docs) / sum(d.document_count for d in docs)


def verify_plan(
    plan: SizingPlan, runner: PointRunner, base: RaceSettings, *, tolerance: float = DEFAULT_TOLERANCE
) -> Verification:
    """Race ``runner.task`` at the plan's required indexing rate and judge it (see module docstring).

    Raises:
        ConfigError: no document sizes in the track. EsbenchError: the race cannot start.
    """
    doc_bytes = mean_document_bytes(base)
    rate = plan.indexing_bytes_per_s / doc_bytes
    override = base.task_overrides.get(runner.task, TaskOverride())
    settings = replace(
        base,
        task_overrides={
            **base.task_overrides,
            runner.task: replace(override, target_throughput=rate, target_throughput_unit="docs/s"),
        },
    )
    point = runner.measure(f"{rate:.0f} docs/s", settings)
    keeps_up = (
        point.completed
        and point.throughput is not None
        and point.throughput >= tolerance * rate
        and not point.error_rate
    )
    return Verification(
        required_docs_per_s=rate,
        mean_doc_bytes=doc_bytes,
        point=point,
        keeps_up=keeps_up,
        tolerance=tolerance,
    )
