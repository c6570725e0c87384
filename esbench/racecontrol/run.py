"""Race control: the composition root that runs one race through every stage.

Data flow (one way)::

    load_track ─▶ prepare_corpora ─▶ (provision_cluster) ─▶ cluster snapshot
        ─▶ run_challenge (driver: schedule, clients, samples ─▶ metrics) ─▶ cluster snapshot
        ─▶ RaceResult ─▶ results.json + results store (+ metrics store) ─▶ summary report

:func:`run_race` reads as its stages, top-down: prepare the track (:mod:`.prepare`), provision and
connect (:mod:`.target`), drive (here: the requirements check, telemetry, the driver, the last
snapshot), store and report (:mod:`.store`).

The pipeline is Rally's: ``benchmark-only`` when target hosts are given, ``from-distribution``
(esbench provisions a local cluster from ``cars/``) when they are not. A race that stops half way
(Ctrl-C, a node going away, ``--on-error=abort``) still stores and reports what it measured, with
status ``interrupted`` or ``failed``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from esbench.console import Console
from esbench.driver.coordinator.filters import filter_schedule
from esbench.driver.coordinator.run import run_challenge
from esbench.driver.transport.client import host_for_display, race_secrets
from esbench.exceptions import EsbenchError, TaskAssertionFailed, UserError, UserInterrupted
from esbench.home import home_subdir
from esbench.live_progress import LiveProgress
from esbench.metrics.cluster import ClusterStatsSnapshot, cluster_metrics
from esbench.racecontrol.prepare import PreparedTrack, prepare_track
from esbench.racecontrol.store import metrics_store_of, store_and_report
from esbench.racecontrol.target import (
    ClusterInfo,
    TargetCluster,
    admin_client,
    cluster_admin_clients,
    connect,
    final_snapshot,
    provision,
    resolve_pipeline,
    with_cluster,
)
from esbench.racelog import LOG_FILE_NAME, start_race_log
from esbench.records import STATUS_INTERRUPTED, RaceResult
from esbench.requirements import verify_race_requirements
from esbench.results.metrics_store import environment_name
from esbench.results.store_probe import check_reachable
from esbench.results.store_writer import SampleWriter
from esbench.settings import PIPELINE_FROM_DISTRIBUTION, RaceSettings
from esbench.telemetry.race import (
    RaceTelemetry,
    attach_telemetry,
    check_telemetry,
    provisioned_nodes,
    start_telemetry,
)
from esbench.telemetry.session import TelemetryResult
from esbench.track.model import Challenge
from esbench.version import __version__


def run_race(settings: RaceSettings, *, console: Console | None = None) -> RaceResult:
    """Run one race and return its result, which is also stored, written and reported.

    Args:
        settings: the race settings (see :class:`esbench.settings.RaceSettings`).
        console: where progress and messages go (default: stderr).

    Returns:
        The :class:`RaceResult`; its ``status`` tells whether the race completed.

    Raises:
        EsbenchError: for user errors before any measurement (bad track, unreachable cluster...).
            Errors during measurement end the race with status ``failed`` instead; Ctrl-C ends it
            with ``interrupted``. Both still store and report what was measured.
        TaskAssertionFailed: with ``--enable-assertions``, a task's assertion failed (Rally's exit
            64); raised after the failed race was stored and reported.
    """
    console = console or Console()
    if settings.kill_running_processes:
        from esbench.racecontrol.leftovers import stop_leftovers

        stop_leftovers(console.info)
    pipeline = _check_before_start(settings)
    prepared = prepare_track(settings, pipeline, console)
    race = _start(prepared, settings, pipeline, console)
    target = provision(settings, pipeline, race.race_dir, console)
    return _race_against(race, target, console)


@dataclass(frozen=True, kw_only=True)
class _Race:
    """One race once started: its id, directory, start time, track and pipeline. Its
    :meth:`result` is what every outcome of the race (completed, failed, interrupted) records."""

    race_id: str
    race_dir: Path
    started_wall: dt.datetime
    started: float  # time.perf_counter() at the start
    pipeline: str
    prepared: PreparedTrack
    environment: str  # Rally's env.name ([system] env.name of esbench.ini)

    def result(self, target: TargetCluster, **changes: Any) -> RaceResult:
        """The race's result so far (its duration up to now) with ``changes`` (status, tasks...)."""
        settings, track_repo, repository = target.settings, self.prepared.repository, target.repository
        return RaceResult(
            race_id=self.race_id,
            timestamp=self.started_wall.strftime("%Y-%m-%dT%H:%M:%SZ"),
            track=self.prepared.track.name,
            challenge=self.prepared.challenge.name,
            track_params=dict(settings.track_params),
            car=target.car,
            car_params=dict(settings.provision.car_params) if target.provisioned else {},
            user_tags=dict(settings.user_tags),
            pipeline=self.pipeline,
            distribution_version=target.distribution_version,
            track_repository=track_repo.name if track_repo else None,
            track_revision=track_repo.revision if track_repo else None,
            esbench_version=__version__,
            test_mode=settings.test_mode,
            duration_s=time.perf_counter() - self.started,
            distribution_repository=repository.repository if repository else None,
            distribution_note=repository.reason if repository else None,
            track_fingerprint=self.prepared.track.fingerprint or None,
            environment=self.environment,
            **changes,
        )


