"""The load driver's settings and what it reports: :class:`ClientOptions` (how clients talk to
Elasticsearch; parsed from ``--client-options`` by :mod:`esbench.driver.transport.client`),
:class:`DriverSettings`, :class:`Progress`, :class:`DriverOutcome`, and the timing constants of the
coordinator."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from esbench.exceptions import EsbenchError
from esbench.records import RaceStatus, TaskResult

if TYPE_CHECKING:
    from collections.abc import Callable

    from esbench.driver.pluginhost import PluginHost
    from esbench.records.samples import RequestSamples


class LoadDriver(StrEnum):
    """Where the load driver's workers run (``--load-driver``)."""

    LOCAL = "local"
    RAY = "ray"


#: Seconds between StartStep and the common start time: every worker must get the message and
#: start its clients before that time, also worker processes on a busy machine (a late worker
#: would start its clients behind the schedule and with a shorter time period).
START_LEAD = 0.1
#: Rally's pause between a join point and the next task (0 in test mode).
DEFAULT_TASK_PAUSE = 1.0
#: Seconds to wait for workers to report their partial results after a cancellation.
CANCEL_GRACE = 10.0


#: Rally's default client timeout in seconds.
DEFAULT_TIMEOUT = 60.0


def timeout_text(timeout: float | None) -> str:
    """The client timeout for a message: ``"60 s"``, or ``"none"`` for ``timeout:None``."""
    return "none" if timeout is None else f"{timeout:g} s"


_SECRET = "*****"


