from esbench.planning.knee import Knee
from esbench.planning.measure import PointResult
from esbench.planning.plot import render_sweep_html, sweep_figure
from esbench.planning.procedures import SweepOutcome


def point(label: str, throughput: float, p50: float) -> PointResult:
    return PointResult(
        label=label,
        race_id=f"race-{label}",
        status="completed",
        reused=False,
        samples=100,
        throughput=throughput,
        throughput_unit="ops/s",
        latency_ms={"50": p50, "90": p50 * 2, "99": p50 * 3},
        service_time_ms={"50": p50},
        error_rate=0.0,
    )


def test_sweep_plot_has_throughput_and_latency_against_the_swept_value_and_marks_the_knee() -> None:
    outcome = SweepOutcome(
        param="clients",
        points=(point("1", 100, 10), point("2", 190, 11), point("4", 195, 20)),
        knee=Knee(index=1, reason="flat"),
    )
    fig = sweep_figure(outcome)
    names = [t.name for t in fig.data]
    assert names == ["throughput (ops/s)", "p50 latency (ms)", "p90 latency (ms)", "p99 latency (ms)"]
    assert list(fig.data[0].x) == ["1", "2", "4"] and list(fig.data[0].y) == [100, 190, 195]
    assert list(fig.data[3].y) == [30, 33, 60]
    assert fig.layout.annotations[0].text == "knee" and fig.layout.annotations[0].x == "2"
    page = render_sweep_html(outcome)
    assert page.startswith("<!DOCTYPE html>") and "Knee at clients=2" in page and "plotly" in page
