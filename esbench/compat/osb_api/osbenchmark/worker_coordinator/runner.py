"""OSB's ``osbenchmark.worker_coordinator.runner`` (2.4.0): Rally's runner base classes and the
built-in runner classes plugins wrap (``PutSettings``, ``Query``...), from the ``esrally``
stand-in (``esrally.driver.runner``)."""

from __future__ import annotations

from typing import Any

from esrally.driver import runner as _rally_runner
from esrally.driver.runner import Delegator, Retry, Runner, runner_for, unwrap

__all__ = ["Delegator", "Retry", "Runner", "runner_for", "unwrap"]


def __getattr__(name: str) -> Any:
    try:
        return getattr(_rally_runner, name)
    except AttributeError:
        raise AttributeError(
            f"module 'osbenchmark.worker_coordinator.runner' has no attribute '{name}'"
        ) from None
