"""Verification of find-max's rate on synthetic measurement functions (no cluster)."""

import pytest

from esbench.planning.confirm import confirm_max_rate


class Node:
    """A synthetic node: race ``i`` (0-based, over all races) meets the SLO when ``rate <= capacity[i]``.

    ``capacity`` repeats cyclically, so a list models a capacity that moves between races.
    """

    def __init__(self, *capacity: float) -> None:
        self.capacity = capacity
        self.races: list[tuple[float, int, bool]] = []

    def __call__(self, rate: float, repeat: int) -> bool:
        ok = rate <= self.capacity[len(self.races) % len(self.capacity)]
        self.races.append((rate, repeat, ok))
        return ok


def test_a_steady_node_verifies_the_rate_and_refutes_twenty_percent_more() -> None:
    node = Node(100.0)
    out = confirm_max_rate(node, rate=90, repeats=3, min_rate=1, max_rate=1000)
    assert out.rate == 90 and out.refuted == 108
    assert node.races == [(90, 0, True), (90, 1, True), (90, 2, True), (108, 0, False)]
    assert [(c.rate, c.sustained) for c in out.checks] == [(90, True), (108, False)]


def test_a_miss_in_any_repeat_steps_down_until_all_repeats_meet_the_slo() -> None:
    # Capacity moves: 100, 100, 85 (the third race at 95 misses), then steady at 100 again.
    node = Node(100.0, 100.0, 85.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0)
    out = confirm_max_rate(node, rate=95, repeats=3, min_rate=1, max_rate=1000, step=0.05)
    assert out.check_at(95) is not None and out.check_at(95).passed == (True, True, False)
    # 95 * 0.95 = 90.25: three passes, then 90.25 * 1.2 = 108.3 fails.
    assert out.rate == 90.25 and out.refuted == 108.3
    assert all(c.sustained for c in out.checks if c.rate == out.rate)


def test_failures_in_a_row_step_down_faster_and_the_climb_brings_the_rate_back_up() -> None:
    node = Node(70.0)
    out = confirm_max_rate(node, rate=100, repeats=2, min_rate=1, max_rate=1000, step=0.1)
    # Steps of 10 %, 20 %, 20 % (each failure in a row doubles it, up to the 20 % margin), then up by
    # 20 % while it holds.
    assert [c.rate for c in out.checks] == [100, 90, 72, 57.6, 69.12, 82.94]
    assert out.rate == 69.12 and out.refuted == 82.94
    # A failing rate costs one race; a sustained one all its repeats.
    assert [len(c.passed) for c in out.checks] == [1, 1, 1, 2, 2, 1]


def test_the_step_stops_growing_at_the_margin() -> None:
    node = Node(1.0)
    out = confirm_max_rate(node, rate=100, repeats=1, min_rate=0.5, max_rate=1000, step=0.15, margin=0.25)
    # 15 %, then 25 % (30 % capped at the margin), then 25 % again.
    assert [c.rate for c in out.checks][:4] == [100, 85, 63.75, 47.81]


def test_a_higher_rate_that_also_holds_becomes_the_answer() -> None:
    # The search ended low (noise in its single races): verification climbs by the margin.
    node = Node(150.0)
    out = confirm_max_rate(node, rate=80, repeats=2, min_rate=1, max_rate=1000)
    assert [c.rate for c in out.checks] == [80, 96, 115.2, 138.2, 165.8]
    assert out.rate == 138.2 and out.refuted == 165.8
    # The climb reuses each sustained check instead of racing the same rate again.
    assert sum(1 for rate, _, _ in node.races if rate == 96) == 2


def test_budget_max_rate_and_nothing_sustained() -> None:
    capped = confirm_max_rate(Node(1e9), rate=90, repeats=2, min_rate=1, max_rate=100)
    assert capped.rate == 90 and capped.refuted is None
    nothing = confirm_max_rate(Node(0.5), rate=10, repeats=2, min_rate=5, max_rate=100, step=0.5)
    # Steps of 50 % capped at the 20 % margin, down to the last rate above min_rate.
    assert nothing.rate is None and [c.rate for c in nothing.checks] == [10, 8, 6.4, 5.12]
    node = Node(100.0)
    short = confirm_max_rate(node, rate=90, repeats=3, min_rate=1, max_rate=1000, max_measurements=4)
    assert len(node.races) == 4 and short.rate == 90 and short.refuted == 108
    broke = confirm_max_rate(Node(100.0), rate=90, repeats=3, min_rate=1, max_rate=1000, max_measurements=2)
    assert broke.rate is None


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rate": 0, "repeats": 1},
        {"rate": 10, "repeats": 0},
        {"rate": 10, "repeats": 1, "step": 1.0},
        {"rate": 10, "repeats": 1, "margin": 0},
        {"rate": 2000, "repeats": 1},
    ],
)
def test_bad_arguments(kwargs) -> None:
    with pytest.raises(ValueError):
        confirm_max_rate(Node(1.0), min_rate=0.1, max_rate=1000, **kwargs)
