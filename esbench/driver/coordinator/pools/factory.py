"""Pick the worker pool of a race from ``--load-driver``, ``--ray-address`` and ``--load-driver-hosts``.

``--load-driver-hosts`` is Rally's option: the hosts that run load-driver workers (Rally's default
``localhost``; Rally needs its daemon on each). esbench maps it onto Ray: the listed hosts must be
nodes of the Ray cluster and only they run workers. Given alone with any host that is not this
machine's loopback name, it selects ``--load-driver=ray`` (a Rally command line keeps working);
``localhost``/``127.0.0.1`` alone keep the local pool. With Ray, every listed host is matched
against the nodes' IP addresses (names are resolved first).
"""

from __future__ import annotations

from collections.abc import Sequence

from esbench.driver.coordinator.pools.base import LoadDriver, WorkerPool
from esbench.exceptions import ConfigError

#: ``--load-driver-hosts`` values that mean "this host" (Rally's default is ``localhost``).
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def resolve_load_driver(load_driver: str | None, hosts: Sequence[str]) -> LoadDriver:
    """The backend for ``--load-driver`` (None = not given) and ``--load-driver-hosts``.

    Raises:
        esbench.exceptions.ConfigError: an unknown backend, or remote hosts with ``local``.
    """
    remote = [h for h in hosts if h not in LOCAL_HOSTS]
    if load_driver is None:
        return LoadDriver.RAY if remote else LoadDriver.LOCAL
    try:
        kind = LoadDriver(load_driver)
    except ValueError:
        choices = ", ".join(k.value for k in LoadDriver)
        raise ConfigError(f"--load-driver: '{load_driver}' is not one of {choices}.") from None
    if kind is LoadDriver.LOCAL and remote:
        raise ConfigError(
            f"--load-driver-hosts names other hosts ({', '.join(remote)}) but --load-driver=local runs "
            f"on this host only. Use --load-driver=ray with a Ray cluster spanning those hosts (see "
            f"docs/distributed.md), or drop --load-driver-hosts."
        )
    return kind


def create_pool(
    *,
    load_driver: str | None,
    ray_address: str | None,
    load_driver_hosts: Sequence[str],
    workers: int | None,
    thread_kwargs: dict[str, object] | None = None,
) -> WorkerPool:
    """The worker pool for a race (see the module doc).

    Args:
        workers: worker count (``--load-driver-workers``); None = one per core (per CPU of the Ray
            nodes); 0 = one worker thread in this process (local only).
        thread_kwargs: ``WorkerRuntime`` keyword arguments of an in-process worker thread.

    Raises:
        esbench.exceptions.ConfigError: conflicting options, or Ray is not installed.
    """
    kind = resolve_load_driver(load_driver, load_driver_hosts)
    if kind is LoadDriver.LOCAL:
        if ray_address:
            raise ConfigError("--ray-address is only used with --load-driver=ray.")
        from esbench.driver.coordinator.pools.local import LocalPool

        return LocalPool(workers, thread_kwargs=thread_kwargs)
    if workers == 0:
        raise ConfigError(
            "--load-driver=ray runs workers as Ray actors; an in-process worker (workers=0) is local only."
        )
    from esbench.driver.coordinator.pools.ray_pool import RayPool

    return RayPool(address=ray_address, hosts=load_driver_hosts, workers=workers)
