"""What a worker reports when a step fails: the error that ends the race, as a message that pickles
across the worker's pipe (the coordinator turns it back into the esbench error of the same name,
``esbench.driver.coordinator.steps.worker_exception``)."""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from esbench.exceptions import EsbenchError


@dataclass(frozen=True, slots=True)
class WorkerError:
    """An error that ends the race: the esbench exception class name and its message."""

    kind: str
    message: str


def as_worker_error(exc: BaseException) -> WorkerError:
    """The error to report for an exception raised while running a step."""
    if isinstance(exc, EsbenchError):
        return WorkerError(kind=type(exc).__name__, message=str(exc))
    tb = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return WorkerError(kind="DriverError", message=f"Unexpected error in the load driver: {tb}")
