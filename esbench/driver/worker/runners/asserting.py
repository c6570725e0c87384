"""``--enable-assertions``: check a task's assertions on what its runner returns (Rally 2.13).

Rally wraps every runner in ``AssertingRunner`` (``esrally/driver/runner.py``) and checks the
``assertions`` found in the params the runner receives, so which operations are checked follows from
what their param source passes on (``esrally/track/params.py``):

* the search family (``search``, ``scroll-search``, ``paginated-search``, ``composite-agg``):
  Rally's ``SearchParamSource`` passes ``assertions`` on, without the operation's name, and refuses
  them without ``detailed-results: true`` (paginated searches excepted: their details are always
  read) with "The property [detailed-results] must be [true] if assertions are defined";
* the types whose Rally param source builds new params without ``assertions``
  (:data:`DROPPING_TYPES`: ``force-merge``, ``downsample``, creating component and composable
  templates, deleting component templates): never checked;
* every other operation (Rally's default ``ParamSource`` and the other built-in ones, ``bulk``
  and ``create-index`` among them, pass the operation's params on, ``name`` included): checked,
  and a failure names the operation (``in [NAME]``: Rally 2.13 printed "Expected [weight] in
  [load] to be > [100] but was [3]." for a bulk of 3 documents);
* an operation with a plugin's ``param-source``: whatever the source returns; checked when the
  params carry ``assertions``, naming ``name`` if they carry one;
* the items of a ``composite`` (each item's params are the item itself): checked per item.

Only when assertions are enabled and a task can carry some does its runner get wrapped
(:func:`asserting_runner`), so races without them pay nothing per request. A failed assertion
raises :class:`esbench.exceptions.TaskAssertionFailed`: the race ends (whatever ``--on-error``
says, as in Rally) and keeps what it measured before; the request that failed it is not recorded,
as Rally's exception leaves ``execute_single`` before its sample is taken. A failed request is not
checked (Rally's runner raised before its assertions were looked at); a result that failed
otherwise (a bulk with rejected documents, whatever a plugin's runner returns) is, as in Rally.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from esbench.driver.worker.runners.base import LegacyRunner, RallyParams, Runner, RunnerResult
from esbench.exceptions import ConfigError, TaskAssertionFailed
from esbench.track.assertions import Assertion, MissingProperty, parse_assertions
from esbench.track.model import Task

if TYPE_CHECKING:
    from esbench.driver.transport.client import EsbenchClient

#: Rally's search-family types (``SearchParamSource``): assertions kept, name not.
SEARCH_TYPES = frozenset({"search", "scroll-search", "paginated-search", "composite-agg"})

#: Types whose Rally param source returns new params without the operation's (``esrally/track/params.py``:
#: ``ForceMergeParamSource``, ``DownsampleParamSource``, ``CreateTemplateParamSource`` and
#: ``DeleteComponentTemplateParamSource``; the others copy the operation's params first).
DROPPING_TYPES = frozenset(
    {
        "force-merge",
        "downsample",
        "create-component-template",
        "create-composable-template",
        "delete-component-template",
    }
)

#: ``RunnerResult.error_type`` of a request that got no usable response (besides an HTTP status):
#: Rally's runner raised for it, so its assertions were never looked at.
_REQUEST_FAILURES = frozenset({"timeout", "connection", "tls", "transport"})


def task_assertions(task: Task) -> tuple[tuple[Assertion, ...], str | None] | None:
    """The assertions Rally would check on ``task``'s built-in param source, and the operation name
    its message shows; None when no assertion can apply (see the module doc). Not for operations with
    a plugin's ``param-source`` (:func:`asserting_runner` reads theirs per call).

    Raises:
        esbench.exceptions.TrackValidationError: malformed assertions (the operation and JSON path named).
        esbench.exceptions.ConfigError: a search without ``detailed-results: true`` (Rally's rule).
    """
    op = task.operation
    spec = op.params.get("assertions")
    if spec is None or op.operation_type in DROPPING_TYPES:
        return None
    where = f"Operation '{op.name}' ({op.operation_type}) of task '{task.name}'"
    assertions = parse_assertions(spec, where=where)
    if op.operation_type in SEARCH_TYPES:
        if not op.params.get("detailed-results", False) and not op.params.get("pages"):
            raise ConfigError(
                f"{where}: The property [detailed-results] must be [true] if assertions are defined "
                f"(Rally's rule: only a detailed search returns hits, took and timed_out). Add "
                f'"detailed-results": true to the operation.'
            )
        return assertions, None
    return assertions, op.name


def asserting_runner(runner: Runner, task: Task) -> Runner:
    """``runner`` checking ``task``'s assertions, or ``runner`` itself when none can apply.

    Raises:
        esbench.exceptions.TrackValidationError / ConfigError: see :func:`task_assertions`.
    """
    op = task.operation
    if op.param_source:
        return AssertingRunner(runner, task=task.name, assertions=None, operation=None)
    if op.operation_type == "composite":
        items = getattr(runner, "with_item_runners", None)
        if items is not None:
            runner = items(lambda inner: AssertingRunner(inner, task=task.name))
    found = task_assertions(task)
    if found is None:
        return runner
    assertions, operation = found
    return AssertingRunner(runner, task=task.name, assertions=assertions, operation=operation)


class AssertingRunner(Runner):
    """A runner whose results must satisfy assertions (see the module doc).

    Args:
        inner: the runner that does the work.
        task: the task's name, for messages.
        assertions: the assertions to check on every result and ``operation`` the name the message
            shows; None: read ``assertions`` and ``name`` from each call's params (a plugin's param
            source, a composite's item).
    """

    def __init__(
        self,
        inner: Runner,
        *,
        task: str,
        assertions: tuple[Assertion, ...] | None = None,
        operation: str | None = None,
    ) -> None:
        self.inner = inner
        self.task = task
        self.assertions = assertions
        self.operation = operation
        self.name = inner.name
        self.takes_body_views = inner.takes_body_views
        self._plugin = isinstance(inner, LegacyRunner)
        #: The last params' assertions spec and its parsed form (a plugin source returns the same
        #: list again and again; parse it once).
        self._parsed: tuple[object, tuple[Assertion, ...]] | None = None
        if getattr(inner, "delegate", None) is not None:
            # A plugin's runner: failures are reported as the plugin's (loopfailures.failed_call).
            self.delegate = inner.delegate  # type: ignore[attr-defined]

    @property
    def completed(self) -> bool | None:
        return getattr(self.inner, "completed", None)

    @property
    def percent_completed(self) -> float | None:
        return getattr(self.inner, "percent_completed", None)

    def repeatable(self, params: RallyParams) -> bool:
        """Never: every response must be looked at, so the connection may not resend on its own."""
        return False

    async def __call__(self, es: EsbenchClient, params: RallyParams) -> RunnerResult:
        result = await self.inner(es, params)
        if not result.success and not self._plugin and _request_failed(result.error_type):
            return result
        assertions = self.assertions
        operation = self.operation
        if assertions is None:
            spec = params.get("assertions")
            if spec is None:
                return result
            assertions = self._parse(spec, params)
            name = params.get("name")
            operation = str(name) if name else None
        if assertions:
            check_result(assertions, result, task=self.task, operation=operation)
        return result

    def _parse(self, spec: object, params: RallyParams) -> tuple[Assertion, ...]:
        cached = self._parsed
        if cached is not None and cached[0] is spec:
            return cached[1]
        item = f" (item '{params['name']}')" if params.get("name") else ""
        where = f"The params of task '{self.task}'{item}"
        parsed = parse_assertions(spec, where=where)
        self._parsed = (spec, parsed)
        return parsed

    def __repr__(self) -> str:
        return repr(self.inner)


def _request_failed(error_type: str | None) -> bool:
    return error_type is None or error_type.isdigit() or error_type in _REQUEST_FAILURES


def result_properties(result: RunnerResult) -> dict[str, Any]:
    """What Rally's assertions look into: the runner's return value as a dict, ``weight``, ``unit``
    and ``success`` included (``AssertingRunner`` checks it before ``execute_single`` takes them out),
    the error keys when set, then the request meta-data (``hits``, ``took``...)."""
    weight = result.weight
    properties: dict[str, Any] = {
        "weight": int(weight) if isinstance(weight, float) and weight.is_integer() else weight,
        "unit": result.unit,
        "success": result.success,
    }
    if result.error_type is not None:
        properties["error-type"] = result.error_type
    if result.error_description is not None:
        properties["error-description"] = result.error_description
    if result.http_status is not None:
        properties["http-status"] = result.http_status
    if result.meta:
        properties.update(result.meta)
    return properties


def check_result(
    assertions: tuple[Assertion, ...], result: RunnerResult, *, task: str, operation: str | None
) -> None:
    """Check ``assertions`` in order on ``result``; the first that fails ends the race.

    Raises:
        esbench.exceptions.TaskAssertionFailed: an assertion does not hold (Rally's message), its
            property is missing from the result, or its value cannot be compared.
    """
    meta = result.meta
    properties: dict[str, Any] | None = None
    for assertion in assertions:
        parts = assertion.parts
        try:
            if meta is not None and len(parts) == 1 and parts[0] in meta:
                seen = meta[parts[0]]  # the common case (hits, took...) without building the dict
            else:
                if properties is None:
                    properties = result_properties(result)
                seen = assertion.extract(properties)
        except MissingProperty as missing:
            raise TaskAssertionFailed(
                f"Task '{task}' cannot check the assertion [{assertion.describe()}] "
                f"(--enable-assertions): {missing}. Check the property's path; a search returns "
                f'hits, hits_relation, timed_out and took only with "detailed-results": true.'
            ) from None
        try:
            holds = assertion.holds(seen)
        except TypeError as wrong:
            raise TaskAssertionFailed(
                f"Task '{task}' cannot check the assertion [{assertion.describe()}] "
                f"(--enable-assertions): the value seen, {wrong}."
            ) from None
        if not holds:
            raise TaskAssertionFailed(
                f"Task '{task}' failed an assertion (--enable-assertions): "
                f"{assertion.failure(seen, operation=operation)}"
            )
