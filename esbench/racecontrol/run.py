"""Race control: the composition root that runs one race through every stage.

Data flow (one way)::

    load_track ─▶ prepare_corpora ─▶ (provision_cluster) ─▶ cluster snapshot
        ─▶ run_challenge (driver: schedule, clients, samples ─▶ metrics) ─▶ cluster snapshot
        ─▶ RaceResult ─▶ results.json + results store (+ metrics store) ─▶ summary report

The pipeline is Rally's: ``benchmark-only`` when target hosts are given, ``from-distribution``
(esbench provisions a local cluster from ``cars/``) when they are not. A race that stops half way
(Ctrl-C, a node going away, ``--on-error=abort``) still stores and reports what it measured, with
status ``interrupted`` or ``failed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import elastic_transport

from esbench import __version__
from esbench.console import Console
from esbench.corpus import CorpusSet, corpora_read, prepare_corpora
from esbench.driver.coordinator.filters import filter_schedule
from esbench.driver.coordinator.run import DriverOutcome, run_challenge
from esbench.driver.transport.client import ConnectionSettings, EsbenchClient, create_client
from esbench.driver.transport.target import TargetDistribution, TargetHttpError, detect_distribution
from esbench.driver.worker.registry import Registry, prepare_race
from esbench.exceptions import ConfigError, ConnectionFailed, EsbenchError, UserInterrupted
from esbench.home import home_subdir
from esbench.live_progress import LiveProgress
from esbench.metrics.cluster import ClusterStatsSnapshot, cluster_metrics, take_cluster_snapshot
from esbench.planning.overrides import apply_task_overrides
from esbench.provision import ProvisionedCluster, provision_cluster
from esbench.provision.flavors import get_flavor
from esbench.provision.repositories import pin_repository
from esbench.racelog import start_race_log
from esbench.reporting.formats import GRAPHIC_FORMATS
from esbench.reporting.summary import render_summary
from esbench.reporting.verdict import last_line_status, race_problems
from esbench.requirements import verify_race_requirements
from esbench.results.files import write_results_file
from esbench.results.model import STATUS_COMPLETED, STATUS_INTERRUPTED, RaceResult
from esbench.results.store import ResultsStore
from esbench.results.store_probe import check_reachable
from esbench.settings import PIPELINE_BENCHMARK_ONLY, PIPELINE_FROM_DISTRIBUTION, RaceSettings
from esbench.targets import secured_client_options, unreachable_message
from esbench.telemetry.race import attach_telemetry, check_telemetry, provisioned_nodes, start_telemetry
from esbench.telemetry.session import TelemetryResult, TelemetrySession
from esbench.track import Track, load_track
from esbench.track.model import Challenge
from esbench.track.repository import TrackRepository
from esbench.track.warmup import short_bulk_warnings

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class ClusterInfo:
    """What the race records about the target cluster: version and node count, and the product
    (``elasticsearch`` or ``opensearch``, :mod:`esbench.driver.transport.target`)."""

    version: str | None
    nodes: int | None
    flavor: str | None = None


def resolve_pipeline(settings: RaceSettings) -> str:
    """The pipeline to run: the explicit one, else chosen from whether target hosts were given.

    Raises:
        ConfigError: ``benchmark-only`` without target hosts, or ``from-distribution`` with them.
    """
    pipeline = settings.pipeline
    if pipeline is None:
        return PIPELINE_BENCHMARK_ONLY if settings.target_hosts else PIPELINE_FROM_DISTRIBUTION
    if pipeline == PIPELINE_BENCHMARK_ONLY and not settings.target_hosts:
        raise ConfigError(
            "--pipeline=benchmark-only needs a cluster to benchmark: add --target-hosts=HOST:PORT, "
            "or drop --pipeline to let esbench provision a local node."
        )
    if pipeline == PIPELINE_FROM_DISTRIBUTION and settings.target_hosts:
        raise ConfigError(
            "--pipeline=from-distribution provisions its own cluster and cannot be combined with "
            "--target-hosts: drop one of the two options."
        )
    return pipeline


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
    """
    console = console or Console()
    if settings.metrics_store:
        # Before the race, not after it: the export happens at its end.
        check_reachable(settings.metrics_store)
    pipeline = resolve_pipeline(settings)
    check_telemetry(settings.telemetry, provisioned=pipeline == PIPELINE_FROM_DISTRIBUTION)
    track_dir, track_repo, target = _track_source(settings, pipeline)
    track = settings.track or load_track(
        name=None if track_dir else settings.track_name,
        path=track_dir or settings.track_path,
        params=dict(settings.track_params),
        test_mode=settings.test_mode,
    )
    # One registry per race; the plugin's track processors run before the challenge is chosen.
    registry, track = prepare_race(track)
    track = apply_task_overrides(track, settings.challenge, settings.task_overrides)
    challenge = track.find_challenge(settings.challenge)
    if challenge.user_info:
        console.info(f"[INFO] {challenge.user_info}")
    for warning in short_bulk_warnings(track, challenge):
        console.warn(warning)

    corpora = _prepare_corpora(track, challenge, settings, console)

    race_id = str(uuid.uuid4())
    race_dir = home_subdir("races") / race_id
    race_dir.mkdir(parents=True, exist_ok=True)
    started_wall = dt.datetime.now(dt.UTC)
    started = time.perf_counter()
    console.info(
        f"Race {race_id}: track '{track.name}', challenge '{challenge.name}', pipeline {pipeline}"
        + (" (test mode)" if settings.test_mode else "")
    )

    cluster = None
    hosts: tuple[str, ...] = settings.target_hosts
    car = "external"
    distribution_version = None
    repository = None
    if pipeline == PIPELINE_FROM_DISTRIBUTION:
        prov = settings.provision
        console.info(
            f"Provisioning {get_flavor(prov.distribution_flavor).product} {prov.distribution_version} "
            f"({prov.nodes} node{'s' if prov.nodes != 1 else ''}, car {prov.car})..."
        )
        prov = replace(prov, offline=settings.offline or prov.offline)
        prov, repository = pin_repository(prov, notify=console.warn)
        if not repository.fallback:
            console.info(f"Distribution: {repository.reason}")
        cluster = provision_cluster(prov, race_dir=race_dir)
        hosts = cluster.hosts
        car = cluster.car
        distribution_version = cluster.version
        console.info(f"Cluster up at {', '.join(hosts)}")
        if cluster.security is not None:
            options = secured_client_options(settings.client_options, cluster.security)
            settings = replace(settings, client_options=options)
            console.info(
                f"The cluster speaks HTTPS with basic auth; CA certificate: {cluster.security.ca_cert}"
            )

    def base_result(**changes: Any) -> RaceResult:
        return RaceResult(
            race_id=race_id,
            timestamp=started_wall.strftime("%Y-%m-%dT%H:%M:%SZ"),
            track=track.name,
            challenge=challenge.name,
            track_params=dict(settings.track_params),
            car=car,
            car_params=dict(settings.provision.car_params) if cluster else {},
            user_tags=dict(settings.user_tags),
            pipeline=pipeline,
            distribution_version=distribution_version,
            track_repository=track_repo.name if track_repo else None,
            track_revision=track_repo.revision if track_repo else None,
            esbench_version=__version__,
            test_mode=settings.test_mode,
            duration_s=time.perf_counter() - started,
            distribution_repository=repository.repository if repository else None,
            distribution_note=repository.reason if repository else None,
            track_fingerprint=track.fingerprint or None,
            **changes,
        )

    telemetry: TelemetrySession | None = None
    race_log = start_race_log(race_dir, settings)
    try:
        info, before = _connect(hosts, settings, target)
        settings = replace(
            settings,
            client_options=replace(
                settings.client_options, distribution_flavor=info.flavor, distribution_version=info.version
            ),
        )
        # The module catalogue is Elasticsearch's (OpenSearch has data streams and ILM-like policies in
        # other places), so the pre-race check runs against Elasticsearch only.
        if info.flavor != "opensearch":
            verify_race_requirements(
                track=track,
                tasks=filter_schedule(
                    challenge, include=settings.driver.include_tasks, exclude=settings.driver.exclude_tasks
                ).tasks(),
                hosts=hosts,
                client_options=settings.client_options,
                on_error=settings.driver.on_error,
                warn=console.warn,
            )
        telemetry = _start_telemetry(settings, hosts, race_dir, track, cluster)
        try:
            outcome = _drive(track, challenge, hosts, settings, corpora, console, registry)
        finally:
            _stop_telemetry(telemetry, console)
        after = _snapshot(hosts, settings) if outcome.status != STATUS_INTERRUPTED else None
        metrics = cluster_metrics(before, after) if (before is not None and after is not None) else ()
        result = base_result(
            cluster_version=info.version,
            cluster_nodes=info.nodes,
            cluster_flavor=info.flavor,
            status=outcome.status,
            error=outcome.error,
            tasks=outcome.tasks,
            cluster_metrics=metrics,
            load_driver=outcome.load_driver,
        )
        result = attach_telemetry(result, telemetry.stop())
    except EsbenchError:
        # Nothing was measured (unreachable cluster, a task that cannot run): leave no empty race behind.
        race_log.discard()
        _remove_if_empty(race_dir)
        raise
    except KeyboardInterrupt:
        result = base_result(status=STATUS_INTERRUPTED, error="interrupted by the user (Ctrl-C)")
        if telemetry is not None:
            result = attach_telemetry(result, telemetry.stop())
        race_log.finish(result)
        _finish(result, race_dir, settings, console)
        raise UserInterrupted(f"Race {race_id} was interrupted; what it measured is stored.") from None
    finally:
        if cluster is not None:
            console.info("Stopping the cluster...")
            cluster.stop(preserve_install=settings.provision.preserve_install)

    race_log.finish(result)
    _finish(result, race_dir, settings, console)
    return result


