"""Whether a stored race may stand for a point of a planning procedure: is its definition identical?

The sweep id (:func:`esbench.planning.dimensions.sweep_id`, a user tag) already covers the track's
name or path, the challenge, the task overrides, the track params, the target hosts and the
provisioning settings. What the id cannot know before a race runs is compared here, race by race
(docs/planning.md, "Reusing races"):

- the track as it would be raced now: its fingerprint (:mod:`esbench.track.fingerprint`: rendered
  content, track params, plugin and other files);
- the cluster's product and version as measured (benchmark-only: asked from the target hosts once
  per procedure; from-distribution: the product and version to provision);
- esbench's major version (a new major may measure differently).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

from esbench.records import RaceResult
from esbench.settings import RaceSettings
from esbench.version import __version__


def major(version: str | None) -> str:
    """The major part of a version string (``"0.1.0" -> "0"``; ``""`` for None)."""
    return (version or "").split(".", 1)[0]


@dataclass(frozen=True, kw_only=True)
class RaceDefinition:
    """What a point's race would be now, beyond its sweep id.

    Attributes:
        track_fingerprint: :attr:`esbench.track.model.Track.fingerprint` of the track as loaded now.
        cluster_flavor / cluster_version: product (``elasticsearch``/``opensearch``) and version.
        esbench_major: major version of this esbench.
    """

    track_fingerprint: str
    cluster_flavor: str | None
    cluster_version: str | None
    esbench_major: str = field(default_factory=lambda: major(__version__))

    def differences(self, race: RaceResult) -> list[str]:
        """Why ``race`` is not this definition (empty when it is), in words for the console."""
        out = []
        if race.track_fingerprint is None:
            out.append("it was stored without a track fingerprint (an older esbench)")
        elif race.track_fingerprint != self.track_fingerprint:
            out.append("the track changed since (content, track params or plugin files)")
        then = (race.cluster_flavor or "elasticsearch", race.cluster_version)
        now = (self.cluster_flavor or "elasticsearch", self.cluster_version)
        if then != now:
            out.append(f"it ran against {then[0]} {then[1]}, the cluster is now {now[0]} {now[1]}")
        if major(race.esbench_version) != self.esbench_major:
            out.append(f"it ran with esbench {race.esbench_version}, this is {__version__}")
        return out


class DefinitionProbe:
    """Computes the :class:`RaceDefinition` of a point's settings: loads the track (cached by its
    params and test mode) and learns the cluster's product and version once.

    Raises (from ``__call__``):
        EsbenchError: the track cannot be loaded or the target hosts do not answer.
    """

    def __init__(self) -> None:
        self._cluster: tuple[str | None, str | None] | None = None
        self._track_dir: tuple[Path | None] | None = None
        self._fingerprints: dict[str, str] = {}

    def __call__(self, settings: RaceSettings) -> RaceDefinition:
        flavor, version = self._cluster_of(settings)
        return RaceDefinition(
            track_fingerprint=self._fingerprint(settings, version),
            cluster_flavor=flavor,
            cluster_version=version,
        )

    def _cluster_of(self, settings: RaceSettings) -> tuple[str | None, str | None]:
        if self._cluster is None:
            from esbench.racecontrol import resolve_pipeline
            from esbench.settings import PIPELINE_FROM_DISTRIBUTION

            if resolve_pipeline(settings) == PIPELINE_FROM_DISTRIBUTION:
                prov = settings.provision
                self._cluster = (prov.distribution_flavor, prov.distribution_version)
            else:
                self._cluster = asyncio.run(_detect(settings))
        return self._cluster

    def _fingerprint(self, settings: RaceSettings, version: str | None) -> str:
        from esbench.track.loader import load_track

        key = json.dumps([dict(settings.track_params), settings.test_mode], sort_keys=True, default=str)
        if key not in self._fingerprints:
            if self._track_dir is None:
                track_dir = None
                if settings.track_name:
                    track_dir = settings.track_source.resolve(
                        settings.track_name, offline=settings.offline, distribution_version=lambda: version
                    )[0]
                self._track_dir = (track_dir,)
            track_dir = self._track_dir[0]
            track = load_track(
                name=None if track_dir else settings.track_name,
                path=track_dir or settings.track_path,
                params=dict(settings.track_params),
                test_mode=settings.test_mode,
            )
            self._fingerprints[key] = track.fingerprint
        return self._fingerprints[key]


async def _detect(settings: RaceSettings) -> tuple[str | None, str | None]:
    """The product and version at the target hosts (the race's own detection, GET / or its fallback)."""
    import elastic_transport

    from esbench.driver.transport.client import ConnectionSettings, create_client
    from esbench.driver.transport.target import TargetHttpError, detect_distribution
    from esbench.exceptions import ConnectionFailed

    es = create_client(ConnectionSettings.create(settings.target_hosts, settings.client_options))
    try:
        found = await detect_distribution(es.http)
    except (TargetHttpError, elastic_transport.TransportError) as e:
        raise ConnectionFailed(
            f"Cannot ask {', '.join(settings.target_hosts)} for its product and version, which decides "
            f"whether a stored race can be reused: {e}. Check --target-hosts, or add --fresh.",
            cause=e,
        ) from e
    finally:
        await es.close()
    return found.flavor.value, found.version
