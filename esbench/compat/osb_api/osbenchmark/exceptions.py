"""OSB's ``osbenchmark.exceptions`` (2.4.0): OSB's names for Rally's exception types.

OSB renamed ``RallyError`` to ``BenchmarkError`` (and the assertion and track errors with it) and
added a few of its own. The renamed ones are the same classes as the ``esrally`` stand-in's, so an
error raised by esbench's implementation of a plugin API function is caught by a plugin's
``except osbenchmark.exceptions.DataError``; each is also the :class:`esbench.exceptions.EsbenchError`
a user would expect (one paragraph, exit code 64).
"""

from __future__ import annotations

from esbench.compat.rally_exceptions import (
    BuildError,
    ConfigError,
    DataError,
    InvalidName,
    InvalidSyntax,
    LaunchError,
    NotFound,
    SupplyError,
    SystemSetupError,
)
from esbench.compat.rally_exceptions import RallyAssertionError as BenchmarkAssertionError
from esbench.compat.rally_exceptions import RallyError as BenchmarkError
from esbench.compat.rally_exceptions import RallyTaskAssertionError as BenchmarkTaskAssertionError
from esbench.compat.rally_exceptions import TrackConfigError as WorkloadConfigError


class InstallError(BenchmarkError):
    """OSB: installing the benchmark candidate failed."""


class ExecutorError(BenchmarkError):
    """OSB: a problem of the load generator's executor."""


class InvalidExtensionException(BenchmarkError):
    """OSB: a data file with an extension OSB does not read."""


class ConfigurationError(BenchmarkError):
    """OSB: an invalid configuration."""


class DataStreamingError(BenchmarkError):
    """OSB: a problem with streaming ingestion."""


class MappingsError(BenchmarkError):
    """OSB: a problem with index mappings (synthetic data generation)."""


__all__ = [
    "BenchmarkAssertionError",
    "BenchmarkError",
    "BenchmarkTaskAssertionError",
    "BuildError",
    "ConfigError",
    "ConfigurationError",
    "DataError",
    "DataStreamingError",
    "ExecutorError",
    "InstallError",
    "InvalidExtensionException",
    "InvalidName",
    "InvalidSyntax",
    "LaunchError",
    "MappingsError",
    "NotFound",
    "SupplyError",
    "SystemSetupError",
    "WorkloadConfigError",
]