def _track_source(
    settings: RaceSettings, pipeline: str
) -> tuple[Path | None, TrackRepository | None, TargetDistribution | None]:
    """The track directory and repository of a named track, and the target cluster's product and
    version if they had to be asked for (the race's connection reuses them instead of asking again)."""
    # A named track that is neither built in nor a user track comes from a track repository, on the
    # branch for the version to provision or of the target cluster (Rally's rule).
    if settings.track or not settings.track_name:
        return None, None, None
    probed: list[TargetDistribution] = []

    def version() -> str | None:
        if pipeline == PIPELINE_FROM_DISTRIBUTION:
            return settings.provision.distribution_version
        # GET / only: the stats snapshot and health check wait for the race's own connection.
        probed.append(asyncio.run(_detect(settings.target_hosts, settings)))
        return probed[-1].version

    track_dir, repository = settings.track_source.resolve(
        settings.track_name, offline=settings.offline, distribution_version=version
    )
    return track_dir, repository, probed[-1] if probed else None


def _start_telemetry(
    settings: RaceSettings,
    hosts: tuple[str, ...],
    race_dir: Path,
    track: Track,
    cluster: ProvisionedCluster | None,
) -> TelemetrySession:
    # The devices sample in their own thread from before the first task until after the last one.
    return start_telemetry(
        settings.telemetry,
        client_factory=lambda: _admin_client(hosts, settings),
        race_dir=race_dir,
        index_names=[i.name for i in track.indices],
        data_stream_names=[d.name for d in track.data_streams],
        nodes=provisioned_nodes(cluster),
    )


