"""Runs the telemetry devices of one race beside the load, in one thread of the coordinator process.

:class:`TelemetrySession` starts a daemon thread with its own asyncio event loop (never in the load
driver's worker processes or their event loops). In that loop every device's ``start`` runs before
the first task, followed by a first sample of each sampling device (both before
:meth:`TelemetrySession.start` returns); each such device then samples on a fixed-rate schedule
(``start + k * interval``; a sample that overruns its slot skips the missed slots rather than
bunching up); :meth:`TelemetrySession.stop` ends the schedules, takes one last sample of each
sampling device (so series reach the end of the race), runs every ``stop`` and returns
:class:`TelemetryResult`. A failed sample is logged and counted, never fatal: telemetry must not
cost the race its measurements. Rally does the same with one ``SamplerThread`` per device
(esrally ``telemetry.py``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from esbench.exceptions import EsbenchError
from esbench.records import ClusterMetric, TelemetrySeries
from esbench.telemetry.device import DeviceContext, TelemetryDevice

if TYPE_CHECKING:
    from elasticsearch import AsyncElasticsearch

logger = logging.getLogger(__name__)

#: Seconds a device's ``start`` may take (a cluster that does not answer fails the race early).
START_TIMEOUT_S = 120.0


@dataclass(frozen=True, kw_only=True)
class TelemetryResult:
    """What the devices of a race produced.

    Attributes:
        series: every device's series (device order, then column order).
        metrics: summary rows for the report.
        notes: information for the user (files written).
        warnings: what went wrong (failed samples, skipped slots, metrics dropped).
    """

    series: tuple[TelemetrySeries, ...] = ()
    metrics: tuple[ClusterMetric, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(kw_only=True)
class _Errors:
    count: int = 0
    first: str | None = None
    slots_missed: int = 0
    extra: list[str] = field(default_factory=list)


class TelemetrySession:
    """The devices of one race and the thread that samples them.

    Args:
        devices: built by :func:`esbench.telemetry.registry.create_devices`.
        context: what devices use, without ``client``.
        client_factory: creates the cluster client inside the sampler thread's event loop (called
            only when a device needs one); ``None`` if no device needs a cluster.
    """

    def __init__(
        self,
        devices: Sequence[TelemetryDevice],
        *,
        context: DeviceContext,
        client_factory: Callable[[], AsyncElasticsearch] | None = None,
    ) -> None:
        self.devices = list(devices)
        self._context = context
        self._client_factory = client_factory
        self._errors = {d.name: _Errors() for d in self.devices}
        self._started: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._finished: concurrent.futures.Future[TelemetryResult] = concurrent.futures.Future()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread and every device; returns once all devices have started.

        Raises:
            EsbenchError: a device cannot work with this target (e.g. ``os`` on a cluster esbench did
                not provision); the thread is then stopped.
        """
        if not self.devices:
            return
        self._thread = threading.Thread(target=self._run, name="esbench-telemetry", daemon=True)
        self._thread.start()
        self._started.result()

    def stop(self) -> TelemetryResult:
        """End the sampling, take the last samples, stop every device and return what they produced.

        Safe to call more than once and when :meth:`start` failed or was not called.
        """
        if self._thread is None:
            return TelemetryResult()
        if self._loop is not None and self._stop_event is not None and not self._finished.done():
            # The loop may have closed meanwhile (the thread ended on its own); then there is nothing to stop.
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._stop_event.set)
        self._thread.join()
        if self._finished.done() and self._finished.exception() is None:
            return self._finished.result()
        return TelemetryResult()

    # ------------------------------------------------------------------ the sampler thread

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as e:  # reported to whichever caller waits
            logger.exception("the telemetry thread failed")
            for future in (self._started, self._finished):
                if not future.done():
                    future.set_exception(e)

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop_event = asyncio.Event()
        client = None
        if self._client_factory is not None and any(d.needs_client for d in self.devices):
            client = self._client_factory()
        ctx = DeviceContext(
            client=client,
            race_dir=self._context.race_dir,
            index_names=self._context.index_names,
            data_stream_names=self._context.data_stream_names,
            nodes=self._context.nodes,
            load_driver_pid=self._context.load_driver_pid,
        )
        try:
            try:
                for device in self.devices:
                    device.bind(ctx)
                    await asyncio.wait_for(device.start(), START_TIMEOUT_S)
            except BaseException as e:
                self._finished.set_result(TelemetryResult())
                self._started.set_exception(_as_user_error(e))
                return
            began = time.monotonic()
            # The first samples are taken before start() returns, i.e. before the first task.
            for device in self.devices:
                if device.sample_interval_s is not None:
                    await self._sample_once(device)
            self._started.set_result(None)
            loops = [
                asyncio.create_task(self._sample_loop(d, began))
                for d in self.devices
                if d.sample_interval_s is not None
            ]
            await self._stop_event.wait()
            await asyncio.gather(*loops)
            for device in self.devices:
                if device.sample_interval_s is not None:
                    await self._sample_once(device)
            for device in self.devices:
                try:
                    await device.stop()
                except Exception as e:
                    self._record_error(device, e)
            self._finished.set_result(self._collect())
        finally:
            if client is not None:
                await client.close()

    async def _sample_loop(self, device: TelemetryDevice, began: float) -> None:
        assert self._stop_event is not None and device.sample_interval_s is not None
        interval = device.sample_interval_s
        slot = 0
        while True:
            slot += 1
            due = began + slot * interval
            now = time.monotonic()
            if now > due:
                skipped = int((now - due) // interval) + 1
                self._errors[device.name].slots_missed += skipped
                slot += skipped
                due = began + slot * interval
            try:
                await asyncio.wait_for(self._stop_event.wait(), timeout=due - time.monotonic())
                return
            except TimeoutError:
                pass
            await self._sample_once(device)

    async def _sample_once(self, device: TelemetryDevice) -> None:
        try:
            await device.sample(time.time())
        except Exception as e:
            self._record_error(device, e)

    def _record_error(self, device: TelemetryDevice, error: Exception) -> None:
        errors = self._errors[device.name]
        errors.count += 1
        if errors.first is None:
            errors.first = f"{type(error).__name__}: {error}"
            logger.warning("telemetry device %s failed: %s", device.name, errors.first)
            logger.debug("telemetry device %s failure", device.name, exc_info=True)

    def _collect(self) -> TelemetryResult:
        series: list[TelemetrySeries] = []
        metrics: list[ClusterMetric] = []
        notes: list[str] = []
        warnings: list[str] = []
        for device in self.devices:
            out = device.output()
            series.extend(out.series)
            metrics.extend(out.metrics)
            notes.extend(out.notes)
            warnings.extend(out.warnings)
            errors = self._errors[device.name]
            if errors.count:
                warnings.append(
                    f"Telemetry device {device.name}: {errors.count} sample(s) failed; "
                    f"the first: {errors.first}"
                )
            if errors.slots_missed:
                warnings.append(
                    f"Telemetry device {device.name}: {errors.slots_missed} sample slot(s) were skipped "
                    "because a "
                    f"sample took longer than its interval of {device.sample_interval_s:g} s."
                )
        return TelemetryResult(
            series=tuple(series), metrics=tuple(metrics), notes=tuple(notes), warnings=tuple(warnings)
        )


def _as_user_error(error: BaseException) -> BaseException:
    if isinstance(error, EsbenchError):
        return error
    if isinstance(error, TimeoutError):
        return EsbenchError(
            f"A telemetry device did not start within {START_TIMEOUT_S:.0f} s: the cluster does not answer. "
            "Check the target hosts, or drop --telemetry."
        )
    return EsbenchError(
        f"A telemetry device could not start: {type(error).__name__}: {error}. Check that the cluster "
        "answers and that the user has the monitor privilege, or drop the device from --telemetry.",
        cause=error,
    )
