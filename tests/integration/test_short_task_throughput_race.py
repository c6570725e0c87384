"""A task without a complete measurement window reports Rally's throughput: all its requests,
warmup included, over the time from the task's start to its last response (docs/metrics.md,
"Tasks without a complete window"), on a real node."""

from __future__ import annotations

from pathlib import Path

import harness


def test_warmup_then_one_request_per_client_reports_the_rate_of_the_whole_task(
    es_hosts: list[str], tmp_path: Path
) -> None:
    request_log = tmp_path / "requests.txt"
    proc = harness.ok(
        harness.race(
            harness.TRACKS / "short-task-throughput",
            es_hosts,
            "--pipeline=benchmark-only",
            "--on-error=abort",
            f"--track-params=request_log:{request_log}",
        )
    )
    task = next(t for t in harness.results(proc)["tasks"] if t["task"] == "minmax")
    assert (task["warmup_sample_count"], task["sample_count"]) == (225, 15)
    assert task["throughput_windows"] == [task["throughput_mean"]]
    # What the node served, as the runner saw it in every worker process: 240 requests between the
    # first request's start and the last one's end. esbench's interval begins a little earlier (when
    # the first client began the task, before its first request), so its value is a little lower.
    spans = [tuple(map(float, line.split())) for line in request_log.read_text().splitlines()]
    assert len(spans) == 240
    served = len(spans) / (max(e for _, e in spans) - min(s for s, _ in spans))
    assert 0.7 * served <= task["throughput_mean"] <= 1.05 * served, (task["throughput_mean"], served)
