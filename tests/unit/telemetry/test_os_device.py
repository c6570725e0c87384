"""The ``os`` device on real processes of this machine (psutil): CPU accounting of the load driver's
process tree and the per-node readings."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import pytest

from esbench.exceptions import ConfigError
from esbench.telemetry.device import DeviceContext, ProvisionedNode
from esbench.telemetry.devices.os_stats import LOAD_DRIVER, OsStats

# Burns the given CPU seconds once told to, then reports them and waits to be released, so that its
# CPU time is read while it is still alive.
_BURNER = """
import sys, time
sys.stdin.readline()
start = time.process_time()
while time.process_time() - start < float(sys.argv[1]):
    pass
print(time.process_time() - start, flush=True)
sys.stdin.readline()
"""


def test_load_driver_cpu_counts_its_worker_processes() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", _BURNER, "0.4"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        # The burner stands in for a node too, so node readings are checked on a live process.
        device = OsStats({"os-sample-interval": 0.5})
        device.bind(
            DeviceContext(nodes=(ProvisionedNode(name="n1", pid=child.pid),), load_driver_pid=os.getpid())
        )
        asyncio.run(device.start())
        asyncio.run(device.sample(time.time()))
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write("go\n")
        child.stdin.flush()
        burned = float(child.stdout.readline())
        asyncio.run(device.sample(time.time()))
        child.stdin.write("done\n")
        child.stdin.flush()
    finally:
        child.wait(timeout=60)
    series = {(s.metric, s.node): s for s in device.output().series}
    driver = series[("process.cpu.percent", LOAD_DRIVER)]
    (first, second) = device.table._times[0], device.table._times[1]
    # CPU seconds used by the process tree between the two samples, from the percentage.
    used = driver.values[-1] / 100.0 * (second - first)
    assert used >= 0.9 * burned
    node_cpu = series[("process.cpu.percent", "n1")].values[-1] / 100.0 * (second - first)
    assert node_cpu >= 0.9 * burned
    assert series[("process.rss", "n1")].values[-1] > 1024 * 1024
    assert series[("system.memory.page_cache", "")].unit == "bytes"
    rows = {(m.name, m.task) for m in device.summary()}
    assert {("Peak CPU usage (os)", "n1"), ("Peak load driver CPU usage", LOAD_DRIVER)} <= rows
    assert ("Disk reads (os)", "n1") in rows and ("Min page cache", "") in rows


def test_os_refuses_a_race_without_provisioned_nodes() -> None:
    device = OsStats({})
    device.bind(DeviceContext())
    with pytest.raises(ConfigError, match="existing cluster"):
        asyncio.run(device.start())