def _check_before_start(settings: RaceSettings) -> str:
    """What can fail before anything is prepared: the metrics store, the pipeline, telemetry."""
    store = metrics_store_of(settings)
    if store is not None:
        # Before the race, not after it: the samples go at each task's end, the rest at the race's.
        check_reachable(store)
    pipeline = resolve_pipeline(settings)
    check_telemetry(settings.telemetry, provisioned=pipeline == PIPELINE_FROM_DISTRIBUTION)
    if settings.race_id is not None and (home_subdir("races") / settings.race_id).exists():
        raise UserError(
            f"--race-id {settings.race_id}: a race with this id exists already "
            f"({home_subdir('races') / settings.race_id}). Give a new id, or leave --race-id out for "
            "a new UUID."
        )
    return pipeline


def _start(prepared: PreparedTrack, settings: RaceSettings, pipeline: str, console: Console) -> _Race:
    race_id = settings.race_id or str(uuid.uuid4())
    race_dir = home_subdir("races") / race_id
    race_dir.mkdir(parents=True, exist_ok=settings.race_id is None)
    race = _Race(
        race_id=race_id,
        race_dir=race_dir,
        started_wall=dt.datetime.now(dt.UTC),
        started=time.perf_counter(),
        pipeline=pipeline,
        prepared=prepared,
        environment=environment_name(),
    )
    console.info(
        f"Race {race_id}: track '{prepared.track.name}', challenge '{prepared.challenge.name}', pipeline "
        f"{pipeline}" + (" (test mode)" if settings.test_mode else "")
    )
    return race


def _race_against(race: _Race, target: TargetCluster, console: Console) -> RaceResult:
    """Connect, drive, store: the stages that run with the race log open and the cluster up (a
    provisioned cluster is stopped at the end, whatever happens)."""
    settings = target.settings
    telemetry: RaceTelemetry | None = None
    secrets = race_secrets(settings.target_hosts, settings.client_options)
    for cluster in settings.driver.other_clusters:
        secrets += race_secrets(cluster.hosts, cluster.options)
    race_log = start_race_log(race.race_dir, secrets)
    try:
        info, before = connect(target.hosts, settings, race.prepared.target)
        for cluster in settings.driver.other_clusters:
            hosts = ", ".join(host_for_display(h) for h in cluster.hosts)
            console.info(f"Cluster '{cluster.name}' ({hosts}): for plugin runners that declare multi_cluster")
        settings = with_cluster(settings, info)
        challenge = _checked_schedule(race.prepared, info, target.hosts, settings, console)
        telemetry = _start_telemetry(settings, target, race)
        result, failure = _drive(race, target, challenge, settings, info, before, telemetry, console)
    except EsbenchError:
        # Nothing was measured (unreachable cluster, a task that cannot run): leave no empty race behind.
        race_log.discard()
        _remove_if_empty(race.race_dir)
        raise
    except KeyboardInterrupt:
        result = race.result(target, status=STATUS_INTERRUPTED, error="interrupted by the user (Ctrl-C)")
        if telemetry is not None:
            result = attach_telemetry(result, telemetry.stop())
        race_log.finish(result)
        store_and_report(result, race.race_dir, settings, console)
        raise UserInterrupted(f"Race {race.race_id} was interrupted; what it measured is stored.") from None
    finally:
        target.stop(console)
    race_log.finish(result)
    store_and_report(result, race.race_dir, settings, console)
    if isinstance(failure, TaskAssertionFailed):
        # Rally exits 64 on a failed task assertion; other failed races return their result (exit 1).
        raise TaskAssertionFailed(
            f"Race {race.race_id} failed: {failure} What it measured before is stored; the race log "
            f"is {race.race_dir / LOG_FILE_NAME}."
        )
    return result


