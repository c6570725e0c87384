"""Rally-shaped, mutable schedule objects for plugins: ``Operation``, ``Task``, ``Parallel`` and the
``Throughput`` tuple.

Attribute names, constructor signatures, defaults, properties and methods (``__eq__``/``__hash__``
and ``__repr__`` included) are Rally 2.13's (``esrally/track/track.py``); the track-level classes and
the conversion to and from the model are in :mod:`esbench.compat.trackview` and
:mod:`esbench.compat.trackconvert`.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, SupportsFloat, cast

from esbench.compat.corpusview import RallyRepr
from esbench.compat.rally_exceptions import InvalidSyntax
from esbench.track.values import THROUGHPUT_PATTERN

if TYPE_CHECKING:
    from esbench.track import model


class Operation(RallyRepr):
    """Rally's ``track.Operation(name, operation_type, meta_data=None, params=None, param_source=None)``."""

    def __init__(
        self,
        name: str,
        operation_type: Any,
        meta_data: Mapping[str, Any] | None = None,
        params: dict[str, Any] | None = None,
        param_source: str | None = None,
    ) -> None:
        self.name = name
        self.meta_data = dict(meta_data or {})
        hyphenated = getattr(operation_type, "to_hyphenated_string", None)
        self.type = hyphenated() if callable(hyphenated) else operation_type
        self.params = params if params is not None else {}
        self.param_source = param_source

    @property
    def include_in_reporting(self) -> bool:
        # Rally returns the param as it is (not coerced to bool).
        return cast("bool", self.params.get("include-in-reporting", True))

    @property
    def run_on_serverless(self) -> bool | None:
        return self.params.get("run-on-serverless", None)

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self.name == other.name

    def __str__(self) -> str:
        return self.name


