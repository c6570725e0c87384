from __future__ import annotations

import math
import statistics

import pytest
from driver_helpers import op, task

from esbench.driver.worker.scheduler import (
    DeterministicScheduler,
    FunctionScheduler,
    LegacyScheduler,
    PoissonScheduler,
    UnitAwareScheduler,
    Unthrottled,
    builtin_schedulers,
    client_seed,
    effective_target_throughput,
    run_unthrottled,
    scheduler_for,
)
from esbench.exceptions import ConfigError
from esbench.track.model import Throughput


def _times(scheduler, n: int) -> list[float]:
    out, current = [], 0.0
    for _ in range(n):
        current = scheduler.next(current)
        out.append(current)
    return out


def test_deterministic_spacing_is_one_over_rate():
    times = _times(DeterministicScheduler(None, 4.0), 8)
    assert times == pytest.approx([0.25 * (i + 1) for i in range(8)])


@pytest.mark.parametrize("rate", [0, -1.0])
def test_deterministic_rejects_non_positive_rate(rate):
    with pytest.raises(ValueError, match=f"target throughput must be positive, got {rate}"):
        DeterministicScheduler(None, rate)


def test_poisson_mean_gap_and_seeding():
    import random

    a = PoissonScheduler(None, 50.0, rng=random.Random(7))
    b = PoissonScheduler(None, 50.0, rng=random.Random(7))
    ta, tb = _times(a, 20000), _times(b, 20000)
    assert ta == tb
    gaps = [y - x for x, y in zip([0.0, *ta], ta, strict=False)]
    assert statistics.fmean(gaps) == pytest.approx(1 / 50, rel=0.03)
    # exponential: the standard deviation equals the mean
    assert statistics.pstdev(gaps) == pytest.approx(1 / 50, rel=0.05)
    assert all(g > 0 for g in gaps)


def test_client_seed_is_stable_and_distinct():
    assert client_seed("t", 0) == client_seed("t", 0)
    assert client_seed("t", 0) != client_seed("t", 1)
    assert client_seed("t", 0) != client_seed("u", 0)


def test_unthrottled_without_target():
    t = task(op("search"))
    assert run_unthrottled(t)
    assert isinstance(scheduler_for(t, builtin_schedulers()), Unthrottled)
    assert Unthrottled().next(12.0) == 0.0


def test_target_interval_is_an_overall_rate():
    t = task(op("search"), target_interval=5.0, clients=2)
    target = effective_target_throughput(t)
    assert target == Throughput(value=0.2, unit="ops/s")
    s = scheduler_for(t, builtin_schedulers())
    s.after_request(0.0, 1, "ops", None)
    # 0.2 ops/s over 2 clients -> each client every 10 s
    assert s.next(0.0) == pytest.approx(10.0)


def test_unit_aware_starts_unthrottled_then_divides_by_clients():
    t = task(op("search"), clients=4, target_throughput=Throughput(value=100.0))
    s = scheduler_for(t, builtin_schedulers())
    assert isinstance(s, UnitAwareScheduler)
    assert s.next(0.0) == 0.0  # first request at once
    s.after_request(0.0, 1, "ops", None)
    assert _times(s, 3) == pytest.approx([0.04, 0.08, 0.12])


def test_unit_aware_docs_per_second_divides_by_bulk_size():
    t = task(op("bulk"), clients=2, target_throughput=Throughput(value=1000.0, unit="docs/s"))
    s = scheduler_for(t, builtin_schedulers())
    s.after_request(0.0, 100, "docs", None)
    # 1000 docs/s / 2 clients / 100 docs per request = 5 requests/s per client
    assert s.next(1.0) == pytest.approx(1.2)
    # a smaller last bulk speeds the requests up so docs/s stays on target
    s.after_request(0.0, 50, "docs", None)
    assert s.next(1.0) == pytest.approx(1.1)
    # failed requests (weight 0) do not change the rate
    s.after_request(0.0, 0, "docs", None)
    assert s.next(1.0) == pytest.approx(1.1)


def test_ops_target_with_docs_runner_throttles_requests():
    t = task(op("bulk"), clients=1, target_throughput=Throughput(value=10.0))
    s = scheduler_for(t, builtin_schedulers())
    s.after_request(0.0, 5000, "docs", None)
    assert s.next(0.0) == pytest.approx(0.1)


def test_unit_mismatch_is_a_config_error():
    t = task(op("search"), target_throughput=Throughput(value=10.0, unit="docs/s"))
    s = scheduler_for(t, builtin_schedulers())
    with pytest.raises(ConfigError, match="docs/s"):
        s.after_request(0.0, 1, "ops", None)


