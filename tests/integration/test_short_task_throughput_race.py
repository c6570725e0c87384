"""A task without a complete measurement window reports Rally's throughput: all its requests,
warmup included, over Rally's interval (docs/metrics.md, "Tasks without a complete window"), on a
real node."""

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
    # The runner logs every request's start and end in every worker process: 240 requests. Rally's
    # interval runs from the earliest start, less that request's time since its client's start,
    # to the latest start. The runner cannot see its client's start, which lies a little before
    # the first request (the loop's set-up, a few µs on a quiet machine, more when the worker is
    # descheduled there): so esbench's interval is the log's plus that, and its value the log's or
    # a little lower. The log's times are the runner's, inside the loop's (µs apart): hence 0.1 %
    # above. Without the lead, or over the first start to the last response, the value is
    # 17 to 54 % higher here.
    spans = sorted(tuple(map(float, line.split())) for line in request_log.read_text().splitlines())
    assert len(spans) == 240
    (first_start, first_end), last_start = spans[0], spans[-1][0]
    from_log = len(spans) / (last_start - first_start + (first_end - first_start))
    assert 0.9 * from_log <= task["throughput_mean"] <= 1.001 * from_log, (task["throughput_mean"], from_log)
