"""The load driver CPU sampler sees the CPU of child processes (the driver's workers are children)."""

import subprocess
import sys
import time

from esbench.planning.driver_cpu import DriverCpu, DriverCpuSampler

BUSY = "import time\nend = time.process_time() + 1.5\nwhile time.process_time() < end: pass"


def test_a_busy_child_process_shows_as_a_saturated_core() -> None:
    with DriverCpuSampler(interval_s=0.1) as sampler:
        start = time.time()
        subprocess.run([sys.executable, "-c", BUSY], check=True)
        end = time.time()
    usage = sampler.usage(start, end)
    assert usage is not None
    # The child burned 1.5 s of CPU. Its share of a core depends on what else the machine runs (a
    # loaded 2-core machine stretches the wall time), the CPU seconds do not: percent x span gives
    # them back, less what ran after the last sample before the child exited (one interval or so).
    assert usage.busiest_percent / 100 * (end - start) > 1.0
    assert usage.total_percent >= usage.busiest_percent


def test_an_idle_span_is_not_saturated_and_round_trips() -> None:
    with DriverCpuSampler(interval_s=0.05) as sampler:
        start = time.time()
        time.sleep(0.3)
        end = time.time()
    usage = sampler.usage(start, end)
    assert usage is not None and not usage.saturated and usage.busiest_percent < 50
    assert DriverCpu.from_dict(usage.to_dict()) == usage
    assert sampler.usage(end + 10, end + 20) is None
