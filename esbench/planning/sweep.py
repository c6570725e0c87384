"""Run (or reuse) one stored, tagged race per point of a sweep.

A sweep varies one *dimension* of an otherwise fixed race: a task's clients, target-throughput or
bulk-size (:class:`~esbench.track.overrides.TaskOverride`), one track param, or the number of
provisioned nodes. Every point is an ordinary race (:func:`esbench.racecontrol.run_race`) tagged
``sweep:<id>``, ``sweep-kind:<kind>``, ``sweep-param:<dimension>``, ``sweep-point:<value>`` and
``sweep-repeat:<n>``. The sweep id is a hash of everything but the swept values, so running the same
sweep again (or with more values) reuses the completed race stored for a point instead of running it,
but only when that race's definition is identical to what would run now (the track's content, the
cluster's product and version, esbench's major version: :mod:`esbench.planning.definition`).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from esbench.console import Console
from esbench.home import home_subdir
from esbench.planning.definition import DefinitionProbe, RaceDefinition
from esbench.planning.dimensions import Dimension, labels, parse_values, point_settings, sweep_id
from esbench.planning.driver_cpu import DriverCpu, DriverCpuSampler
from esbench.planning.measure import TABLE_PERCENTILES, PointResult, find_task, point_from_race
from esbench.records import STATUS_COMPLETED, RaceResult
from esbench.reporting.formats import ReportFormat
from esbench.results.store import ResultsStore
from esbench.settings import RaceSettings

# Re-exported: their home is planning/dimensions.py, which the CLI imports without the driver.
__all__ = ["Dimension", "PointRunner", "labels", "parse_values", "point_settings", "sweep_id"]

_CPU_FILE = "planning-driver-cpu.json"
#: Stored races of one point looked at for an identical definition (newest first).
_REUSE_CANDIDATES = 20


@dataclass(kw_only=True)
class PointRunner:
    """Runs the race of a point, or reuses the completed race stored for it.

    Attributes:
        task: the measured task. kind: ``sweep``, ``optimize-bulk-size``, ``find-max``...
        dimension / param: what the points vary (tags). sweep: the sweep id.
        fresh: run every point again even when a stored race exists.
        percentiles: extra percentiles to compute (an SLO's).
        run_race: the race function (:func:`esbench.racecontrol.run_race`; replaceable in tests).
        definition: settings -> what a race of them would be now, compared with a stored race before
            it is reused (default: a :class:`~esbench.planning.definition.DefinitionProbe`).
    """

    task: str
    kind: str
    dimension: Dimension
    sweep: str
    param: str = ""
    fresh: bool = False
    percentiles: tuple[float, ...] = TABLE_PERCENTILES
    console: Console = field(default_factory=Console)
    run_race: Callable[..., RaceResult] | None = None
    definition: Callable[[RaceSettings], RaceDefinition] | None = None
    results: list[PointResult] = field(default_factory=list)

    def tags(self, label: str, repeat: int, phase: str = "") -> dict[str, str]:
        """The user tags of a point's race (``sweep-phase`` only when ``phase`` is given)."""
        tags = {
            "sweep": self.sweep,
            "sweep-kind": self.kind,
            "sweep-param": self.param or str(self.dimension),
            "sweep-point": label,
            "sweep-repeat": str(repeat),
        }
        if phase:
            tags["sweep-phase"] = phase
        return tags

    def group(self, label: str, phase: str = "") -> str:
        """The ``sweep-group`` tag of a point's races (all its repeats): ``<sweep id>/<label>[/<phase>]``.

        ``esbench compare --baseline=tag:sweep-group:<group>`` compares the groups of two points.
        """
        return "/".join(filter(None, (self.sweep, label, phase)))

    def measure(self, label: str, settings: RaceSettings, *, repeat: int = 0, phase: str = "") -> PointResult:
        """The point's result: from the stored race of this point, repeat and phase, else from a new race.

        ``phase`` separates the races of one procedure's stages at the same point (find-max's
        ``search`` and ``verify``), so a verification never reuses a search race.

        Raises:
            EsbenchError: the race could not start (bad track, unreachable cluster, unknown task).
        """
        tags = self.tags(label, repeat, phase)
        stored = None if self.fresh else self._stored(tags, settings, self._point(label, repeat, phase))
        if stored is not None:
            self.console.info(
                f"{self._point(label, repeat, phase)}: reusing race {stored.race_id} (ran {stored.timestamp})"
            )
            point = point_from_race(
                stored,
                self.task,
                label=label,
                reused=True,
                driver_cpu=_load_cpu(stored.race_id),
                percentiles=self.percentiles,
            )
        else:
            point = self._run(label, settings, tags, repeat, phase)
        self.results.append(point)
        return point

    def _point(self, label: str, repeat: int, phase: str) -> str:
        stage = f", {phase}" if phase else ""
        return f"Point {self.param or self.dimension}={label} (repeat {repeat}{stage})"

    def _stored(self, tags: dict[str, str], settings: RaceSettings, point: str) -> RaceResult | None:
        """The newest completed race of the point whose definition is identical to ``settings`` now."""
        with ResultsStore.open() as store:
            races = store.find(user_tags=tags, status=STATUS_COMPLETED, limit=_REUSE_CANDIDATES)
        if not races:
            return None
        if self.definition is None:
            self.definition = DefinitionProbe()
        now = self.definition(settings)
        for race in races:
            why = now.differences(race)
            if not why:
                return race
        self.console.info(
            f"{point}: not reusing race {races[0].race_id}: {'; '.join(now.differences(races[0]))}"
        )
        return None

    def _run(
        self, label: str, settings: RaceSettings, tags: dict[str, str], repeat: int, phase: str
    ) -> PointResult:
        if self.run_race is None:
            from esbench.racecontrol import run_race

            self.run_race = run_race
        self.console.info(f"{self._point(label, repeat, phase)}: running a race")
        report_dir = home_subdir("planning") / self.sweep
        settings = replace(
            settings,
            # The group tag is not part of the reuse lookup, so races stored before it existed are reused.
            user_tags={**settings.user_tags, **tags, "sweep-group": self.group(label, phase)},
            report=replace(
                settings.report,
                fmt=ReportFormat.TEXT,
                file=report_dir / f"{_safe('-'.join(filter(None, (label, str(repeat), phase))))}.txt",
            ),
        )
        console = _TaskWindowConsole(self.console, self.task)
        with DriverCpuSampler() as sampler:
            race = self.run_race(settings, console=console)
        cpu: DriverCpu | None = None
        task = find_task(race, self.task)
        if task.start_epoch is not None and task.duration_s > 0:
            cpu = sampler.usage(task.start_epoch, task.start_epoch + task.duration_s)
        elif console.first is not None and console.last is not None:
            cpu = sampler.usage(console.first, console.last)
        if cpu is not None:
            _save_cpu(race.race_id, cpu)
        return point_from_race(
            race, self.task, label=label, reused=False, driver_cpu=cpu, percentiles=self.percentiles
        )


class _TaskWindowConsole(Console):
    """Forwards to ``inner`` and notes when the driver's progress reports for ``task`` came (epoch s).

    The task's measurement span comes from ``TaskResult.start_epoch`` when the driver records it;
    until then these reports (about one a second while the task runs) bound its span.
    """

    def __init__(self, inner: Console, task: str) -> None:
        self._inner = inner
        self._prefix = f"Running {task} "
        self.first: float | None = None
        self.last: float | None = None

    @property
    def stream(self) -> TextIO:
        return self._inner.stream

    @property
    def is_tty(self) -> bool:
        return self._inner.is_tty

    @property
    def quiet(self) -> bool:
        return self._inner.quiet

    def info(self, message: str) -> None:
        self._inner.info(message)

    def warn(self, message: str) -> None:
        self._inner.warn(message)

    def end_progress(self) -> None:
        self._inner.end_progress()

    def progress(self, message: str) -> None:
        if message.startswith(self._prefix):
            self.last = time.time()
            if self.first is None:
                self.first = self.last
        self._inner.progress(message)


def _safe(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", label)[:80]


def _cpu_path(race_id: str) -> Path:
    return home_subdir("races") / race_id / _CPU_FILE


def _save_cpu(race_id: str, cpu: DriverCpu) -> None:
    path = _cpu_path(race_id)
    if path.parent.is_dir():
        path.write_text(json.dumps(cpu.to_dict()), encoding="utf-8")


def _load_cpu(race_id: str) -> DriverCpu | None:
    try:
        return DriverCpu.from_dict(json.loads(_cpu_path(race_id).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError):
        return None
