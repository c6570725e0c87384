"""The telemetry part of a race, as :mod:`esbench.racecontrol` uses it.

:func:`start_telemetry` builds the devices of ``--telemetry`` and starts them before the first task;
:meth:`TelemetrySession.stop <esbench.telemetry.session.TelemetrySession.stop>` after the last task
(also when the race fails or is interrupted) returns what they sampled; :func:`attach_telemetry`
puts it into the :class:`~esbench.records.RaceResult`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from esbench.exceptions import ConfigError
from esbench.records import RaceResult
from esbench.telemetry.device import DeviceContext, ProvisionedNode
from esbench.telemetry.registry import create_devices
from esbench.telemetry.session import TelemetryResult, TelemetrySession
from esbench.telemetry.settings import TelemetrySettings

if TYPE_CHECKING:
    from elasticsearch import AsyncElasticsearch


def check_telemetry(settings: TelemetrySettings, *, provisioned: bool) -> None:
    """Fail before anything runs when the devices or their parameters are wrong.

    Raises:
        ConfigError: unknown device or parameter, bad parameter value, or a device that needs a
            cluster esbench provisions (``os``, ``jit``, ``gc``, ``jfr``, ``heapdump``) in a
            benchmark-only race. Rally accepts these there and silently does nothing (its
            ``benchmark-only`` pipeline starts no node, so ``mechanic/launcher.py`` never attaches
            them); esbench says so before the race instead.
    """
    devices = create_devices(settings.devices, settings.params)
    if not provisioned:
        local = [d.name for d in devices if d.provisioned_only]
        if local:
            raise ConfigError(
                f"The telemetry device(s) {', '.join(local)} work on the nodes esbench provisions on this "
                "machine (os watches their processes; jit, gc and jfr add options to their JVM at start; "
                "heapdump attaches to their JVM), but this race benchmarks an existing cluster "
                "(--pipeline=benchmark-only / --target-hosts), whose JVMs esbench neither starts nor "
                "reaches. "
                "Drop them from --telemetry, or let esbench provision the cluster (no --target-hosts); "
                "'node-stats' works for any cluster."
            )


def node_java_options(settings: TelemetrySettings, java_major: int, telemetry_dir: Path) -> tuple[str, ...]:
    """The JVM options the devices of ``settings`` add to a provisioned node (``jit``, ``gc``, ``jfr``;
    Rally's ``Telemetry.instrument_candidate_java_opts``), for a node running JDK ``java_major`` whose
    telemetry files go to ``telemetry_dir``. Race control hands this to provisioning as
    ``ProvisionSettings.node_java_options`` (provisioning does not import telemetry).

    Raises:
        ConfigError: a bad device or parameter (checked before already by :func:`check_telemetry`).
    """
    devices = create_devices(settings.devices, settings.params)
    return tuple(option for device in devices for option in device.java_options(java_major, telemetry_dir))


class _Node(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def pid(self) -> int | None: ...
    @property
    def telemetry_dir(self) -> Path: ...


class _Installation(Protocol):
    @property
    def nodes(self) -> Sequence[_Node]: ...
    @property
    def java_home(self) -> str: ...
    @property
    def run_as_user(self) -> str: ...


class RunningCluster(Protocol):
    """What telemetry reads of a provisioned cluster (:class:`esbench.provision.ProvisionedCluster`):
    its installation's JDK and account and its nodes, each with a name, a JVM pid (None when not
    running) and a telemetry directory. A protocol so
    that telemetry and provisioning stay independent stages (``.importlinter``)."""

    @property
    def installation(self) -> _Installation:
        """The nodes esbench started."""
        ...


def provisioned_nodes(cluster: RunningCluster | None) -> tuple[ProvisionedNode, ...]:
    """Every running node of a :class:`~esbench.provision.ProvisionedCluster` (none for None): name,
    JVM pid, JDK, account and telemetry directory."""
    if cluster is None:
        return ()
    installation = cluster.installation
    return tuple(
        ProvisionedNode(
            name=n.name,
            pid=n.pid,
            java_home=Path(installation.java_home),
            run_as_user=installation.run_as_user,
            telemetry_dir=n.telemetry_dir,
        )
        for n in installation.nodes
        if n.pid is not None
    )


#: The devices that sample every cluster of a multi-cluster race, the others only ``default``
#: (Rally 2.13 ``esrally/driver/driver.py`` ``prepare_telemetry`` gives ``NodeStats`` the clients of
#: all clusters; its ``recovery-stats`` and ``ccr-stats`` take per-cluster index parameters that
#: esbench's devices do not read, so they sample ``default`` alone here).
PER_CLUSTER_DEVICES = frozenset({"node-stats"})


class RaceTelemetry(Protocol):
    """What race control does with a race's telemetry once started: stop it and take the result."""

    def stop(self) -> TelemetryResult:
        """See :meth:`TelemetrySession.stop`."""
        ...


