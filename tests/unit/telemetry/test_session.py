"""The sampler thread: lifecycle order, fixed interval, last sample at stop, failures kept non-fatal."""

from __future__ import annotations

import threading
from typing import Any, ClassVar

import pytest

from esbench.exceptions import ConfigError, EsbenchError
from esbench.telemetry.device import DeviceContext, TelemetryDevice
from esbench.telemetry.session import TelemetrySession


class _Recording(TelemetryDevice):
    name = "recording"
    human_name = "Recording"
    help = "test device"
    params: ClassVar[dict[str, Any]] = {"recording-sample-interval": 0.01}
    needs_client = False

    def __init__(self, params: dict[str, Any], *, enough: int = 5, fail_every: int = 0) -> None:
        super().__init__(params)
        self.sample_interval_s = self.positive_number("recording-sample-interval")
        self.events: list[str] = []
        self.thread_names: set[str] = set()
        self.enough = threading.Event()
        self._wanted = enough
        self._fail_every = fail_every
        self._samples = 0

    async def start(self) -> None:
        self.events.append("start")

    async def sample(self, timestamp: float) -> None:
        self._samples += 1
        self.thread_names.add(threading.current_thread().name)
        self.events.append("sample")
        if self._samples >= self._wanted:
            self.enough.set()
        if self._fail_every and self._samples % self._fail_every == 0:
            raise RuntimeError("node went away")
        self.table.add(timestamp, {("count", ""): float(self._samples)}, {("count", ""): ""})

    async def stop(self) -> None:
        self.events.append("stop")


def test_lifecycle_runs_in_its_own_thread_and_ends_with_a_last_sample() -> None:
    device = _Recording({})
    session = TelemetrySession([device], context=DeviceContext())
    session.start()
    # start() returns only after the device started and took its first sample.
    assert device.events[:2] == ["start", "sample"]
    assert device.enough.wait(timeout=60)
    result = session.stop()
    assert device.events[0] == "start" and device.events[-1] == "stop"
    assert device.events[-2] == "sample"  # the final sample after the schedule ended
    samples = device.events.count("sample")
    assert samples >= 6
    assert device.thread_names == {"esbench-telemetry"}
    (series,) = result.series
    assert series.values == tuple(float(i) for i in range(1, samples + 1))
    assert list(series.timestamps) == sorted(series.timestamps)
    assert session.stop() == result  # idempotent


def test_failed_samples_are_counted_not_fatal() -> None:
    device = _Recording({}, enough=6, fail_every=3)
    session = TelemetrySession([device], context=DeviceContext())
    session.start()
    assert device.enough.wait(timeout=60)
    result = session.stop()
    failed = device.events.count("sample") // 3
    assert len(result.series[0].values) == device.events.count("sample") - failed
    (note,) = [n for n in result.warnings if "failed" in n]
    assert f"{failed} sample(s) failed" in note and "RuntimeError: node went away" in note


def test_a_device_that_cannot_start_fails_start() -> None:
    class _Refusing(_Recording):
        async def start(self) -> None:
            raise ConfigError("not on this cluster")

    session = TelemetrySession([_Refusing({})], context=DeviceContext())
    with pytest.raises(ConfigError, match="not on this cluster"):
        session.start()
    assert session.stop().series == ()


def test_unexpected_start_errors_become_user_errors() -> None:
    class _Broken(_Recording):
        async def start(self) -> None:
            raise OSError("connection refused")

    session = TelemetrySession([_Broken({})], context=DeviceContext())
    with pytest.raises(EsbenchError, match="could not start: OSError: connection refused"):
        session.start()


def test_no_devices_no_thread() -> None:
    session = TelemetrySession([], context=DeviceContext())
    session.start()
    assert session.stop().series == ()
