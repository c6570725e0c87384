from __future__ import annotations

import itertools

import pytest
from driver_helpers import op, task

from esbench.driver.coordinator.allocator import COMPLETED_BY_ANY, plan_schedule, plan_step, split_clients
from esbench.track.model import Parallel


@pytest.mark.parametrize(("clients", "workers"), list(itertools.product(range(0, 41), range(1, 9))))
def test_split_clients_exhaustive(clients, workers):
    ranges = split_clients(clients, workers)
    assert len(ranges) == min(clients, workers)
    ids = [c for r in ranges for c in r]
    assert ids == list(range(clients))  # contiguous, ordered, complete, no duplicates
    sizes = [len(r) for r in ranges]
    assert all(s >= 1 for s in sizes)
    assert max(sizes, default=0) - min(sizes, default=0) <= 1
    assert sizes == sorted(sizes, reverse=True)  # larger ranges first (Rally)


def test_split_clients_rejects_bad_input():
    with pytest.raises(ValueError):
        split_clients(3, 0)
    with pytest.raises(ValueError):
        split_clients(-1, 2)


def _allocations(step):
    return [(w.worker_id, c.client_id, a) for w in step.workers for c in w.clients for a in c.allocations]


@pytest.mark.parametrize(("clients", "workers"), list(itertools.product([1, 2, 3, 7, 16], [1, 2, 4])))
def test_single_task(clients, workers):
    t = task(op("search"), clients=clients)
    step = plan_step(t, index=3, max_workers=workers)
    assert step.index == 3 and step.name == "search" and step.clients == clients
    assert len(step.workers) == min(clients, workers)
    allocs = _allocations(step)
    assert [a.client_index_in_task for _, _, a in allocs] == list(range(clients))
    assert [a.global_client_index for _, _, a in allocs] == list(range(clients))
    assert all(a.total_clients == clients for _, _, a in allocs)
    assert [cid for _, cid, _ in allocs] == list(range(clients))
    assert step.completed_by is None


def test_parallel_numbers_clients_globally_task_after_task():
    a = task(op("search", "a"), clients=4)
    b = task(op("search", "b"), clients=2)
    step = plan_step(Parallel(tasks=(a, b)), index=0, max_workers=2)
    allocs = [alloc for _, _, alloc in _allocations(step)]
    assert [(x.task.name, x.client_index_in_task, x.global_client_index) for x in allocs] == [
        ("a", 0, 0),
        ("a", 1, 1),
        ("a", 2, 2),
        ("a", 3, 3),
        ("b", 0, 4),
        ("b", 1, 5),
    ]
    assert {x.total_clients for x in allocs} == {6}
    # 6 clients on 2 workers: 0-2 and 3-5
    assert [[c.client_id for c in w.clients] for w in step.workers] == [[0, 1, 2], [3, 4, 5]]
    assert [w.task_names() for w in step.workers] == [("a",), ("a", "b")]


def test_ramp_up_wait_is_period_times_index_over_total():
    a = task(op("search", "a"), clients=3, ramp_up_time_period=6.0, warmup_time_period=6.0, time_period=1.0)
    b = task(op("search", "b"), clients=1, ramp_up_time_period=6.0, warmup_time_period=6.0, time_period=1.0)
    step = plan_step(Parallel(tasks=(a, b)), index=0, max_workers=8)
    waits = [alloc.ramp_up_wait for _, _, alloc in _allocations(step)]
    assert waits == pytest.approx([0.0, 1.5, 3.0, 4.5])
    no_ramp = plan_step(task(op("search"), clients=3), index=0, max_workers=1)
    assert [alloc.ramp_up_wait for _, _, alloc in _allocations(no_ramp)] == [0.0, 0.0, 0.0]


def test_parallel_clients_cap_runs_allocations_one_after_the_other():
    tasks = tuple(task(op("search", n), clients=1) for n in "abcde")
    step = plan_step(Parallel(tasks=tasks, clients=2), index=0, max_workers=4)
    assert step.clients == 2
    by_client = {c.client_id: [a.task.name for a in c.allocations] for w in step.workers for c in w.clients}
    assert by_client == {0: ["a", "c", "e"], 1: ["b", "d"]}
    totals = {a.total_clients for _, _, a in _allocations(step)}
    assert totals == {2}


