"""Clock offset between the coordinator and a worker on another host, and the message translation.

``perf_counter`` (CLOCK_MONOTONIC) has a different origin on every machine, so a start instant or a
span measured on one host means nothing on another. The coordinator measures each remote worker's
offset once, before the race, over the worker's own connection (the method of NTP and Cristian's
algorithm): it sends a probe at ``t0``, the worker answers its own ``perf_counter`` ``w``, the
answer arrives at ``t1``. If the worker read its clock anywhere between ``t0`` and ``t1``,
``offset = w - (t0 + t1) / 2`` is wrong by at most ``(t1 - t0) / 2``; of :data:`PROBES` probes the
one with the smallest round trip gives the tightest bound, which is recorded with the race
(``results.json``: ``load_driver.workers[].clock_uncertainty_ms``). Both clocks are monotonic and
tick at the same rate to within the oscillators' drift (a few ppm: under 0.1 ms over a 10-minute
race), so one measurement at the start holds for the race.

:class:`ClockedConnection` then converts on the coordinator's side: ``StartStep.start_at`` into the
worker's clock, and every time a worker reports (step end, task spans, progress, the recorders'
window origins and response ends) back into the coordinator's clock, so the coordinator merges
states and computes spans exactly as for local workers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, overload

from esbench.driver.worker.process import ProgressReport, StartStep, StepDone
from esbench.metrics.recorder import RecorderState

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

#: Clock probes per worker; the one with the smallest round trip is kept.
PROBES = 9


@dataclass(frozen=True, slots=True)
class ClockProbe:
    """Coordinator -> worker: answer with your clock (``seq`` -1: probing is over)."""

    seq: int


@dataclass(frozen=True, slots=True)
class ClockReading:
    """Worker -> coordinator: the worker's ``perf_counter`` (s) when it answered probe ``seq``."""

    seq: int
    at: float


@dataclass(frozen=True, slots=True)
class ClockOffset:
    """A worker clock's offset from the coordinator's.

    Attributes:
        offset_s: worker ``perf_counter`` minus coordinator ``perf_counter``, in s.
        uncertainty_s: the most ``offset_s`` can be wrong by (half the smallest round trip), in s.
    """

    offset_s: float
    uncertainty_s: float

    @classmethod
    def from_probes(cls, probes: Sequence[tuple[float, float, float]]) -> ClockOffset:
        """The offset from ``(sent, worker_time, received)`` triples (s): the probe with the
        smallest round trip wins.

        Raises:
            ValueError: no probes, or a probe received before it was sent.
        """
        if not probes:
            raise ValueError("at least one clock probe is needed")
        sent, worker_time, received = min(probes, key=lambda p: p[2] - p[0])
        if received < sent:
            raise ValueError(f"a clock probe was received ({received}) before it was sent ({sent})")
        return cls(offset_s=worker_time - (sent + received) / 2, uncertainty_s=(received - sent) / 2)

    def to_worker(self, t: float) -> float:
        """A coordinator time (s) in the worker's clock."""
        return t + self.offset_s

    @overload
    def to_coordinator(self, t: float) -> float: ...

    @overload
    def to_coordinator(self, t: None) -> None: ...

    def to_coordinator(self, t: float | None) -> float | None:
        """A worker time (s) in the coordinator's clock (None stays None)."""
        return None if t is None else t - self.offset_s


def measure_offset(
    send: Callable[[object], None], recv: Callable[[], object], *, probes: int = PROBES
) -> ClockOffset:
    """Probe a worker ``probes`` times over its connection and end the probing.

    Raises:
        EOFError / OSError: the connection broke.
        ValueError: the worker answered something else than a :class:`ClockReading`.
    """
    samples = []
    for seq in range(probes):
        sent = time.perf_counter()
        send(ClockProbe(seq))
        answer = recv()
        received = time.perf_counter()
        if not isinstance(answer, ClockReading) or answer.seq != seq:
            raise ValueError(f"expected the answer to clock probe {seq}, got {answer!r}")
        samples.append((sent, answer.at, received))
    send(ClockProbe(-1))
    return ClockOffset.from_probes(samples)


def answer_probes(send: Callable[[object], None], recv: Callable[[], object]) -> None:
    """The worker's side of :func:`measure_offset`: answer probes until the end marker."""
    while True:
        probe = recv()
        if not isinstance(probe, ClockProbe):
            raise ValueError(f"expected a clock probe, got {probe!r}")
        if probe.seq < 0:
            return
        send(ClockReading(probe.seq, time.perf_counter()))


def _state_to_coordinator(state: RecorderState, clock: ClockOffset) -> RecorderState:
    return replace(
        state,
        origin=clock.to_coordinator(state.origin),
        last_end=clock.to_coordinator(state.last_end),
        last_warmup_end=clock.to_coordinator(state.last_warmup_end),
        request_span=state.request_span.shifted(clock.offset_s) if state.request_span is not None else None,
    )


def to_worker_clock(message: object, clock: ClockOffset) -> object:
    """``message`` (coordinator -> worker) with its times in the worker's clock."""
    if isinstance(message, StartStep):
        return replace(message, start_at=clock.to_worker(message.start_at))
    return message


def to_coordinator_clock(message: object, clock: ClockOffset) -> object:
    """``message`` (worker -> coordinator) with its times in the coordinator's clock."""
    if isinstance(message, StepDone):
        return replace(
            message,
            end=clock.to_coordinator(message.end),
            states={name: _state_to_coordinator(s, clock) for name, s in message.states.items()},
            spans={
                name: (start - clock.offset_s, end - clock.offset_s)
                for name, (start, end) in message.spans.items()
            },
        )
    if isinstance(message, ProgressReport):
        return replace(message, at=message.at - clock.offset_s)
    return message


class ClockedConnection:
    """A worker connection whose messages the coordinator sees in its own clock.

    Wraps a :class:`multiprocessing.connection.Connection`; usable with
    :func:`multiprocessing.connection.wait` (it has ``fileno``).
    """

    def __init__(self, conn: Connection, clock: ClockOffset) -> None:
        self.raw = conn
        self.clock = clock

    def send(self, message: object) -> None:
        self.raw.send(to_worker_clock(message, self.clock))

    def recv(self) -> object:
        return to_coordinator_clock(self.raw.recv(), self.clock)

    def poll(self, timeout: float | None = 0.0) -> bool:
        return bool(self.raw.poll(timeout))

    def fileno(self) -> int:
        return int(self.raw.fileno())

    def close(self) -> None:
        self.raw.close()
