"""The ``runner`` section of an INFINI Loadgen configuration (YAML or DSL) as esbench options.

Every key of Loadgen's ``RunnerConfig`` (``domain.go``) is accepted; what Loadgen does with it
(``loader.go``, ``main.go``) and what esbench does:

==================================  ======================================================
``total_rounds``                    rounds of the requests per client; with it the requests
                                    run one after the other, in file order (an API test)
``no_warm``                         false: one warm-up round (each request once, not
                                    measured) before the run
``valid_status_codes_during_warmup`` statuses the warm-up round accepts; another status of
                                    400 or more stops the run (Loadgen asks on the terminal)
``assert_invalid``                  exit 1 when an assertion failed (Loadgen's exit code)
``continue_on_assert_invalid``      with ``assert_invalid``: go on after a failed assertion
                                    (off: the first one ends the run)
``skip_invalid_assert``             an assertion that cannot be built is skipped with a
                                    warning instead of being an error
``assert_error``                    exit 2 when a request failed without a response
                                    (connection, timeout: Loadgen's "errors")
``log_requests``                    log every request and response (first 512 characters)
                                    to the race log
``log_status_codes``                the same for responses with these statuses
``benchmark_only``                  assertions are not checked
``reset_context``                   nothing to do: every esbench run starts with fresh
                                    sequences and variables
``duration_in_us``, ``no_stats``,   Loadgen's console and statsd output only: esbench records
``no_size_stats``,                  every sample with its sizes and reports all of them
``metric_sample_size``
``default_endpoint``,               see :mod:`esbench.adhoc.loadgen`
``default_basic_auth``,
``disable_header_names_normalizing``
==================================  ======================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from esbench.exceptions import ConfigError

_FLAGS = (
    "no_warm",
    "assert_invalid",
    "continue_on_assert_invalid",
    "skip_invalid_assert",
    "assert_error",
    "log_requests",
    "benchmark_only",
    "reset_context",
    "duration_in_us",
    "no_stats",
    "no_size_stats",
    "disable_header_names_normalizing",
)


@dataclass(frozen=True, kw_only=True)
class RunnerOptions:
    """What esbench does with Loadgen's ``runner`` section (see module doc).

    Attributes:
        total_rounds: rounds per client, or None (run for the duration).
        warm_round: run a warm-up round first (``no_warm: false``, Loadgen's default).
        warmup_valid_statuses: statuses the warm-up round accepts besides those below 400.
        assert_invalid / assert_error / continue_on_assert_invalid / skip_invalid_assert /
        benchmark_only / log_requests: Loadgen's switches of the same names.
        log_statuses: statuses whose requests and responses are logged.
    """

    total_rounds: int | None = None
    warm_round: bool = False
    warmup_valid_statuses: frozenset[int] = frozenset()
    assert_invalid: bool = False
    assert_error: bool = False
    continue_on_assert_invalid: bool = False
    skip_invalid_assert: bool = False
    benchmark_only: bool = False
    log_requests: bool = False
    log_statuses: frozenset[int] = frozenset()

    @property
    def assertion_ends_race(self) -> bool:
        """A failed assertion stops the run (``assert_invalid`` without ``continue_on_assert_invalid``)."""
        return self.assert_invalid and not self.continue_on_assert_invalid


def _flag(runner: Mapping[str, object], key: str, where: str) -> bool:
    value = runner.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: runner.{key} must be true or false, got {value!r}.")
    return value


def _statuses(runner: Mapping[str, object], key: str, where: str) -> frozenset[int]:
    value = runner.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ConfigError(f"{where}: runner.{key} must be a list of HTTP statuses, e.g. [200, 404].")
    return frozenset(value)


def _count(runner: Mapping[str, object], key: str, where: str) -> int | None:
    value = runner.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(f"{where}: runner.{key} must be a whole number, got {value!r}.")
    return value if value > 0 else None  # Loadgen: 0 or less = no limit


def runner_options(runner: Mapping[str, object], *, where: str) -> RunnerOptions:
    """The :class:`RunnerOptions` of a ``runner`` mapping whose keys were checked already.

    Raises:
        ConfigError: a switch that is not true/false, a status list that is not a list of
            integers, a count that is not a whole number.
    """
    flags = {key: _flag(runner, key, where) for key in _FLAGS}
    _count(runner, "metric_sample_size", where)
    return RunnerOptions(
        total_rounds=_count(runner, "total_rounds", where),
        # Loadgen's default (NoWarm false) is a warm-up round.
        warm_round=not flags["no_warm"],
        warmup_valid_statuses=_statuses(runner, "valid_status_codes_during_warmup", where),
        assert_invalid=flags["assert_invalid"],
        assert_error=flags["assert_error"],
        continue_on_assert_invalid=flags["continue_on_assert_invalid"],
        skip_invalid_assert=flags["skip_invalid_assert"],
        benchmark_only=flags["benchmark_only"],
        log_requests=flags["log_requests"],
        log_statuses=_statuses(runner, "log_status_codes", where),
    )
