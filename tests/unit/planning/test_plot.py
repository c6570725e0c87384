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


def test_the_table_shows_received_and_sent_kb_per_second_from_the_task_bytes() -> None:
    import re

    from esbench.planning.measure import point_from_race
    from esbench.planning.table import render_points
    from esbench.records import RaceResult, TaskResult

    def race(race_id: str, received: int, sent: int) -> RaceResult:
        task = TaskResult(
            task="search",
            operation="search",
            operation_type="search",
            sample_count=100,
            duration_s=2.0,
            bytes_received=received,
            bytes_sent=sent,
        )
        return RaceResult(
            race_id=race_id,
            timestamp="2026-11-23T00:00:00Z",
            track="t",
            challenge="c",
            status="completed",
            tasks=(task,),
        )

    new = point_from_race(
        race("new", 2 * 1024 * 300, 2 * 1024 * 50), "search", label="1", reused=False, driver_cpu=None
    )
    old = point_from_race(race("old", 0, 0), "search", label="2", reused=True, driver_cpu=None)
    assert (new.received_kb_s, new.sent_kb_s) == (300.0, 50.0)
    assert (old.received_kb_s, old.sent_kb_s) == (None, None)  # stored before bytes were counted
    text = render_points([new, old], param="clients")
    header, _, first, second = (re.split(r"\s{2,}", line.strip()) for line in text.splitlines()[:4])
    # Both rows show "-" for the driver's CPU (not measured here): the table says what "-" means.
    assert text.splitlines()[5].startswith("(driver CPU % '-': fewer than two CPU samples")
    recv, sent = header.index("recv KB/s"), header.index("sent KB/s")
    assert (first[recv], first[sent]) == ("300.0", "50.0")
    assert (second[recv], second[sent]) == ("-", "-")
