"""Run (or reuse) one stored, tagged race per point of a sweep.

A sweep varies one *dimension* of an otherwise fixed race: a task's clients, target-throughput or
bulk-size (:class:`~esbench.planning.overrides.TaskOverride`), one track param, or the number of
provisioned nodes. Every point is an ordinary race (:func:`esbench.racecontrol.run_race`) tagged
``sweep:<id>``, ``sweep-kind:<kind>``, ``sweep-param:<dimension>``, ``sweep-point:<value>`` and
``sweep-repeat:<n>``. The sweep id is a hash of everything but the swept values, so running the same
sweep again (or with more values) reuses the completed race stored for a point instead of running it.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, TextIO

from esbench.console import Console
from esbench.home import home_subdir
from esbench.planning.driver_cpu import DriverCpu, DriverCpuSampler
from esbench.planning.measure import TABLE_PERCENTILES, PointResult, find_task, point_from_race
from esbench.planning.overrides import TaskOverride
from esbench.results.model import STATUS_COMPLETED, RaceResult
from esbench.results.store import ResultsStore
from esbench.settings import RaceSettings

_CPU_FILE = "planning-driver-cpu.json"


class Dimension(StrEnum):
    """What a sweep varies."""

    CLIENTS = "clients"
    TARGET_THROUGHPUT = "target-throughput"
    BULK_SIZE = "bulk-size"
    TRACK_PARAM = "track-param"
    NODES = "nodes"


def point_settings(
    base: RaceSettings, task: str, dimension: Dimension, value: Any, *, param: str = ""
) -> RaceSettings:
    """The settings of the race of one point: ``base`` with ``dimension`` set to ``value``.

    Args:
        base: the fixed settings (may already hold overrides of ``task``, e.g. its time period).
        task: the swept task; dimension: what varies; value: its value at this point (int for clients,
            bulk-size and nodes, float ops/s for target-throughput, any JSON value for a track param).
        param: the track param's name (:attr:`Dimension.TRACK_PARAM` only).
    """
    override = base.task_overrides.get(task, TaskOverride())
    if dimension is Dimension.CLIENTS:
        override = replace(override, clients=int(value))
    elif dimension is Dimension.TARGET_THROUGHPUT:
        override = replace(override, target_throughput=float(value))
    elif dimension is Dimension.BULK_SIZE:
        override = replace(override, bulk_size=int(value))
    elif dimension is Dimension.TRACK_PARAM:
        base = replace(base, track_params={**base.track_params, param: value})
    elif dimension is Dimension.NODES:
        base = replace(base, provision=replace(base.provision, nodes=int(value)))
    # Always an override for the task, so that race control checks the task is in the challenge
    # before anything is measured.
    return replace(base, task_overrides={**base.task_overrides, task: override})


def sweep_id(kind: str, base: RaceSettings, task: str, dimension: Dimension, *, param: str = "") -> str:
    """A stable id of a sweep definition without its values (12 hex digits of a SHA-1)."""
    params = {
        k: v for k, v in base.track_params.items() if not (dimension is Dimension.TRACK_PARAM and k == param)
    }
    overrides = {k: o.describe() for k, o in base.task_overrides.items()}
    prov = base.provision
    definition = {
        "kind": kind,
        "track": base.track_name or str(base.track_path),
        "challenge": base.challenge,
        "task": task,
        "dimension": str(dimension),
        "param": param,
        "track_params": params,
        "overrides": overrides,
        "hosts": list(base.target_hosts),
        "pipeline": base.pipeline,
        "test_mode": base.test_mode,
        "provision": None
        if base.target_hosts
        else [
            prov.distribution_version,
            prov.car,
            None if dimension is Dimension.NODES else prov.nodes,
            # Only another product's flavor: Elasticsearch sweeps keep the ids they had before.
            *([prov.distribution_flavor] if prov.distribution_flavor != "elasticsearch" else []),
        ],
        "user_tags": dict(base.user_tags),
    }
    text = json.dumps(definition, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:12]


@dataclass(kw_only=True)
class PointRunner:
    """Runs the race of a point, or reuses the completed race stored for it.

    Attributes:
        task: the measured task. kind: ``sweep``, ``optimize-bulk-size``, ``find-max``...
        dimension / param: what the points vary (tags). sweep: the sweep id.
        fresh: run every point again even when a stored race exists.
        percentiles: extra percentiles to compute (an SLO's).
        run_race: the race function (:func:`esbench.racecontrol.run_race`; replaceable in tests).
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
        stored = None if self.fresh else self._stored(tags)
        if stored is not None:
            self.console.info(f"{self._point(label, repeat, phase)}: reusing race {stored.race_id}")
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

    def _stored(self, tags: dict[str, str]) -> RaceResult | None:
        with ResultsStore.open() as store:
            races = store.find(user_tags=tags, status=STATUS_COMPLETED, limit=1)
        return races[0] if races else None

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
                fmt="text",
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


def parse_values(text: str, *, option: str, convert: Callable[[str], Any]) -> list[Any]:
    """A sweep list: ``"1,5,10"`` -> ``[1, 5, 10]`` with ``convert`` applied to each item.

    Raises:
        UserError: an empty list, an item ``convert`` rejects, or a value given twice.
    """
    from esbench.exceptions import UserError

    items = [i.strip() for i in text.split(",") if i.strip()]
    if not items:
        raise UserError(
            f"{option} is empty: give the values to sweep, comma-separated, e.g. {option}=1,2,4,8."
        )
    values = []
    for item in items:
        try:
            values.append(convert(item))
        except (ValueError, UserError) as e:
            raise UserError(
                f"{option}: '{item}' is not a valid value ({e}); e.g. {option}=1,2,4,8."
            ) from None
    duplicates = sorted({str(v) for v in values if values.count(v) > 1})
    if duplicates:
        raise UserError(f"{option} gives {', '.join(duplicates)} more than once: list each value once.")
    return values


def labels(values: Iterable[Any]) -> list[str]:
    """The point labels of ``values`` (``4``, ``100.5``, ``true``)."""
    return [json.dumps(v) if not isinstance(v, str) else v for v in values]
