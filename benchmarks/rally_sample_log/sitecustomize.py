"""An experiment, not an oracle: Rally 2.13 writing down the times of every sample it takes.

With this directory on PYTHONPATH and ``RALLY_SAMPLE_LOG`` naming a file, each of Rally's processes
wraps ``esrally.driver.driver.Sampler.add`` and appends one JSON line per sample: task, client,
sample type, ``absolute_time`` (wall clock at the request's processing start), ``request_start``
(``perf_counter``), service time and ``time_period`` (response end minus the client's
``total_start``), with the process's wall-clock minus ``perf_counter`` offset. From these,
``benchmarks/rally_interval_parts.py`` takes Rally's short-task interval apart (issue 38). Nothing
else in Rally changes; the line is written after Rally's own bookkeeping of the sample.
"""

import json
import os
import time

_PATH = os.environ.get("RALLY_SAMPLE_LOG")

if _PATH:
    from esrally.driver import driver as _driver

    _original_add = _driver.Sampler.add

    def _logged_add(self, task, client_id, sample_type, meta_data, absolute_time, request_start, latency,
                    service_time, processing_time, throughput, ops, ops_unit, time_period, percent_completed,
                    dependent_timing=None):  # fmt: skip
        _original_add(self, task, client_id, sample_type, meta_data, absolute_time, request_start,
                      latency, service_time, processing_time, throughput, ops, ops_unit, time_period,
                      percent_completed, dependent_timing)  # fmt: skip
        line = {
            "task": task.name,
            "client": client_id,
            "warmup": sample_type.name == "Warmup",
            "absolute_time": absolute_time,
            "request_start": request_start,
            "service_time": service_time,
            "time_period": time_period,
            "wall_minus_perf": time.time() - time.perf_counter(),
            "pid": os.getpid(),
        }
        with open(_PATH, "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")

    _driver.Sampler.add = _logged_add
