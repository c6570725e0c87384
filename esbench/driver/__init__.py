"""The load driver: scheduling, load generation and measurement (see docs/driver.md).

Public entry points: :func:`run_challenge` with :class:`DriverSettings`, :class:`ClientOptions`
(:func:`parse_client_options`) and :class:`Registry` (:func:`default_registry`).
"""

from __future__ import annotations

from esbench.driver.client import ClientOptions, parse_client_options
from esbench.driver.driver import DriverOutcome, DriverSettings, Progress, run_challenge
from esbench.driver.registry import Registry, default_registry
from esbench.driver.runners.base import RunnerResult

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
