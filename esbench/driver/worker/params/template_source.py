"""The ``templated-request`` param source: requests built from a body template and variables.

What seeds 001 (esperf, ``$RDICT``) and 002 (INFINI Loadgen, ``$[[name]]`` and
``body_repeat_times``) do, inside a Rally track and without a ``track.py``. Operation params
(hyphenated like Rally's; relative files are relative to the track directory):

=============================  ===========================================================
``method``                     HTTP method (default POST with a body, else GET)
``path``                       path and query string, may hold placeholders (mandatory)
``body``                       the (line) template: a string, or JSON that is serialized
``body-repeat-times``          lines per request (default 1); a bulk of N documents
``variables``                  Loadgen variable definitions (:mod:`.template_vars`)
``dictionary``                 file whose lines ``$RDICT`` draws from (esperf's ``-d``)
``env``                        defaults of ``$[[env.NAME]]`` (the environment wins)
``runtime-variables``          name -> variable: one value per request
``runtime-body-line-variables``  name -> variable: one value per body line
``headers``                    extra headers (values may hold placeholders)
``request-limit``              requests over all clients before the task ends (Loadgen ``-l``)
``bulk``                       account the response per item like ``bulk`` (default: the path
                               ends in ``/_bulk``)
``assert``                     a Loadgen response assertion (:mod:`.template_assert`), checked
                               on every response; when it holds, the status is not judged
``assert-ends-race``           a failed assertion ends the race (Loadgen's ``assert_invalid``
                               without ``continue_on_assert_invalid``)
``log-requests``               log requests and responses to the race log: true for all, or
                               a list of statuses (Loadgen's ``log_requests``/``log_status_codes``)
``sleep-after``                seconds the client pauses after each response (Loadgen's
                               ``sleep``; not part of the service time)
``warmup-round``               this task is Loadgen's warm-up round: a list of the statuses of
                               400 or more it accepts; any other ends the race
``ignore``                     HTTP statuses that are not errors (a number or list)
``request-timeout``            client-side timeout, seconds
=============================  ===========================================================

The templates are compiled and the files read once per task (in the constructor), so a
missing dictionary or an unknown variable fails before the race; each client then gets its own
generators (``partition``) and builds each request in ``params()``.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from esbench.driver.worker.params.base import ParamSource
from esbench.driver.worker.params.template import (
    RDICT,
    Expander,
    RepeatedBody,
    check_names,
    compile_template,
)
from esbench.driver.worker.params.template_assert import Assertion, compile_assertion
from esbench.driver.worker.params.template_gen import Generator, constant_generator, make_generator
from esbench.driver.worker.params.template_vars import (
    VariableSpec,
    VariableType,
    env_value,
    parse_variable,
    read_lines,
)
from esbench.driver.worker.runners.base import PREPARED, RallyParams, request_options
from esbench.exceptions import ConfigError
from esbench.track.model import Track

_KEYS = frozenset(
    {
        "method",
        "path",
        "body",
        "body-repeat-times",
        "variables",
        "dictionary",
        "env",
        "runtime-variables",
        "runtime-body-line-variables",
        "headers",
        "request-limit",
        "bulk",
        "assert",
        "assert-ends-race",
        "log-requests",
        "warmup-round",
        "sleep-after",
        "ignore",
        "request-timeout",
        "request-params",
        "opaque-id",
        # added by the track stage
        "name",
        "operation-type",
        "param-source",
        "include-in-reporting",
        "meta",
    }
)
_BULK_ACTIONS = frozenset({"index", "create", "update", "delete"})

if TYPE_CHECKING:
    from esbench.driver.transport.failures import DefaultTimeout


@dataclass(frozen=True, slots=True)
class TemplatedCall:
    """One request, ready to send (what the ``templated-request`` runner gets as ``PREPARED``).

    Attributes:
        method / target / body / headers / timeout: the HTTP request (``target`` = path + query).
        bulk_size: documents in a bulk body (responses accounted per item), None otherwise.
        assertion: the response check, or None.
        ignore: statuses that are not errors.
        label: ``METHOD path`` of the task's request (for messages and logs).
        assertion_ends_race: a failed assertion raises instead of being counted.
        log_all / log_statuses: log this request and its response (all, or these statuses).
        warmup_accepts: for Loadgen's warm-up round, the statuses of 400 or more it accepts
            (None: not a warm-up round).
        pause: seconds to wait after the response (``sleep-after``).
    """

    method: str
    target: str
    body: bytes | None
    headers: Mapping[str, str] | None
    timeout: float | DefaultTimeout
    bulk_size: int | None
    assertion: Assertion | None
    ignore: frozenset[int]
    label: str = ""
    assertion_ends_race: bool = False
    log_all: bool = False
    log_statuses: frozenset[int] = frozenset()
    warmup_accepts: frozenset[int] | None = None
    pause: float = 0.0


def _mapping(params: RallyParams, key: str, op: str) -> dict[str, str]:
    value = params.get(key) or {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"'{key}' of operation '{op}' must be a mapping of name: variable.")
    return {str(k).strip(): str(v).strip() for k, v in value.items()}


def _count_actions(sample: str) -> int:
    """Bulk actions in one expanded body line template (lines whose only key is an action)."""
    count = 0
    for line in sample.split("\n"):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and len(data) == 1 and next(iter(data)) in _BULK_ACTIONS:
            count += 1
    return count


class TemplatedRequestParamSource(ParamSource):
    """Compiles the operation's templates and variables once per task (see module doc).

    Raises:
        esbench.exceptions.ConfigError: unknown keys, bad variables, a missing or empty
            dictionary or file, an unknown variable in a template, a bulk template without action
            lines, a bad assertion.
    """

    def __init__(self, track: Track, params: RallyParams, **kwargs: object) -> None:
        super().__init__(track, params, **kwargs)
        op = str(kwargs.get("operation_name") or params.get("name", "templated-request"))
        where = f"Operation '{op}' (templated-request)"
        for key in params:
            if key not in _KEYS:
                raise ConfigError(
                    f"{where} has the unsupported parameter '{key}'. Its parameters are: "
                    f"{', '.join(sorted(k for k in _KEYS if k not in ('name', 'operation-type')))}."
                )
        root = Path(track.root) if track.root else Path.cwd()
        env = {str(k): str(v) for k, v in (params.get("env") or {}).items()}
        self._read_variables(params, op, where, root, env)
        self._compile_request(params, where)
        self._check_names(where, env)
        self._read_options(params, op, where)
        self._prepare_bodies(params, where)
        # Build one request now: what fails at runtime fails before the race instead.
        _ClientSource(self, 0, 1).params()

    def _read_variables(
        self, params: RallyParams, op: str, where: str, root: Path, env: Mapping[str, str]
    ) -> None:
        """``variables``, ``dictionary``, ``runtime-variables`` and ``runtime-body-line-variables``."""
        specs: dict[str, VariableSpec] = {}
        for i, raw in enumerate(params.get("variables") or ()):
            spec = parse_variable(raw, where=f"{where}, variables[{i}]", base_dir=root, env=env)
            if spec.name in specs:
                raise ConfigError(f"{where}: variable [{spec.name}] is defined twice.")
            specs[spec.name] = spec
        self.specs = specs
        self.dictionary: tuple[str, ...] = ()
        if params.get("dictionary") is not None:
            self.dictionary = read_lines(root / str(params["dictionary"]), what="dictionary")
        self.runtime = _mapping(params, "runtime-variables", op)
        self.line_vars = _mapping(params, "runtime-body-line-variables", op)

    def _compile_request(self, params: RallyParams, where: str) -> None:
        """The templates of ``path``, ``body`` and ``headers``; ``method`` and ``body-repeat-times``."""
        path = params.get("path")
        if not path or not str(path).startswith("/"):
            raise ConfigError(f"{where} needs a 'path' that begins with '/', got {path!r}.")
        body = params.get("body")
        if body is not None and not isinstance(body, str):
            body = json.dumps(body)
        self.method = str(params.get("method") or ("POST" if body else "GET")).upper()
        self.path = compile_template(str(path))
        self.body = compile_template(body) if body else None
        try:
            times = int(params.get("body-repeat-times", 1) or 1)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: 'body-repeat-times' must be a whole number.") from None
        if times < 1:
            raise ConfigError(f"{where}: 'body-repeat-times' must be at least 1, got {times}.")
        self.times = times
        headers = params.get("headers") or {}
        if not isinstance(headers, Mapping):
            raise ConfigError(f"{where}: 'headers' must be a mapping of header: value.")
        self.headers = {str(k): compile_template(str(v)) for k, v in headers.items()}

    def _check_names(self, where: str, env: Mapping[str, str]) -> None:
        """Resolve the ``env.NAME`` constants and check that every template names known variables."""
        specs = self.specs
        # env.NAME placeholders are constants: resolve them now (a missing one fails early).
        templates = [self.path, *self.headers.values(), *([self.body] if self.body else [])]
        self.env_values = {
            name: env_value(name, env, where=where)
            for t in templates
            for name in t.slots
            if name.startswith("env.")
        }
        known = set(specs) | set(self.env_values) | ({RDICT} if self.dictionary else set())
        for name, source in [*self.runtime.items(), *self.line_vars.items()]:
            if source not in known and source not in self.runtime:
                check_names(
                    compile_template(f"$[[{source}]]"), known, where=f"{where}: runtime variable '{name}'"
                )
        request_scope = known | set(self.runtime)
        check_names(self.path, request_scope, where=f"{where}: the path")
        for name, header in self.headers.items():
            check_names(header, request_scope, where=f"{where}: header '{name}'")
        if self.body is not None:
            check_names(self.body, request_scope | set(self.line_vars), where=f"{where}: the body")
        for spec in specs.values():
            if spec.type is VariableType.RANDOM_ARRAY and spec.array_key not in specs:
                raise ConfigError(
                    f"{where}: random_array '{spec.name}' takes its items from '{spec.array_key}', which is "
                    f"not a defined variable."
                )

    def _read_options(self, params: RallyParams, op: str, where: str) -> None:
        """Request limit, client options, assertion, logging, warm-up, pause and ignored statuses."""
        limit = params.get("request-limit")
        self.request_limit = int(limit) if limit is not None else None
        if self.request_limit is not None and self.request_limit <= 0:
            raise ConfigError(f"{where}: 'request-limit' must be positive, got {self.request_limit}.")
        query, extra_headers, self.timeout = request_options(params)
        if query:
            raise ConfigError(f"{where}: put query parameters into 'path' rather than 'request-params'.")
        self.static_headers = dict(extra_headers or {})
        self.assertion = compile_assertion(params.get("assert"), where=f"{where}, assert")
        self.assertion_ends_race = bool(params.get("assert-ends-race", False))
        logged = params.get("log-requests", False)
        self.log_all = logged is True
        self.log_statuses = frozenset(int(s) for s in logged) if isinstance(logged, list) else frozenset()
        accepts = params.get("warmup-round")
        self.warmup_accepts = frozenset(int(s) for s in accepts) if accepts is not None else None
        self.label = op
        try:
            self.pause = float(params.get("sleep-after", 0.0) or 0.0)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: 'sleep-after' must be a number of seconds.") from None
        if self.pause < 0:
            raise ConfigError(f"{where}: 'sleep-after' must not be negative, got {self.pause:g}.")
        ignore = params.get("ignore", ())
        self.ignore = frozenset(int(s) for s in ([ignore] if isinstance(ignore, int | str) else ignore))

    def _prepare_bodies(self, params: RallyParams, where: str) -> None:
        """Bulk detection (``bulk``, else a path ending in ``/_bulk``) and the constant body, if any."""
        path = params.get("path")
        bulk = params.get("bulk")
        self.bulk = bool(bulk) if bulk is not None else str(path).split("?", 1)[0].endswith("/_bulk")
        self.docs_per_line = 0
        if self.bulk:
            if self.body is None:
                raise ConfigError(f"{where} sends a bulk request but has no 'body'.")
            sample = _ClientSource(self, 0, 1).sample_line()
            self.docs_per_line = _count_actions(sample)
            if self.docs_per_line == 0:
                raise ConfigError(
                    f'{where}: the bulk body has no action line ({{"index": ...}}, create, update or '
                    f"delete), so it would index nothing. Check the body template, or set 'bulk': false."
                )
        if self.body is not None and self.body.constant and self.times == 1 and not self.dictionary:
            self.fixed_body: bytes | None = self.body.literals[0].encode("utf-8")
        else:
            self.fixed_body = None

    def partition(self, partition_index: int, total_partitions: int) -> _ClientSource:
        return _ClientSource(self, partition_index, total_partitions)

    def params(self) -> dict[str, Any]:
        raise RuntimeError("the templated-request param source must be partitioned per client")


def basic_auth_header(user: str, password: str) -> str:
    """The ``Authorization`` header value of HTTP basic authentication."""
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


class _ClientSource:
    """One client's requests (Rally's partitioned param source)."""

    def __init__(self, task: TemplatedRequestParamSource, index: int, clients: int) -> None:
        self._task = task
        rng = random.Random()
        cache: dict[str, Generator] = {}
        gens: dict[str, Generator] = {
            name: make_generator(spec, task.specs, index=index, clients=clients, rng=rng, cache=cache)
            for name, spec in task.specs.items()
        }
        for name, value in task.env_values.items():
            gens[name] = constant_generator(value)
        if task.dictionary:
            gens[RDICT] = make_generator(
                VariableSpec(name=RDICT, type=VariableType.LIST, lines=task.dictionary),
                {},
                index=index,
                clients=clients,
                rng=rng,
            )
        for template in [task.path, *task.headers.values(), *([task.body] if task.body else [])]:
            for slot in template.slots:
                if slot.startswith("$RNUM("):
                    top = int(slot[6:-1])
                    gens[slot] = make_generator(
                        VariableSpec(name=slot, type=VariableType.RANGE, start=0, stop=top - 1),
                        {},
                        index=index,
                        clients=clients,
                        rng=rng,
                    )
        self._gens = gens
        self._expander = Expander(gens)
        self._body = RepeatedBody(task.body, task.times, task.line_vars) if task.body else None
        limit = task.request_limit
        self.total: int | None = None
        if limit is not None:
            self.total = limit // clients + (1 if index < limit % clients else 0)
        self.current = 0
        self.infinite = self.total is None

    def partition(self, partition_index: int, total_partitions: int) -> _ClientSource:
        return self

    def size(self) -> int | None:
        return self.total

    @property
    def percent_completed(self) -> float | None:
        return None if not self.total else self.current / self.total

    def _scope(self) -> dict[str, str]:
        scope: dict[str, str] = {}
        gens = self._gens
        for name, source in self._task.runtime.items():
            value = scope.get(source)
            scope[name] = value if value is not None else gens[source].one()
        return scope

    def sample_line(self) -> str:
        """One expansion of the body's line template (to count its bulk actions)."""
        assert self._task.body is not None
        return RepeatedBody(self._task.body, 1, self._task.line_vars).build(self._gens, self._scope())

    def params(self) -> dict[str, Any]:
        if self.total is not None and self.current >= self.total:
            raise StopIteration
        self.current += 1
        task = self._task
        scope = self._scope() if task.runtime else {}
        expand = self._expander.one
        target = expand(task.path, scope)
        headers = dict(task.static_headers)
        for name, header in task.headers.items():
            headers[name] = expand(header, scope)
        if task.fixed_body is not None:
            body: bytes | None = task.fixed_body
        elif self._body is not None:
            body = self._body.build(self._gens, scope).encode("utf-8")
        else:
            body = None
        if body is not None and not any(k.lower() == "content-type" for k in headers):
            headers["content-type"] = "application/x-ndjson" if task.bulk else "application/json"
        call = TemplatedCall(
            method=task.method,
            target=target,
            body=body,
            headers=headers or None,
            timeout=task.timeout,
            bulk_size=task.docs_per_line * task.times if task.bulk else None,
            assertion=task.assertion,
            ignore=task.ignore,
            label=task.label,
            assertion_ends_race=task.assertion_ends_race,
            log_all=task.log_all,
            log_statuses=task.log_statuses,
            warmup_accepts=task.warmup_accepts,
            pause=task.pause,
        )
        return {PREPARED: call}
