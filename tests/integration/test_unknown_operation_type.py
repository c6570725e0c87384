"""A task whose operation type no runner serves: the race refuses before its first task, with a
did-you-mean; a task the task filters leave out does not count."""

from __future__ import annotations

import harness
from elasticsearch import Elasticsearch

TRACK = harness.TRACKS / "operation-type-typo"


def test_the_race_refuses_a_misspelt_type_before_the_first_task(
    es_hosts: list[str], es: Elasticsearch
) -> None:
    proc = harness.race(TRACK, es_hosts, "--pipeline=benchmark-only")
    assert proc.returncode == 64, proc.stdout + proc.stderr
    harness.no_traceback(proc)
    assert "Task 'query' of challenge 'default' has the operation-type 'serach'" in proc.stderr
    assert "Did you mean 'search'?" in proc.stderr
    # The first task (create-index) never ran.
    assert not es.indices.exists(index="operation-type-typo")


def test_a_task_left_out_by_the_filters_is_not_checked(es_hosts: list[str], es: Elasticsearch) -> None:
    harness.ok(harness.race(TRACK, es_hosts, "--pipeline=benchmark-only", "--exclude-tasks=query"))
    assert es.indices.exists(index="operation-type-typo")