def test_parallel_clients_above_the_sum_uses_only_needed_clients():
    tasks = (task(op("search", "a"), clients=1), task(op("search", "b"), clients=2))
    step = plan_step(Parallel(tasks=tasks, clients=10), index=0, max_workers=4)
    assert step.clients == 3
    assert {a.total_clients for _, _, a in _allocations(step)} == {10}


def test_completed_by_named_and_any():
    a = task(op("search", "a"), completes_parent=True)
    b = task(op("search", "b"))
    assert plan_step(Parallel(tasks=(a, b)), index=0, max_workers=1).completed_by == "a"
    c = task(op("search", "c"), any_completes_parent=True)
    d = task(op("search", "d"), any_completes_parent=True)
    assert plan_step(Parallel(tasks=(c, d)), index=0, max_workers=1).completed_by == COMPLETED_BY_ANY


@pytest.mark.parametrize("workers", [1, 2, 3, 5, 64])
def test_every_allocation_appears_exactly_once(workers):
    tasks = tuple(task(op("search", f"t{i}"), clients=i + 1) for i in range(5))
    step = plan_step(Parallel(tasks=tasks), index=0, max_workers=workers)
    seen = sorted((a.task.name, a.client_index_in_task) for _, _, a in _allocations(step))
    assert seen == sorted((f"t{i}", c) for i in range(5) for c in range(i + 1))
    assert len(step.workers) == min(workers, 15)
    assert len({c.client_id for w in step.workers for c in w.clients}) == 15


def test_plan_schedule_indexes_steps():
    steps = plan_schedule([task(op("search", "x")), task(op("search", "y"), clients=2)], max_workers=2)
    assert [(s.index, s.name, s.clients) for s in steps] == [(0, "x", 1), (1, "y", 2)]
    assert steps[1].task("y").clients == 2
    with pytest.raises(KeyError):
        steps[1].task("x")


def test_invalid_inputs():
    with pytest.raises(ValueError):
        plan_step(task(op("search"), clients=0), index=0, max_workers=1)
    with pytest.raises(ValueError):
        plan_step(Parallel(tasks=()), index=0, max_workers=1)
    with pytest.raises(ValueError):
        plan_step(task(op("search")), index=0, max_workers=0)


def _worker_of(steps):
    """(step index, task name, client index in task) -> worker id."""
    return {
        (s.index, a.task.name, a.client_index_in_task): w.worker_id
        for s in steps
        for w in s.workers
        for c in w.clients
        for a in c.allocations
    }


def test_race_clients_are_split_once_so_a_client_keeps_its_worker():
    # Rally's calculate_worker_assignments splits the race's clients (the largest item: 4), not
    # each step's: the 2-client block puts both its clients in worker 0, as the 1-client task.
    record = task(op("search", "record"), clients=1)
    wide = task(op("search", "wide"), clients=4)
    left, right = task(op("search", "left"), clients=1), task(op("search", "right"), clients=1)
    steps = plan_schedule([record, wide, Parallel(tasks=(left, right))], max_workers=2)
    worker = _worker_of(steps)
    assert worker[(0, "record", 0)] == 0
    assert [worker[(1, "wide", i)] for i in range(4)] == [0, 0, 1, 1]
    assert worker[(2, "left", 0)] == worker[(2, "right", 0)] == 0
    assert [len(s.workers) for s in steps] == [1, 2, 1]


def test_block_clients_below_the_race_clients_do_not_cap_the_block():
    # Rally's Allocator: allocation g runs on client g % race clients; a parallel element's own
    # ``clients`` only counts towards the race's number.
    tasks = tuple(task(op("search", n), clients=1) for n in "abc")
    wide = task(op("search", "wide"), clients=4)
    steps = plan_schedule([wide, Parallel(tasks=tasks, clients=2)], max_workers=1)
    assert steps[1].clients == 3
    clients = [c for w in steps[1].workers for c in w.clients]
    by_client = {c.client_id: [a.task.name for a in c.allocations] for c in clients}
    assert by_client == {0: ["a"], 1: ["b"], 2: ["c"]}
    assert {a.total_clients for c in steps[1].workers[0].clients for a in c.allocations} == {2}
