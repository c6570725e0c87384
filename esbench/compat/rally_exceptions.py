"""Rally's exception types (``esrally/exceptions.py``, Rally 2.13) as esbench errors.

Every class keeps Rally's name, base-class chain and ``(message, cause=None)`` constructor, and is
also a subclass of the :class:`esbench.exceptions.EsbenchError` a user would expect, so an error a
plugin raises on purpose (``TrackConfigError("...")``) is reported like any esbench error: one
paragraph, exit code 64. ``full_message`` is Rally's (the message plus nested causes).
"""

from __future__ import annotations

from esbench import exceptions as esb


class RallyError(esb.EsbenchError):
    """Rally's base class of all Rally exceptions (an :class:`esbench.exceptions.EsbenchError`)."""

    @property
    def full_message(self) -> str:
        msg = str(self.message)
        nesting = 0
        current = getattr(self, "cause", None)
        while current:
            nesting += 1
            msg += "\n" + "\t" * nesting + str(getattr(current, "message", current))
            current = getattr(current, "cause", None)
        return msg


class LaunchError(RallyError, esb.LaunchError):
    """Rally: the benchmark candidate could not be launched."""


class SystemSetupError(RallyError, esb.ConfigError):
    """Rally: a problem with the setup (configuration, missing tools)."""


class RallyAssertionError(RallyError, esb.DriverError):
    """Rally: an assertion of the load driver failed (e.g. a request failed with ``--on-error=abort``)."""


class RallyTaskAssertionError(RallyAssertionError):
    """Rally: a task's ``assertions`` did not hold."""


class ConfigError(RallyError, esb.ConfigError):
    """Rally: a configuration problem."""


class DataError(RallyError, esb.DataError):
    """Rally: a problem with benchmark data (corpus missing or corrupt)."""


class SupplyError(RallyError, esb.SupplyError):
    """Rally: the distribution could not be supplied."""


class BuildError(RallyError, esb.ProvisionError):
    """Rally: building from sources failed."""


class InvalidSyntax(RallyError, esb.TrackSyntaxError):
    """Rally: invalid syntax (track files, task specs)."""


class InvalidName(RallyError, esb.UserError):
    """Rally: an invalid name."""


class TrackConfigError(RallyError, esb.TrackError):
    """Rally: the track (or its plugin) is misconfigured."""


class NotFound(RallyError, esb.NotFound):
    """Rally: something was not found."""


class UserInterrupted(RallyError, esb.UserInterrupted):
    """Rally: the user interrupted Rally."""
