"""find-max's two stages on a synthetic node: search races and verification races stay apart."""

from esbench.planning.findmax import run_find_max
from esbench.planning.measure import PointResult
from esbench.planning.slo import parse_slo
from esbench.planning.sweep import Dimension
from esbench.records import STATUS_COMPLETED
from esbench.settings import RaceSettings


class SyntheticRunner:
    """Stands in for :class:`~esbench.planning.sweep.PointRunner`: a race at a rate gets p99 latency
    20 ms at or below the capacity of that race, 500 ms above it. ``capacity`` cycles per race."""

    task = "search"
    dimension = Dimension.TARGET_THROUGHPUT

    def __init__(self, *capacity: float) -> None:
        self.capacity = capacity
        self.calls: list[tuple[str, int, str, float | None]] = []

    def measure(self, label: str, settings: RaceSettings, *, repeat: int = 0, phase: str = "") -> PointResult:
        rate = settings.task_overrides[self.task].target_throughput
        assert rate is not None
        cap = self.capacity[len(self.calls) % len(self.capacity)]
        self.calls.append((label, repeat, phase, rate))
        latency = 20.0 if rate <= cap else 500.0
        return PointResult(
            label=label,
            race_id=f"race-{len(self.calls)}",
            status=STATUS_COMPLETED,
            reused=False,
            samples=100,
            throughput=min(rate, cap),
            throughput_unit="ops/s",
            latency_ms={"50": latency / 2, "90": latency, "99": latency},
            service_time_ms={"50": 5.0, "90": 6.0, "99": 7.0},
            error_rate=0.0,
        )


def test_search_then_verification_with_its_own_races_and_a_refuted_higher_rate() -> None:
    runner = SyntheticRunner(73.0)
    slo = parse_slo("p99 latency < 100ms, error rate < 1%")
    out = run_find_max(runner, RaceSettings(), slo, start=10, max_rate=1000, min_rate=1, repeats=3)
    assert out.search.lower is not None and out.search.lower <= 73 < out.search.upper
    assert out.rate == out.search.lower and out.confirmation.refuted == float(f"{out.rate * 1.2:.4g}")
    phases = [phase for _, _, phase, _ in runner.calls]
    # Every search race comes before every verification race, each tagged with its stage.
    assert phases == ["search"] * len(out.search_points) + ["verify"] * len(out.verify_points)
    at_rate = [c for c in runner.calls if c[2] == "verify" and c[3] == out.rate]
    assert [repeat for _, repeat, _, _ in at_rate] == [0, 1, 2]
    assert out.at_rate is not None and out.at_rate.met == 3 and out.at_rate.throughput.n == 3
    assert out.at_refuted is not None and out.at_refuted.met == 0
    text = out.render()
    assert f"Highest sustainable rate: {out.rate:g} ops/s" in text
    assert "met the SLO in 3 of 3 verification races" in text
    assert f"{out.confirmation.refuted:g} ops/s (+20%) is not sustainable:" in text


def test_a_verification_miss_steps_below_the_search_result() -> None:
    # Steady 100 ops/s for the search; the third verification race sees only 90.
    runner = SyntheticRunner(100.0)
    slo = parse_slo("p99 latency < 100ms")
    probe = run_find_max(runner, RaceSettings(), slo, start=50, max_rate=1000, min_rate=1, repeats=3)
    searched = len(probe.search_points)
    capacity = [100.0] * (searched + 2) + [90.0] + [100.0] * 20
    runner = SyntheticRunner(*capacity)
    out = run_find_max(runner, RaceSettings(), slo, start=50, max_rate=1000, min_rate=1, repeats=3)
    assert out.search.lower == probe.search.lower
    first = out.confirmation.checks[0]
    assert first.rate == out.search.lower and first.passed == (True, True, False)
    assert out.rate is not None and out.rate < out.search.lower
    assert "met the SLO in 3 of 3" in out.render()


def test_no_verified_rate_is_said() -> None:
    runner = SyntheticRunner(0.01)
    out = run_find_max(
        runner, RaceSettings(), parse_slo("p99 latency < 100ms"), start=4, max_rate=8, min_rate=1
    )
    assert out.rate is None and out.search.lower is None
    assert "No rate met the SLO in the search" in out.render()
