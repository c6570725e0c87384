"""The esbench error tree and the exit codes the CLI maps it to.

Every error a *user* can cause (bad option, bad track, unknown car, unreachable host...) is an
:class:`EsbenchError` subclass. The CLI prints ``str(error)`` as one paragraph and exits with
``error.exit_code`` without a traceback; anything else is a bug and gets a traceback.

::

    EsbenchError(message, cause=None)             exit 64
    ├── UserError                                 bad options or arguments
    │   ├── ConfigError                           inconsistent settings (e.g. pipeline vs hosts)
    │   └── NotFound                              unknown track / challenge / car / race id
    ├── TrackError                                a track that cannot be loaded
    │   ├── TrackSyntaxError                      invalid Jinja or JSON (file and line)
    │   ├── TrackValidationError                  schema violation (file and JSON path)
    │   └── TrackParamError                       unused or reserved --track-params
    ├── DataError                                 corpus missing, corrupt, or not downloadable
    │   └── DownloadError
    ├── ProvisionError                            cannot supply, install or start Elasticsearch
    │   ├── SupplyError                           distribution download / resolution failed
    │   ├── JavaError                             no suitable JDK
    │   └── LaunchError                           the node did not start or died
    ├── DriverError                               the load driver cannot continue
    │   ├── ConnectionFailed                      target hosts unreachable / auth rejected
    │   ├── RaceAborted                           ``--on-error=abort`` hit a failed request
    │   └── TaskAssertionFailed                   ``--enable-assertions``: a task's assertion failed
    ├── StoreError                                results store unreadable, locked or corrupt
    └── UserInterrupted                           Ctrl-C                          exit 130

Per-request Elasticsearch errors are *not* raised: the driver records them as failed samples.
"""

from __future__ import annotations

from typing import ClassVar


class EsbenchError(Exception):
    """Base class of all errors a user can cause; printed without traceback.

    Args:
        message: a complete sentence or paragraph: what is wrong, where, and how to fix it.
        cause: the underlying exception, kept for ``--verbose`` logs.
    """

    exit_code: ClassVar[int] = 64

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.cause = cause

    def __str__(self) -> str:
        return self.message


class UserError(EsbenchError):
    """Bad command line options or arguments."""


class ConfigError(UserError):
    """Settings that contradict each other or the environment."""


class NotFound(UserError):
    """An unknown name: track, challenge, car, race id, installation id."""


class TrackError(EsbenchError):
    """A track that cannot be loaded."""


class TrackSyntaxError(TrackError):
    """Invalid Jinja2 or JSON in a track file; the message names file and line."""


class TrackValidationError(TrackError):
    """A rendered track that violates the track schema; the message names file and JSON path."""


class TrackParamError(TrackError):
    """``--track-params`` that the track does not use, or that use reserved names."""


class DataError(EsbenchError):
    """A corpus file that is missing, corrupt or has the wrong size."""


class DownloadError(DataError):
    """A download that failed or could not be attempted (offline)."""


class ProvisionError(EsbenchError):
    """Elasticsearch could not be supplied, installed, started or stopped."""


class SupplyError(ProvisionError):
    """A distribution could not be resolved or downloaded."""


class JavaError(ProvisionError):
    """No JDK suitable for the Elasticsearch version was found."""


class LaunchError(ProvisionError):
    """A node failed to start or died during start; the message includes its log tail."""


class DriverError(EsbenchError):
    """The load driver cannot continue."""


class ConnectionFailed(DriverError):
    """The target hosts are unreachable or reject the credentials."""


class RaceAborted(DriverError):
    """The race was aborted because a request failed and ``--on-error=abort`` was given."""


class TaskAssertionFailed(DriverError):
    """``--enable-assertions``: a response did not satisfy one of its task's ``assertions`` (Rally's
    ``RallyTaskAssertionError``); the race ends whatever ``--on-error`` says, exit 64 as in Rally."""


class StoreError(EsbenchError):
    """The results store is unreadable, locked or corrupt."""


class UserInterrupted(EsbenchError):
    """The user pressed Ctrl-C."""

    exit_code: ClassVar[int] = 130