def _stop_telemetry(telemetry: TelemetrySession, console: Console) -> TelemetryResult:
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


def _prepare_corpora(
    track: Track, challenge: Challenge, settings: RaceSettings, console: Console
) -> CorpusSet | None:
    # Corpora are prepared only when the challenge runs a task that reads one.
    if not corpora_read(track, challenge.tasks()):
        return None
    return prepare_corpora(track, offline=settings.offline, progress=console.progress)


def _connect(
    hosts: tuple[str, ...], settings: RaceSettings, known: TargetDistribution | None = None
) -> tuple[ClusterInfo, ClusterStatsSnapshot | None]:
    """Check that the cluster answers; return its version and node count and a stats snapshot.

    ``known`` is the product and version already detected at ``hosts`` in this race (then not
    asked again).

    Raises:
        ConnectionFailed: the hosts are unreachable or reject the credentials.
    """

    async def probe() -> tuple[ClusterInfo, ClusterStatsSnapshot | None]:
        # The product decides the media types the client API may send, so it is asked first,
        # through the raw HTTP path that both products accept.
        target = known or await _detect(hosts, settings)
        options = replace(
            settings.client_options,
            distribution_flavor=target.flavor.value,
            distribution_version=target.version,
        )
        es = create_client(ConnectionSettings.create(hosts, options))
        try:
            try:
                health = await es.cluster.health()
            except Exception as e:  # translated into one user-facing error
                raise ConnectionFailed(unreachable_message(hosts, e, settings.client_options), cause=e) from e
            snapshot = await take_cluster_snapshot(es)
            info = ClusterInfo(
                version=target.version, nodes=health.body.get("number_of_nodes"), flavor=target.flavor.value
            )
            return info, snapshot
        finally:
            await es.close()

    return asyncio.run(probe())