class Task(RallyRepr):
    """Rally's ``track.Task``; ``params`` is the task's spec (``target-throughput``...)."""

    THROUGHPUT_PATTERN = THROUGHPUT_PATTERN
    IGNORE_RESPONSE_ERROR_LEVEL_WHITELIST: ClassVar[list[str]] = ["non-fatal"]

    #: The model task this view was made from (set by :mod:`esbench.compat.trackconvert`).
    _esbench_model: model.Task

    def __init__(
        self,
        name: str,
        operation: Operation,
        tags: Any = None,
        meta_data: Mapping[str, Any] | None = None,
        warmup_iterations: int | None = None,
        iterations: int | None = None,
        warmup_time_period: float | None = None,
        time_period: float | None = None,
        ramp_up_time_period: float | None = None,
        clients: int = 1,
        completes_parent: bool = False,
        any_completes_parent: bool = False,
        schedule: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.operation = operation
        self.tags = [tags] if isinstance(tags, str) else (tags if tags else [])
        self.meta_data = dict(meta_data or {})
        self.warmup_iterations = warmup_iterations
        self.iterations = iterations
        self.warmup_time_period = warmup_time_period
        self.time_period = time_period
        self.ramp_up_time_period = ramp_up_time_period
        self.clients = clients
        self.completes_parent = completes_parent
        self.any_completes_parent = any_completes_parent
        self.schedule = schedule
        self.params = params if params else {}
        self.nested = False

    @property
    def target_throughput(self) -> Any:
        """Rally's reading: ``Throughput(value, unit)`` from ``target-throughput`` or
        ``target-interval`` in ``params``, None when unthrottled."""
        throughput = self.params.get("target-throughput")
        interval = self.params.get("target-interval")
        if throughput is not None and interval is not None:
            raise InvalidSyntax(
                f"Task [{self}] specifies target-interval [{interval}] and target-throughput [{throughput}] "
                f"but only one of them is allowed."
            )
        if interval:
            if not _numeric(interval):
                raise InvalidSyntax(f"Target interval [{interval}] for task [{self}] must be numeric.")
            return RallyThroughput(1.0 / float(interval), "ops/s")
        if not throughput:
            return None
        if isinstance(throughput, str):
            m = THROUGHPUT_PATTERN.match(throughput)
            if m:
                return RallyThroughput(float(m.group("value")), m.group("unit"))
            raise InvalidSyntax(f"Task [{self}] specifies invalid target throughput [{throughput}].")
        if _numeric(throughput):
            return RallyThroughput(float(cast(SupportsFloat, throughput)), "ops/s")
        raise InvalidSyntax(f"Target throughput [{throughput}] for task [{self}] must be string or numeric.")

    @property
    def ignore_response_error_level(self) -> str | None:
        """``ignore-response-error-level`` of ``params`` (only ``non-fatal`` is allowed).

        Raises:
            InvalidSyntax: another value (Rally's error).
        """
        level = self.params.get("ignore-response-error-level")
        if level and level not in self.IGNORE_RESPONSE_ERROR_LEVEL_WHITELIST:
            raise InvalidSyntax(
                f"Task [{self}] specifies ignore-response-error-level to [{level}] but the only allowed "
                f"values are [{','.join(self.IGNORE_RESPONSE_ERROR_LEVEL_WHITELIST)}]."
            )
        return level

    def matches(self, task_filter: Any) -> bool:
        return cast("bool", task_filter.matches(self))

    def error_behavior(self, default_error_behavior: Any) -> Any:
        """Rally's rule: ``abort`` becomes ``continue`` for a ``non-fatal`` task; an unknown
        behaviour is ``continue``. Takes and returns Rally's ``OnErrorBehavior`` members or their
        string values (whichever is given)."""
        value = getattr(default_error_behavior, "value", default_error_behavior)
        if value in _ERROR_BEHAVIORS and not (
            value == "abort" and self.ignore_response_error_level == "non-fatal"
        ):
            return default_error_behavior
        if hasattr(default_error_behavior, "value"):
            return type(default_error_behavior)("continue")
        return "continue"

    def __iter__(self) -> Any:
        return iter([self])

    def _esbench_identity(self) -> tuple[Any, ...]:
        # Rally leaves params out of a task's identity.
        return (
            self.name,
            self.operation,
            self.warmup_iterations,
            self.iterations,
            self.warmup_time_period,
            self.time_period,
            self.ramp_up_time_period,
            self.clients,
            self.schedule,
            self.completes_parent,
            self.any_completes_parent,
        )

    def __hash__(self) -> int:
        return hash(self._esbench_identity())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self._esbench_identity() == other._esbench_identity()

    def __str__(self) -> str:
        return self.name


#: Rally's ``OnErrorBehavior`` values (``esrally/utils/error_behavior.py``).
_ERROR_BEHAVIORS = ("abort", "continue", "continue-on-network")


def _numeric(value: Any) -> bool:
    # Rally's rule: a number, but not a bool.
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


class RallyThroughput(tuple[Any, ...]):
    """Rally's ``Throughput`` namedtuple ``(value, unit)``."""

    def __new__(cls, value: float, unit: str) -> RallyThroughput:
        return super().__new__(cls, (value, unit))

    @property
    def value(self) -> float:
        return cast("float", self[0])

    @property
    def unit(self) -> str:
        return cast("str", self[1])


class Parallel(RallyRepr):
    """Rally's ``track.Parallel(tasks, clients=None)``."""

    def __init__(self, tasks: list[Task], clients: int | None = None) -> None:
        self.tasks = tasks
        self._clients = clients
        self.nested = True

    @property
    def clients(self) -> int:
        return self._clients if self._clients is not None else sum(t.clients for t in self.tasks)

    def matches(self, task_filter: Any) -> bool:
        return any(t.matches(task_filter) for t in self.tasks)

    def remove_task(self, task: Task) -> None:
        self.tasks.remove(task)

    def __iter__(self) -> Any:
        return iter(self.tasks)

    # Rally hashes the task list, which raises TypeError: a parallel block is not hashable there either.
    __hash__ = None  # type: ignore[assignment]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self.tasks == other.tasks

    def __str__(self) -> str:
        return f"{len(self.tasks)} parallel tasks"
