"""The telemetry device contract and what a device gets to work with.

A device is built once per race from ``--telemetry-params`` (:meth:`TelemetryDevice.__init__` checks
its parameters and raises :class:`~esbench.exceptions.ConfigError`), then driven by
:class:`esbench.telemetry.session.TelemetrySession` in the sampler thread's asyncio loop:
``start`` before the first task, ``sample`` every ``sample_interval_s`` seconds (if not None) and once
more at the end, ``stop`` after the last task. Rally's lifecycle (esrally ``telemetry.py``:
``on_benchmark_start`` / sampler thread ``record`` / ``on_benchmark_stop``).
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from esbench.exceptions import ConfigError
from esbench.records import ClusterMetric, TelemetrySeries
from esbench.telemetry.table import SampleTable

if TYPE_CHECKING:
    from elasticsearch import AsyncElasticsearch

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class ProvisionedNode:
    """A node esbench started on this machine.

    Attributes:
        name: its Elasticsearch node name (``node-0``).
        pid: its JVM's process id.
        java_home: the JDK it runs on (``heapdump`` runs that JDK's ``jmap``); None if unknown.
        run_as_user: the account that runs it (a JVM accepts attach requests from its own account
            only); None for the current account.
        telemetry_dir: the node's telemetry directory, writable by ``run_as_user`` (the JVM writes
            heap dumps, GC, JIT and flight-recorder files there); None if unknown.
    """

    name: str
    pid: int
    java_home: Path | None = None
    run_as_user: str | None = None
    telemetry_dir: Path | None = None


@dataclass(frozen=True, kw_only=True)
class DeviceContext:
    """What devices may use.

    Attributes:
        client: an ``AsyncElasticsearch`` client of the target cluster, created in the sampler
            thread's event loop (None for devices that need none).
        race_dir: the race's directory (devices that write files, e.g. ``segment-stats``).
        index_names / data_stream_names: the track's indices and data streams.
        nodes: nodes esbench provisioned (empty for benchmark-only races).
        load_driver_pid: process id of the load driver's coordinator (its worker processes are its
            children).
    """

    client: AsyncElasticsearch | None = None
    race_dir: Path | None = None
    index_names: tuple[str, ...] = ()
    data_stream_names: tuple[str, ...] = ()
    nodes: tuple[ProvisionedNode, ...] = ()
    load_driver_pid: int | None = None


@dataclass(kw_only=True)
class DeviceOutput:
    """What a device hands back at the end: series, summary rows, information and warnings for the user."""

    series: tuple[TelemetrySeries, ...] = ()
    metrics: tuple[ClusterMetric, ...] = ()
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class TelemetryDevice:
    """Base class of telemetry devices.

    Class attributes:
        name: the ``--telemetry`` name (Rally's ``command``).
        human_name / help: shown by ``esbench list telemetry``.
        params: parameter name -> default (``--telemetry-params``); the keys devices accept.
        needs_client: the device talks to the cluster's REST API.
        provisioned_only: the device needs nodes esbench provisioned on this machine.
        requires: the plugin or module the cluster needs for the device (``""``: none).
        hidden: left out of ``esbench list telemetry``, as Rally leaves it out of ``esrally list
            telemetry`` (``master-node-stats``, ``blob-store-stats``), but accepted by ``--telemetry``.
    """

    name: ClassVar[str]
    human_name: ClassVar[str]
    help: ClassVar[str]
    params: ClassVar[Mapping[str, object]] = {}
    needs_client: ClassVar[bool] = True
    provisioned_only: ClassVar[bool] = False
    hidden: ClassVar[bool] = False
    requires: ClassVar[str] = ""

    def __init__(self, params: Mapping[str, object]) -> None:
        self.settings = {key: params.get(key, default) for key, default in self.params.items()}
        self.table = SampleTable(self.name)
        self.sample_interval_s: float | None = None
        self.ctx = DeviceContext()

    def bind(self, ctx: DeviceContext) -> None:
        """Give the device its context (called in the sampler thread before :meth:`start`)."""
        self.ctx = ctx

    @property
    def client(self) -> AsyncElasticsearch:
        """The cluster client of the context (devices with ``needs_client`` get one).

        Raises:
            RuntimeError: the session bound no client (a device that declared ``needs_client = False``).
        """
        client = self.ctx.client
        if client is None:
            raise RuntimeError(f"Telemetry device {self.name} has no cluster client (needs_client is off).")
        return client

    def java_options(self, java_major: int, telemetry_dir: Path) -> tuple[str, ...]:
        """JVM options this device adds to every node esbench provisions (Rally's
        ``instrument_java_opts``), given the node's JDK major version and the directory its files go
        to; none by default. Called before the node starts, outside the sampler thread."""
        return ()

    async def start(self) -> None:
        """Before the first task (baseline readings). Raises ConfigError for an unusable target."""

    async def sample(self, timestamp: float) -> None:
        """Take one sample at ``timestamp`` (Unix epoch s) into :attr:`table`."""

    async def stop(self) -> None:
        """After the last task and the final sample."""

    def summary(self) -> tuple[ClusterMetric, ...]:
        """Summary rows for the report (after :meth:`stop`)."""
        return ()

    def output(self) -> DeviceOutput:
        """Series, summary rows, notes and warnings for the user (after :meth:`stop`)."""
        warnings = []
        if self.table.dropped_columns:
            warnings.append(
                f"Telemetry device {self.name} produced more than {self.table.max_columns} metrics; "
                f"{self.table.dropped_columns} samples of further metrics were not kept."
            )
        return DeviceOutput(series=self.table.series(), metrics=self.summary(), warnings=warnings)

    # ------------------------------------------------------------------ parameter helpers

    def positive_number(self, key: str) -> float:
        """The parameter ``key`` as a number > 0 (Rally: "must be greater than zero")."""
        value = self.settings[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise ConfigError(
                f"The telemetry parameter '{key}' must be a number greater than zero but was {value!r}. "
                f"Fix it in --telemetry-params (e.g. {key}:1)."
            )
        return float(value)

    def flag(self, key: str) -> bool:
        """The parameter ``key`` as a boolean."""
        value = self.settings[key]
        if not isinstance(value, bool):
            raise ConfigError(
                f"The telemetry parameter '{key}' must be true or false but was {value!r}. "
                f"Fix it in --telemetry-params (e.g. {key}:false)."
            )
        return value

    def name_list(self, key: str) -> tuple[str, ...]:
        """The parameter ``key`` as names: a comma-separated string or a list (Rally: ``csv_to_list``)."""
        value = self.settings[key]
        if value is None or value is False or value == "":
            return ()
        if isinstance(value, str):
            return tuple(v.strip() for v in value.split(",") if v.strip())
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return tuple(value)
        raise ConfigError(
            f"The telemetry parameter '{key}' must be a comma-separated string or a list of names but was "
            f"{value!r}. Fix it in --telemetry-params."
        )

    def cluster_name_list(self, key: str) -> tuple[str, ...]:
        """Like :meth:`name_list`, also accepting Rally's per-cluster object (``{"default": [...]}``,
        esrally ``telemetry.py`` ``CcrStats``/``TransformStats``...), of which esbench, racing one
        cluster, reads the ``default`` key.

        Raises:
            ConfigError: the object names another cluster, or a value is not names.
        """
        value = self.settings[key]
        if isinstance(value, Mapping):
            others = sorted(set(value) - {"default"})
            if others:
                raise ConfigError(
                    f"The telemetry parameter '{key}' names the clusters {others}, but esbench benchmarks "
                    "one cluster, called 'default'. Give the names as a string, a list, or under 'default'."
                )
            self.settings[key] = value.get("default", "")
        return self.name_list(key)

    def optional_text(self, key: str) -> str | None:
        """The parameter ``key`` as text, or None when not given (numbers are accepted as text:
        ``jfr-delay:60s`` and ``jfr-duration:5m`` are JVM duration strings).

        Raises:
            ConfigError: a list, object or boolean.
        """
        value = self.settings[key]
        if value is None or value == "":
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise ConfigError(
                f"The telemetry parameter '{key}' must be text but was {value!r}. "
                "Fix it in --telemetry-params."
            )
        return str(value)


def check_param_names(
    given: Mapping[str, object],
    devices: Sequence[type[TelemetryDevice]],
    known: Sequence[type[TelemetryDevice]],
) -> None:
    """Reject ``--telemetry-params`` keys that no device knows (typos would otherwise be ignored).

    Raises:
        ConfigError: names the unknown key, the closest known one, and the enabled devices.
    """
    accepted = {k for d in known for k in d.params}
    for key in given:
        if key in accepted:
            continue
        close = difflib.get_close_matches(key, sorted(accepted), n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        enabled = ", ".join(d.name for d in devices) or "none"
        raise ConfigError(
            f"Unknown telemetry parameter '{key}' in --telemetry-params.{hint} Enabled devices: {enabled}; "
            "'esbench list telemetry' lists the devices and docs/telemetry.md their parameters."
        )
