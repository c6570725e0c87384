import pytest

from esbench.exceptions import UserError
from esbench.planning.sizing import Tier, parse_days, size_cluster


def test_seed_004_first_example_one_gb_a_day_for_nine_months() -> None:
    plan = size_cluster(
        raw_gb_per_day=1,
        retention_days={Tier.HOT: parse_days("9m", option="--hot")},
        replicas=1,
        memory_per_node_gb=8,
    )
    (hot,) = plan.tiers
    assert hot.data_gb == pytest.approx(540)
    assert hot.storage_gb == pytest.approx(675)
    assert (hot.nodes_needed, hot.spare, hot.nodes) == (3, 0, 3)


def test_seed_004_second_example_hot_and_warm_tiers() -> None:
    plan = size_cluster(
        raw_gb_per_day=100,
        retention_days={
            Tier.HOT: parse_days("30d", option="--hot"),
            Tier.WARM: parse_days("12m", option="--warm"),
        },
        replicas=1,
        memory_per_node_gb=64,
    )
    hot, warm = plan.tiers
    assert (hot.tier, hot.nodes) == (Tier.HOT, 5)
    assert (warm.tier, warm.nodes) == (Tier.WARM, 10)
    assert plan.data_nodes == 15


def test_cold_tier_uses_its_ratio_and_bad_input_is_explained() -> None:
    plan = size_cluster(raw_gb_per_day=10, retention_days={Tier.COLD: 500}, replicas=0, memory_per_node_gb=10)
    assert plan.tiers[0].nodes_needed == 2  # 5000 * 1.25 / 10 / 500 = 1.25
    assert parse_days("2w", option="--hot") == 14 and parse_days("1y", option="--hot") == 365
    with pytest.raises(UserError, match="--warm"):
        parse_days("a year", option="--warm")
    with pytest.raises(UserError, match="retention"):
        size_cluster(raw_gb_per_day=1, retention_days={}, replicas=1)