async def _detect(hosts: tuple[str, ...], settings: RaceSettings) -> TargetDistribution:
    es = _admin_client(hosts, settings)
    try:
        return await detect_distribution(es.http)
    except (TargetHttpError, elastic_transport.TransportError) as e:
        raise ConnectionFailed(unreachable_message(hosts, e, settings.client_options), cause=e) from e
    finally:
        await es.close()


def _admin_client(hosts: tuple[str, ...], settings: RaceSettings) -> EsbenchClient:
    return create_client(ConnectionSettings.create(hosts, settings.client_options))


def _snapshot(hosts: tuple[str, ...], settings: RaceSettings) -> ClusterStatsSnapshot | None:
    async def take() -> ClusterStatsSnapshot:
        es = _admin_client(hosts, settings)
        try:
            return await take_cluster_snapshot(es)
        finally:
            await es.close()

    try:
        return asyncio.run(take())
    except Exception:  # a lost node must not lose the race's measurements
        logger.warning("could not take the final cluster snapshot", exc_info=True)
        return None


def _drive(
    track: Track,
    challenge: Challenge,
    hosts: tuple[str, ...],
    settings: RaceSettings,
    corpora: CorpusSet | None,
    console: Console,
    registry: Registry | None = None,
) -> DriverOutcome:
    with LiveProgress(console) as progress:
        return run_challenge(
            track=track,
            challenge=challenge,
            hosts=hosts,
            client_options=settings.client_options,
            # Rally's test mode does not pause between tasks.
            settings=(
                replace(settings.driver, task_pause_s=0.0)
                if settings.test_mode and settings.driver.task_pause_s is None
                else settings.driver
            ),
            corpora=corpora,
            registry=registry,
            progress=progress,
        )


def _finish(result: RaceResult, race_dir: Path, settings: RaceSettings, console: Console) -> None:
    """Persist and report a race; each step is attempted even if an earlier one failed."""
    write_results_file(result, race_dir / "results.json")
    try:
        ResultsStore.open().save(result)
    except EsbenchError as e:
        console.warn(f"The race was not added to the results store: {e} Its results are in {race_dir}.")
    if settings.metrics_store:
        _export(result, settings.metrics_store, console)
    if settings.report.fmt in GRAPHIC_FORMATS:
        _write_graphic_report(result, race_dir, settings, console)
        # The file is for a browser; the terminal still gets the summary a race always prints.
        print(render_summary(result, show_processing_time=settings.report.show_processing_time))
    else:
        report = render_summary(
            result, fmt=settings.report.fmt, show_processing_time=settings.report.show_processing_time
        )
        if settings.report.file is not None:
            settings.report.file.parent.mkdir(parents=True, exist_ok=True)
            text = report + ("" if report.endswith("\n") else "\n")
            settings.report.file.write_text(text, encoding="utf-8")
            console.info(f"Report written to {settings.report.file}")
        else:
            print(report)
    # [SUCCESS] only when every task measured something and none failed on every request.
    problems = race_problems(result)
    line = f"{last_line_status(result.status, problems)} race {result.race_id} "
    line += f"({result.duration_s:.1f} s); results in {race_dir}"
    if problems and result.status == STATUS_COMPLETED:
        console.warn(line.removeprefix("[WARNING] "))
    else:
        console.info(line)


def _write_graphic_report(
    result: RaceResult, race_dir: Path, settings: RaceSettings, console: Console
) -> None:
    """``--report-format=html|png``: the file goes to ``--report-file`` or ``race_dir/report.html|png``."""
    from esbench.reporting.html import write_race_report

    report = settings.report
    path = report.file or race_dir / f"report.{report.fmt}"
    try:
        write_race_report(result, fmt=report.fmt, path=path, show_processing_time=report.show_processing_time)
    except EsbenchError as e:
        console.warn(f"The {report.fmt} report was not written: {e}")
        return
    console.info(f"Report written to {path}")


def _export(result: RaceResult, metrics_store: str, console: Console) -> None:
    from esbench.results.es_export import export_race

    try:
        export_race(result, metrics_store)
    except EsbenchError as e:
        console.warn(f"Export to the metrics store failed: {e}")
