"""The load driver: scheduling, load generation and measurement (see docs/driver.md).

Public entry points: :func:`run_challenge` with :class:`DriverSettings`, :class:`ClientOptions`
(:func:`parse_client_options`) and :class:`Registry` (:func:`default_registry`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from esbench.lazy import lazy_exports

_EXPORTS = {
    "ClientOptions": "esbench.driver.transport.client",
    "parse_client_options": "esbench.driver.transport.client",
    "DriverOutcome": "esbench.driver.coordinator.run",
    "DriverSettings": "esbench.driver.coordinator.run",
    "Progress": "esbench.driver.coordinator.run",
    "run_challenge": "esbench.driver.coordinator.run",
    "Registry": "esbench.driver.worker.registry",
    "default_registry": "esbench.driver.worker.registry",
    "RunnerResult": "esbench.driver.worker.runners.base",
}

__all__ = [
    "ClientOptions",
    "DriverOutcome",
    "DriverSettings",
    "Progress",
    "Registry",
    "RunnerResult",
    "default_registry",
    "parse_client_options",
    "run_challenge",
]

if TYPE_CHECKING:
    from esbench.driver.coordinator.run import DriverOutcome, DriverSettings, Progress, run_challenge
    from esbench.driver.transport.client import ClientOptions, parse_client_options
    from esbench.driver.worker.registry import Registry, default_registry
    from esbench.driver.worker.runners.base import RunnerResult

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
