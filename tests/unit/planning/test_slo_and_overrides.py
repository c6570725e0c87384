from pathlib import Path

import pytest

from esbench.exceptions import ConfigError, UserError
from esbench.planning.slo import SloMetric, parse_slo
from esbench.planning.sweep import parse_values
from esbench.track import load_track
from esbench.track.overrides import TaskOverride, apply_task_overrides

TRACK = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "planning-search"


def test_slo_with_percentiles_units_and_an_error_rate() -> None:
    slo = parse_slo("p99 latency < 100ms, p90.5 service time <= 0.2s and error rate < 1%")
    first, second = slo.percentiles
    assert (first.metric, first.percentile, first.limit_ms, first.inclusive) == (
        SloMetric.LATENCY,
        99,
        100,
        False,
    )
    assert (second.metric, second.percentile, second.limit_ms, second.inclusive) == (
        SloMetric.SERVICE_TIME,
        90.5,
        200,
        True,
    )
    assert slo.error_rate is not None and slo.error_rate.limit == pytest.approx(0.01)
    assert first.holds(99.9) and not first.holds(100.0) and second.holds(200.0) and not first.holds(None)
    assert slo.describe() == "p99 latency < 100 ms, p90.5 service time <= 200 ms, error rate < 1 %"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("p99 latency > 100ms", "cannot parse 'p99 latency > 100ms'"),
        ("latency < 100ms", "cannot parse"),
        ("p0 latency < 1ms", "must be in (0, 100]"),
        ("error rate < 1%", "limits only the error rate"),
        ("  ", "empty"),
    ],
)
def test_slo_that_does_not_parse_gets_one_paragraph(text: str, fragment: str) -> None:
    with pytest.raises(UserError) as e:
        parse_slo(text)
    assert fragment in str(e.value)
    assert "\n" not in str(e.value)


def test_sweep_lists() -> None:
    assert parse_values("1, 5,10", option="--clients", convert=int) == [1, 5, 10]
    with pytest.raises(UserError, match="--clients is empty"):
        parse_values(" , ", option="--clients", convert=int)
    with pytest.raises(UserError, match="'x' is not a valid value"):
        parse_values("1,x", option="--clients", convert=int)
    with pytest.raises(UserError, match="more than once"):
        parse_values("1,2,1", option="--clients", convert=int)


def test_overrides_rewrite_one_task_of_the_loaded_track() -> None:
    track = load_track(path=TRACK)
    changed = apply_task_overrides(
        track,
        None,
        {
            "infix-search": TaskOverride(
                clients=7, target_throughput=12.5, time_period=2, warmup_time_period=0
            )
        },
    )
    task = next(t for t in changed.default_challenge.tasks() if t.name == "infix-search")
    assert task.clients == 7 and task.target_throughput is not None and task.target_throughput.value == 12.5
    assert (task.time_period, task.warmup_time_period) == (2, 0)
    bulk = apply_task_overrides(track, "bulk", {"bulk-load": TaskOverride(bulk_size=250)})
    load = next(t for t in bulk.find_challenge("bulk").tasks() if t.name == "bulk-load")
    assert load.operation.params["bulk-size"] == 250
    original = next(t for t in track.default_challenge.tasks() if t.name == "infix-search")
    assert original.clients == 2  # the loaded track is not modified


def test_an_override_of_a_task_not_in_the_challenge_names_the_tasks() -> None:
    track = load_track(path=TRACK)
    with pytest.raises(ConfigError) as e:
        apply_task_overrides(track, None, {"bulk-load": TaskOverride(clients=2)})
    assert "not in challenge 'search'" in str(e.value) and "infix-search" in str(e.value)
    with pytest.raises(ConfigError, match="clients must be at least 1"):
        apply_task_overrides(track, None, {"infix-search": TaskOverride(clients=0)})
