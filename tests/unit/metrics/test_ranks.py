"""The one percentile walk behind the task-wide and the per-second percentiles."""

from esbench.metrics.ranks import rank_values


def test_two_samples_50th_is_their_mean_and_ends_are_exact() -> None:
    values = rank_values([(3, 1), (7, 1)], 2, [0.0, 50.0, 100.0], lambda i: i * 10)
    assert values == [30.0, 50.0, 70.0]


def test_empty_buckets_are_skipped_and_counts_spread_ranks() -> None:
    # 4 samples: 1 at index 0, none at 1, 3 at index 2 -> sorted values 0, 20, 20, 20
    values = rank_values([(0, 1), (1, 0), (2, 3)], 4, [25.0, 90.0], lambda i: i * 10.0)
    # rank 0.75 between 0 and 20; rank 2.7 between 20 and 20
    assert values == [15.0, 20.0]


def test_walk_stops_after_the_highest_wanted_rank() -> None:
    def buckets():
        yield (1, 5)
        raise AssertionError("read past the last wanted rank")

    assert rank_values(buckets(), 5, [50.0], float) == [1.0]