def test_poisson_builtin_is_seeded_per_client():
    t = task(op("search"), schedule="poisson", target_throughput=Throughput(value=10.0))
    a0 = scheduler_for(t, builtin_schedulers(), client_index=0)
    a0b = scheduler_for(t, builtin_schedulers(), client_index=0)
    a1 = scheduler_for(t, builtin_schedulers(), client_index=1)
    for s in (a0, a0b, a1):
        s.after_request(0.0, 1, "ops", None)
    assert _times(a0, 5) == _times(a0b, 5)
    assert _times(a0, 5) != _times(a1, 5)


def test_unknown_schedule_lists_known_ones():
    t = task(op("search"), schedule="nope", target_throughput=Throughput(value=1.0))
    with pytest.raises(ConfigError, match="deterministic, poisson"):
        scheduler_for(t, builtin_schedulers())


def test_simple_custom_scheduler_needs_a_target():
    class Simple:
        def __init__(self, task, target_throughput):
            self.rate = target_throughput

        def next(self, current):
            return current + 1 / self.rate

    t = task(op("search"), schedule="simple")
    with pytest.raises(ConfigError, match="needs a target-throughput"):
        scheduler_for(t, {"simple": Simple})
    t2 = task(op("search"), schedule="simple", target_throughput=Throughput(value=2.0))
    s = scheduler_for(t2, {"simple": Simple})
    s.after_request(0.0, 1, "ops", None)
    assert s.next(0.0) == 0.5


def test_regular_custom_scheduler_is_used_as_is():
    class Regular:
        def __init__(self, task):
            self.task = task

        def before_request(self, now):
            pass

        def after_request(self, now, weight, unit, meta):
            pass

        def next(self, current):
            return current + 3

    t = task(op("search"), schedule="regular")
    s = scheduler_for(t, {"regular": Regular})
    assert isinstance(s, Regular) and s.task is t
    assert not run_unthrottled(t)  # a custom schedule runs even without a target


def test_legacy_scheduler_gets_task_params():
    class Legacy:
        def __init__(self, params):
            self.interval = params["my-interval"]

        def next(self, current):
            return current + self.interval

    t = task(op("search"), schedule="legacy", params={"my-interval": 0.5})
    s = scheduler_for(t, {"legacy": Legacy})
    assert isinstance(s, LegacyScheduler)
    assert _times(s, 2) == [0.5, 1.0]


def test_function_scheduler():
    def every_two(current):
        return current + 2

    t = task(op("search"), schedule="fn")
    s = scheduler_for(t, {"fn": every_two})
    assert isinstance(s, FunctionScheduler)
    assert _times(s, 3) == [2, 4, 6]


def test_deterministic_grid_has_no_drift():
    s = DeterministicScheduler(None, 3.0)
    times = _times(s, 3000)
    assert times[-1] == pytest.approx(1000.0, abs=1e-9)
    assert math.isclose(times[1499], 500.0, abs_tol=1e-9)


def test_ops_target_throttles_from_the_start_even_when_requests_fail():
    t = task(op("search"), clients=2, target_throughput=Throughput(value=20.0))
    s = scheduler_for(t, builtin_schedulers())
    assert s.throttling
    assert s.next(0.0) == 0.0  # first request at once
    s.after_request(0.0, 0, "ops", None)  # a failed request: no weight
    assert _times(s, 3) == pytest.approx([0.1, 0.2, 0.3])


def test_unit_target_is_unthrottled_until_a_response_has_weight():
    t = task(op("bulk"), target_throughput=Throughput(value=1000.0, unit="docs/s"))
    s = scheduler_for(t, builtin_schedulers())
    assert not s.throttling
    s.after_request(0.0, 0, "docs", None)
    assert not s.throttling and s.next(0.0) == 0.0
    s.after_request(0.0, 100, "docs", None)
    assert s.throttling and s.next(0.0) == pytest.approx(0.1)


def test_random_schedules_are_seeded_per_race():
    t = task(op("search"), schedule="poisson", target_throughput=Throughput(value=10.0))

    def times(race_seed: int) -> list[float]:
        s = scheduler_for(t, builtin_schedulers(), client_index=0, race_seed=race_seed)
        s.after_request(0.0, 1, "ops", None)
        return _times(s, 5)

    assert times(7) == times(7)
    assert times(7) != times(8)
    assert client_seed("t", 0, 7) != client_seed("t", 0, 8)