def start_telemetry(
    settings: TelemetrySettings,
    *,
    client_factory: Callable[[], AsyncElasticsearch],
    race_dir: Path,
    index_names: Sequence[str] = (),
    data_stream_names: Sequence[str] = (),
    nodes: Sequence[ProvisionedNode] = (),
    other_clusters: Mapping[str, Callable[[], AsyncElasticsearch]] | None = None,
) -> RaceTelemetry:
    """Build and start the devices of ``settings``; the caller must call ``stop()`` on the result.

    Args:
        client_factory: zero-argument callable returning an ``AsyncElasticsearch`` of the target
            (called in the sampler thread).
        race_dir: the race directory (for files devices write).
        index_names / data_stream_names: the track's (defaults of ``disk-usage-stats``).
        nodes: nodes esbench provisioned (for ``os``).
        other_clusters: the client factories of a multi-cluster race's other clusters by name;
            the :data:`PER_CLUSTER_DEVICES` of ``settings`` sample each of them too, their series
            and rows named ``CLUSTER/NODE`` (:class:`ClusterTelemetry`).

    Raises:
        EsbenchError: a device cannot start (see :meth:`TelemetrySession.start`).
    """
    default = _session(
        settings.devices, settings, client_factory, race_dir, index_names, data_stream_names, nodes
    )
    per_cluster = [d for d in settings.devices if d in PER_CLUSTER_DEVICES]
    if not other_clusters or not per_cluster:
        return default
    sessions: list[tuple[str | None, TelemetrySession]] = [(None, default)]
    try:
        for name, factory in other_clusters.items():
            sessions.append((name, _session(per_cluster, settings, factory, race_dir, (), (), ())))
    except BaseException:
        for _, started in sessions:
            started.stop()
        raise
    return ClusterTelemetry(sessions)


class ClusterTelemetry:
    """The telemetry of a multi-cluster race: one :class:`TelemetrySession` per cluster (each in its
    own sampler thread), their results joined with the other clusters' nodes named ``CLUSTER/NODE``
    (``CLUSTER`` for a cluster-wide series or row), so the report says which cluster a row is of.

    Args:
        sessions: ``(cluster name, started session)``; None names the default cluster.
    """

    def __init__(self, sessions: Sequence[tuple[str | None, TelemetrySession]]) -> None:
        self.sessions = tuple(sessions)

    def stop(self) -> TelemetryResult:
        """Stop every session; what they produced, the default cluster's first."""
        results = [(name, session.stop()) for name, session in self.sessions]
        labelled = [result if name is None else _labelled(result, name) for name, result in results]
        return TelemetryResult(
            series=tuple(s for r in labelled for s in r.series),
            metrics=tuple(m for r in labelled for m in r.metrics),
            notes=tuple(n for r in labelled for n in r.notes),
            warnings=tuple(w for r in labelled for w in r.warnings),
        )


def _labelled(result: TelemetryResult, cluster: str) -> TelemetryResult:
    return TelemetryResult(
        series=tuple(
            dataclasses.replace(s, node=f"{cluster}/{s.node}" if s.node else cluster) for s in result.series
        ),
        metrics=tuple(
            dataclasses.replace(m, task=f"{cluster}/{m.task}" if m.task else cluster) for m in result.metrics
        ),
        notes=tuple(f"Cluster '{cluster}': {n}" for n in result.notes),
        warnings=tuple(f"Cluster '{cluster}': {w}" for w in result.warnings),
    )


def _session(
    devices: Sequence[str],
    settings: TelemetrySettings,
    client_factory: Callable[[], AsyncElasticsearch],
    race_dir: Path,
    index_names: Sequence[str],
    data_stream_names: Sequence[str],
    nodes: Sequence[ProvisionedNode],
) -> TelemetrySession:
    session = TelemetrySession(
        create_devices(devices, settings.params),
        context=DeviceContext(
            race_dir=race_dir,
            index_names=tuple(index_names),
            data_stream_names=tuple(data_stream_names),
            nodes=tuple(nodes),
            load_driver_pid=os.getpid(),
        ),
        client_factory=client_factory,
    )
    session.start()
    return session


def attach_telemetry(result: RaceResult, telemetry: TelemetryResult) -> RaceResult:
    """``result`` with the sampled series and the devices' summary rows after its cluster rows."""
    if not telemetry.series and not telemetry.metrics:
        return result
    return dataclasses.replace(
        result,
        cluster_metrics=(*result.cluster_metrics, *telemetry.metrics),
        telemetry=(*result.telemetry, *telemetry.series),
    )
