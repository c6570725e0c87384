"""Planning answers that would mislead: test-mode races (labelled, refused by optimize and find-max
unless --allow-test-mode) and a one-point sweep (no knee)."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from esbench.cli import main
from esbench.planning.knee import CurvePoint, find_knee
from esbench.planning.measure import PointResult
from esbench.planning.procedures import OptimizeResult
from esbench.planning.table import TEST_MODE_LABEL

TRACK = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "planning-search"
# Nothing listens there: the refusal must come before any connection.
HOSTS = "--target-hosts=127.0.0.1:9"


@pytest.mark.parametrize(
    "command",
    [
        ["optimize", "bulk-size", "--task=index-append"],
        ["optimize", "clients", "--task=infix-search"],
        ["find-max", "--task=infix-search", "--slo=p50 latency < 100ms"],
    ],
)
def test_optimize_and_find_max_refuse_test_mode(command: list[str]) -> None:
    result = CliRunner().invoke(main, [*command, f"--track-path={TRACK}", HOSTS, "--test-mode"])
    assert result.exit_code == 64, result.output
    assert "with --test-mode would answer from test-mode races" in result.output
    assert "add --allow-test-mode" in result.output and "Traceback" not in result.output


def point(label: str, throughput: float) -> PointResult:
    return PointResult(
        label=label, race_id=f"{label:0>8}", status="completed", reused=False, samples=8,
        throughput=throughput, throughput_unit="docs/s",
    )  # fmt: skip


def test_a_test_mode_optimum_is_labelled_as_not_a_measurement() -> None:
    points = (point("100", 900.0), point("200", 1200.0))
    measured = OptimizeResult(param="bulk-size", points=points, best_index=1).render()
    assert "\nOptimal bulk-size: 200 (1,200 docs/s)" in measured and TEST_MODE_LABEL not in measured
    smoke = OptimizeResult(param="bulk-size", points=points, best_index=1, test_mode=True).render()
    assert f"{TEST_MODE_LABEL} Optimal bulk-size: 200" in smoke
    assert "they measure nothing" in smoke


def test_one_point_has_no_knee() -> None:
    knee = find_knee([CurvePoint(throughput=100.0, latency_ms=5.0)])
    assert knee.index is None
    assert knee.reason.startswith("one point cannot show a knee")
    assert "kept gaining" not in knee.reason
    # Two points, one without a measurement: still nothing to bend.
    half = find_knee(
        [CurvePoint(throughput=100.0, latency_ms=5.0), CurvePoint(throughput=None, latency_ms=None)]
    )
    assert half.index is None and "1 measured point(s) of 2" in half.reason
