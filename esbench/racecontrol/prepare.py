"""Stage 1 of a race: prepare the track.

From the race settings to a loaded track ready to race: its source resolved (a repository track is
checked out on the branch for the cluster's version), the track loaded with its params, its
plugins' registry made, the task overrides applied, the challenge chosen and the corpora it reads
prepared. Nothing here touches the cluster except a repository track's version probe (GET /), which
the connection stage reuses.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from esbench.compat import RallyPluginHost
from esbench.console import Console
from esbench.corpus import CorpusSet, corpora_read, prepare_corpora
from esbench.driver.coordinator.filters import filter_schedule
from esbench.driver.transport.target import TargetDistribution
from esbench.driver.worker.registry import Registry, prepare_race, race_registry
from esbench.exceptions import ConfigError, TrackError
from esbench.racecontrol.target import detect
from esbench.settings import PIPELINE_FROM_DISTRIBUTION, RaceSettings
from esbench.track import Track, load_track
from esbench.track.model import Challenge
from esbench.track.optypes import unknown_operation_types
from esbench.track.overrides import apply_task_overrides
from esbench.track.repository import TrackRepository
from esbench.track.warmup import short_bulk_warnings
from esbench.tracksource import TrackAtPath, TrackByName, TrackInMemory, source_of


@dataclass(frozen=True, kw_only=True)
class PreparedTrack:
    """A track ready to race.

    Attributes:
        track: the loaded track, after its plugins' track processors and the task overrides.
        challenge: the challenge to run (its schedule not yet filtered by ``--include-tasks``).
        registry: the race's registry of runners and param sources (the track's plugins loaded).
        corpora: the prepared corpora, or None when no task of the challenge reads one.
        repository: the track repository a named track came from, or None.
        target: the target cluster's product and version, if the repository's branch needed them.
    """

    track: Track
    challenge: Challenge
    registry: Registry | None
    corpora: CorpusSet | None
    repository: TrackRepository | None
    target: TargetDistribution | None


def prepare_track(settings: RaceSettings, pipeline: str, console: Console) -> PreparedTrack:
    """Load the track of ``settings``, choose its challenge and prepare the corpora it reads.

    Raises:
        UserError: no track, or two (:func:`esbench.tracksource.source_of`).
        EsbenchError: a track that cannot be found, loaded or checked out, an unknown challenge or
            overridden task, corpora that cannot be prepared, an unreachable cluster (the probe).
    """
    source = source_of(settings)
    track_dir, repository, target = resolve_track_source(source, settings, pipeline)
    track = _load(source, track_dir, settings)
    # One registry per race; the plugin's track processors run before the challenge is chosen.
    registry, track = prepare_race(
        track, RallyPluginHost(), randomization=settings.driver.query_randomization
    )
    track = apply_task_overrides(track, settings.challenge, settings.task_overrides)
    challenge = track.find_challenge(settings.challenge)
    check_operation_types(challenge, registry, settings)
    if challenge.user_info:
        console.info(f"[INFO] {challenge.user_info}")
    for warning in short_bulk_warnings(track, challenge):
        console.warn(warning)
    return PreparedTrack(
        track=track,
        challenge=challenge,
        registry=registry,
        corpora=_prepare_corpora(track, challenge, settings, console),
        repository=repository,
        target=target,
    )


def check_operation_types(challenge: Challenge, registry: Registry, settings: RaceSettings) -> None:
    """Refuse a race whose challenge has a task no runner serves, before anything runs.

    Rally fails only when a worker reaches such a task (esrally/driver/runner.py ``runner_for``),
    after the earlier tasks ran. The types that count are the race registry's, so types the track's
    plugins register are known here as they are in Rally; tasks that ``--include-tasks`` /
    ``--exclude-tasks`` leave out are not checked, since they do not run.

    Raises:
        ConfigError: unknown operation types (one line each, with a did-you-mean), or an invalid
            task filter.
    """
    selected = filter_schedule(
        challenge, include=settings.driver.include_tasks, exclude=settings.driver.exclude_tasks
    )
    unknown = unknown_operation_types([selected], registry.operation_types())
    if unknown:
        lines = "\n".join(u.describe() for u in unknown)
        raise ConfigError(
            f"{lines}\nFix the task's 'operation-type', or register a runner for it in the track's "
            f"track.py (registry.register_runner)."
        )


def operation_type_warnings(track: Track, challenge: str | None = None) -> list[str]:
    """``[WARNING]`` lines for ``esbench info``: the tasks (of ``challenge``, else of every
    challenge) whose operation type no runner serves, with a did-you-mean.

    The known types are the built-in ones and those the track's plugins register (track.py is
    imported and its ``register`` called, as a race does and as Rally's ``info`` loads the plugins).
    When the plugins cannot be loaded, one line says so and the types are not checked.
    """
    try:
        known = race_registry(track, RallyPluginHost()).operation_types()
    except TrackError as e:
        first = e.message.splitlines()[0]
        return [
            f"[WARNING] The track's plugins could not be loaded, so its operation types were not "
            f"checked: {first}"
        ]
    challenges = [track.find_challenge(challenge)] if challenge is not None else list(track.challenges)
    return [f"[WARNING] {u.describe()}" for u in unknown_operation_types(challenges, known)]


def resolve_track_source(
    source: TrackByName | TrackAtPath | TrackInMemory, settings: RaceSettings, pipeline: str
) -> tuple[Path | None, TrackRepository | None, TargetDistribution | None]:
    """The track directory and repository of a named track, and the target cluster's product and
    version if they had to be asked for (the race's connection reuses them instead of asking again).

    ``(None, None, None)`` for a track in memory, a track path, or a named track that is built in or
    a user track (the loader finds it by name).

    Raises:
        EsbenchError: the repository cannot be cloned or checked out; the cluster does not answer
            the version probe.
    """
    # A named track that is neither built in nor a user track comes from a track repository, on the
    # branch for the version to provision or of the target cluster (Rally's rule).
    if not isinstance(source, TrackByName):
        return None, None, None
    probed: list[TargetDistribution] = []

    def version() -> str | None:
        if pipeline == PIPELINE_FROM_DISTRIBUTION:
            return settings.provision.distribution_version
        # GET / only: the stats snapshot and health check wait for the race's own connection.
        probed.append(asyncio.run(detect(settings.target_hosts, settings)))
        return probed[-1].version

    track_dir, repository = source.repository.resolve(
        source.name, offline=settings.offline, distribution_version=version
    )
    return track_dir, repository, probed[-1] if probed else None


def _load(
    source: TrackByName | TrackAtPath | TrackInMemory, track_dir: Path | None, settings: RaceSettings
) -> Track:
    """The track of ``source``; a named track found in a repository is loaded from ``track_dir``."""
    match source:
        case TrackInMemory(track=track):
            return track
        case TrackByName(name=name):
            path, name_or_none = track_dir, None if track_dir else name
        case TrackAtPath(path=path):
            name_or_none = None
    return load_track(
        name=name_or_none, path=path, params=dict(settings.track_params), test_mode=settings.test_mode
    )


def _prepare_corpora(
    track: Track, challenge: Challenge, settings: RaceSettings, console: Console
) -> CorpusSet | None:
    # Corpora are prepared only when the challenge runs a task that reads one.
    if not corpora_read(track, challenge.tasks()):
        return None
    return prepare_corpora(track, offline=settings.offline, progress=console.progress)