@dataclass(frozen=True, kw_only=True)
class ClientOptions:
    """How the driver talks to Elasticsearch.

    Attributes:
        timeout: client-side request timeout in seconds (Rally's default: 60); None: no timeout
            (Rally's documented ``--client-options="timeout:None"``: Rally 2.13's ``EsClientFactory``,
            ``esrally/client/factory.py``, then passes ``timeout=None`` to the client, whose
            request timeout is None, so a request waits as long as the server takes).
        use_ssl: connect with TLS (``https``) to hosts given without a scheme.
        verify_certs: verify the server certificate (default True).
        ca_certs: CA bundle file or directory for verification.
        client_cert / client_key: client certificate and key files (mutual TLS).
        basic_auth_user / basic_auth_password: basic authentication.
        api_key: API key (``id:key`` or the encoded form).
        http_compress: gzip request bodies (and accept compressed responses).
        max_connections: connections per node and client (default: elasticsearch-py's).
        distribution_flavor / distribution_version: the target's product (``elasticsearch`` or
            ``opensearch``) and version as detected by :mod:`esbench.driver.transport.target`; set by race
            control, not by ``--client-options``. They decide the media types the client API sends.
    """

    timeout: float | None = DEFAULT_TIMEOUT
    use_ssl: bool = False
    verify_certs: bool = True
    ca_certs: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    basic_auth_user: str | None = None
    basic_auth_password: str | None = field(default=None, repr=False)
    api_key: str | None = field(default=None, repr=False)
    http_compress: bool = False
    max_connections: int | None = None
    distribution_flavor: str | None = None
    distribution_version: str | None = None

    def __str__(self) -> str:
        return repr(self)

    def describe(self) -> dict[str, Any]:
        """The options as a dict safe to show or store: secrets replaced by ``*****``."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for secret in ("basic_auth_password", "api_key"):
            if out[secret] is not None:
                out[secret] = _SECRET
        return out


class OnError(StrEnum):
    """``--on-error``: what a failed request does to the race (Rally's ``--on-error``)."""

    #: Record the failed request and go on; connection errors included (docs/driver.md).
    CONTINUE = "continue"
    #: Stop the race at the first failed request.
    ABORT = "abort"
    #: Rally 2.13's spelling for "go on after connection errors too" (esrally ``driver.py``
    #: ``execute_single``): accepted so that Rally command lines run unchanged, and the same as
    #: ``continue`` here, which already records a refused or reset connection and goes on.
    CONTINUE_ON_NETWORK = "continue-on-network"


@dataclass(frozen=True, kw_only=True)
class ClusterTarget:
    """A cluster of a multi-cluster race other than ``default`` (Rally's ``--target-hosts`` and
    ``--client-options`` as JSON objects keyed by cluster name; ``esrally/utils/opts.py``).

    Attributes:
        name: the cluster's name in those objects (``remote``, ``follower``...).
        hosts: its ``HOST:PORT`` strings or URLs.
        options: its client options.
    """

    name: str
    hosts: tuple[str, ...]
    options: ClientOptions = field(default_factory=ClientOptions)


@dataclass(frozen=True, kw_only=True)
class QueryRandomization:
    """OSB's query randomization (``--randomization-enabled``; see
    :mod:`esbench.driver.worker.params.randomized`). Defaults are OSB 2.4.0's
    (``QueryRandomizerWorkloadProcessor``).

    Attributes:
        repeat_frequency: probability (0..1) that a request reuses one of the standard values.
        n: standard values drawn per range field at load time.
        alpha: exponent of the Zipf distribution the reused value's index is drawn from.
    """

    repeat_frequency: float = 0.3
    n: int = 5000
    alpha: float = 1.0


@dataclass(frozen=True, kw_only=True)
class DriverSettings:
    """Load-driver settings.

    Attributes:
        on_error: ``continue`` (record failed requests and go on) or ``abort`` (stop the race at
            the first failed request).
        include_tasks / exclude_tasks: task filters (``name``, ``type:<op-type>``, ``tag:<tag>``).
        workers: worker processes; None = one per core. Never more than a step's clients.
            0 runs one worker in a thread of the calling process (tests, debugging).
        task_pause_s: pause between a join point and the next task; None = Rally's 1 s (race
            control passes 0 in test mode: test mode itself lives in ``RaceSettings``).
        progress_interval_s: seconds between progress callbacks.
        seed: seed of the random schedules (``poisson``); None = a random seed, logged and
            returned in :class:`DriverOutcome` so that a race's arrivals can be repeated.
        load_driver: ``local``, ``ray`` or None (local unless ``load_driver_hosts`` names other
            hosts); see :mod:`esbench.driver.coordinator.pools.factory`.
        ray_address: ``HOST:PORT`` of the Ray head; None = ``RAY_ADDRESS``, else a local Ray.
        load_driver_hosts: Rally's ``--load-driver-hosts``: the Ray nodes that run workers.
        plugins: loads the track's plugins when :func:`run_challenge` builds the registry (none is
            given), e.g. :class:`esbench.compat.RallyPluginHost` (race control builds the registry
            itself with the same host, ``prepare_race``). None: a track with a plugin is refused.
        profiling: profile each worker process with :mod:`cProfile` (Rally's
            ``--enable-driver-profiling``); the profiles go beside the race log
            (:func:`esbench.driver.worker.process.worker_main`).
        sample_sink: with a metrics store, called once per task at its join point with the
            task's per-request samples (the workers keep them only then); it must not raise.
        enable_assertions: Rally's ``--enable-assertions``: check the tasks' ``assertions`` on
            their responses; the first that fails ends the race
            (:mod:`esbench.driver.worker.runners.asserting`).
        other_clusters: the clusters besides the benchmark target (``default``) of a multi-cluster
            race; a track plugin's runner that declares ``multi_cluster`` gets a client of each.
        query_randomization: OSB's query randomization (``--randomization-enabled``); None: off.
    """

    on_error: OnError = OnError.CONTINUE
    include_tasks: tuple[str, ...] = ()
    exclude_tasks: tuple[str, ...] = ()
    workers: int | None = None
    task_pause_s: float | None = None
    progress_interval_s: float = 1.0
    seed: int | None = None
    load_driver: LoadDriver | None = None
    ray_address: str | None = None
    load_driver_hosts: tuple[str, ...] = ()
    plugins: PluginHost | None = None
    profiling: bool = False
    sample_sink: Callable[[RequestSamples], None] | None = field(default=None, compare=False)
    enable_assertions: bool = False
    other_clusters: tuple[ClusterTarget, ...] = ()
    query_randomization: QueryRandomization | None = None


@dataclass(frozen=True, kw_only=True)
class Progress:
    """A live progress report of one running task.

    Attributes:
        task: task name.
        percent_done: 0-100, or None when the task ends by itself at an unknown point.
        elapsed_s: seconds since the task's step started.
        throughput: weight per second over the last progress interval (warmup included).
        unit: throughput unit (``ops/s``, ``docs/s``...).
        samples: requests so far; errors: failed requests so far.
        waiting: why a client of the task keeps retrying an operation (e.g. ``cluster-health``
            below the wanted status), None if none does (:mod:`esbench.driver.worker.waits`).
    """

    task: str
    percent_done: float | None
    elapsed_s: float
    throughput: float | None
    unit: str
    samples: int = 0
    errors: int = 0
    waiting: str | None = None


@dataclass(frozen=True, kw_only=True)
class DriverOutcome:
    """What :func:`run_challenge` returns.

    Attributes:
        tasks: results of every task that started, in schedule order.
        status: ``completed``, ``failed`` or ``interrupted``.
        error: the message of what stopped the race, or None.
        exception: the esbench exception behind ``error`` (e.g. ``RaceAborted``), to re-raise.
        seed: the seed of the random schedules (``DriverSettings.seed`` or the drawn one).
        load_driver: where the workers ran, for ``results.json``: ``backend``, ``workers`` (see
            :class:`~esbench.driver.coordinator.pools.base.WorkerPlacement`) and ``clients`` (task -> host ->
            client indexes within the task); empty if no worker started.
    """

    tasks: tuple[TaskResult, ...]
    status: RaceStatus
    error: str | None = None
    exception: EsbenchError | None = field(default=None, compare=False, repr=False)
    seed: int | None = None
    load_driver: dict[str, Any] = field(default_factory=dict)
