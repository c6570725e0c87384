"""Rally's ``esrally.exceptions`` (2.13): the same names, each also an esbench error."""

from esbench.compat.rally_exceptions import (
    BuildError,
    ConfigError,
    DataError,
    InvalidName,
    InvalidSyntax,
    LaunchError,
    NotFound,
    RallyAssertionError,
    RallyError,
    RallyTaskAssertionError,
    SupplyError,
    SystemSetupError,
    TrackConfigError,
    UserInterrupted,
)

__all__ = [
    "BuildError",
    "ConfigError",
    "DataError",
    "InvalidName",
    "InvalidSyntax",
    "LaunchError",
    "NotFound",
    "RallyAssertionError",
    "RallyError",
    "RallyTaskAssertionError",
    "SupplyError",
    "SystemSetupError",
    "TrackConfigError",
    "UserInterrupted",
]
