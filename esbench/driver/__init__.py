"""The load driver: scheduling, load generation and measurement (see docs/driver.md).

Public entry points: :func:`run_challenge` with :class:`DriverSettings`, :class:`ClientOptions`
(:func:`parse_client_options`) and :class:`Registry` (:func:`default_registry`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from esbench.lazy import lazy_exports

_EXPORTS = {
    "ClientOptions": "esbench.driver.client",
    "parse_client_options": "esbench.driver.client",
    "DriverOutcome": "esbench.driver.driver",
    "DriverSettings": "esbench.driver.driver",
    "Progress": "esbench.driver.driver",
    "run_challenge": "esbench.driver.driver",
    "Registry": "esbench.driver.registry",
    "default_registry": "esbench.driver.registry",
    "RunnerResult": "esbench.driver.runners.base",
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
    from esbench.driver.client import ClientOptions, parse_client_options
    from esbench.driver.driver import DriverOutcome, DriverSettings, Progress, run_challenge
    from esbench.driver.registry import Registry, default_registry
    from esbench.driver.runners.base import RunnerResult

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