def _checked_schedule(
    prepared: PreparedTrack,
    info: ClusterInfo,
    hosts: tuple[str, ...],
    settings: RaceSettings,
    console: Console,
) -> Challenge:
    """The challenge filtered by ``--include-tasks``/``--exclude-tasks`` (here, once per race: the
    driver gets it filtered), its tasks' requirements checked against the cluster.

    Raises:
        ConfigError: a filter that matches no task. EsbenchError: a requirement the cluster misses
            (with ``--on-error=abort``; else a warning).
    """
    driver = settings.driver
    challenge = filter_schedule(
        prepared.challenge, include=driver.include_tasks, exclude=driver.exclude_tasks
    )
    # The module catalogue is Elasticsearch's (OpenSearch has data streams and ILM-like policies in
    # other places), so the pre-race check runs against Elasticsearch only.
    if info.flavor != "opensearch":
        verify_race_requirements(
            track=prepared.track,
            tasks=challenge.tasks(),
            hosts=hosts,
            client_options=settings.client_options,
            on_error=driver.on_error,
            warn=console.warn,
        )
    return challenge


def _drive(
    race: _Race,
    target: TargetCluster,
    challenge: Challenge,
    settings: RaceSettings,
    info: ClusterInfo,
    before: ClusterStatsSnapshot | None,
    telemetry: RaceTelemetry,
    console: Console,
) -> tuple[RaceResult, EsbenchError | None]:
    """Run the filtered ``challenge`` under telemetry; the result with the cluster metrics, and the
    error that ended the race early (None if it did not)."""
    driver = replace(settings.driver, include_tasks=(), exclude_tasks=())  # the schedule is filtered
    if settings.test_mode and driver.task_pause_s is None:
        driver = replace(driver, task_pause_s=0.0)  # Rally's test mode does not pause between tasks
    store = metrics_store_of(settings)
    if store is not None:
        # Rally keeps every request's samples only in its metrics store; so does esbench.
        driver = replace(driver, sample_sink=SampleWriter(store, race.result(target), console))
    try:
        with LiveProgress(console) as progress:
            outcome = run_challenge(
                track=race.prepared.track,
                challenge=challenge,
                hosts=target.hosts,
                client_options=settings.client_options,
                settings=driver,
                corpora=race.prepared.corpora,
                registry=race.prepared.registry,
                progress=progress,
            )
    finally:
        _stop_telemetry(telemetry, console)
    after = final_snapshot(target.hosts, settings) if outcome.status != STATUS_INTERRUPTED else None
    metrics = cluster_metrics(before, after) if (before is not None and after is not None) else ()
    result = race.result(
        target,
        cluster_version=info.version,
        cluster_nodes=info.nodes,
        cluster_flavor=info.flavor,
        status=outcome.status,
        error=outcome.error,
        tasks=outcome.tasks,
        cluster_metrics=metrics,
        load_driver=outcome.load_driver,
    )
    return attach_telemetry(result, telemetry.stop()), outcome.exception


def _start_telemetry(settings: RaceSettings, target: TargetCluster, race: _Race) -> RaceTelemetry:
    # The devices sample in their own thread from before the first task until after the last one.
    track = race.prepared.track
    return start_telemetry(
        settings.telemetry,
        client_factory=lambda: admin_client(target.hosts, settings),
        race_dir=race.race_dir,
        index_names=[i.name for i in track.indices],
        data_stream_names=[d.name for d in track.data_streams],
        nodes=provisioned_nodes(target.provisioned),
        other_clusters=cluster_admin_clients(settings),
    )


def _stop_telemetry(telemetry: RaceTelemetry, console: Console) -> TelemetryResult:
    sampled = telemetry.stop()
    for note in sampled.notes:
        console.info(f"[INFO] {note}")
    for warning in sampled.warnings:
        console.warn(warning)
    return sampled


def _remove_if_empty(directory: Path) -> None:
    # A directory that is not empty (node logs of a provisioned cluster) is kept for the user.
    with contextlib.suppress(OSError):
        directory.rmdir()
