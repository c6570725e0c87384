"""Response assertions of templated requests: INFINI Loadgen's ``assert`` (the condition syntax of
INFINI Gateway, ``framework/core/conditions``) on the fields Loadgen exposes.

Fields: ``_ctx.response.status``, ``_ctx.response.body`` (text), ``_ctx.response.body_length``,
``_ctx.response.body_json.<path>`` (dotted path into the JSON body; list items by index),
``_ctx.response.header.<Name>``, ``_ctx.elapsed`` (ms).

Conditions: ``equals``, ``contains``, ``prefix``, ``suffix``, ``regexp``, ``range`` (``gt``,
``gte``, ``lt``, ``lte``), ``in``, ``exists``, ``and``, ``or``, ``not``; a mapping of fields
(``{_ctx.response.status: 200}``, or nested ``{_ctx: {response: {status: 200}}}``) means
``equals`` on each, the shorthand of Loadgen's documentation. A failed assertion makes the request
an error of type ``assertion`` (Loadgen's "Number of Invalid").
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from esbench.driver.transport import jsonutil
from esbench.exceptions import ConfigError

_PREFIX = "_ctx."
_MISSING = object()


@dataclass(frozen=True, slots=True)
class ResponseView:
    """What an assertion sees: status, raw body, headers, elapsed ms."""

    status: int
    body: bytes
    headers: Mapping[str, str]
    elapsed_ms: float


class _Context:
    __slots__ = ("_json", "view")

    def __init__(self, view: ResponseView) -> None:
        self.view = view
        self._json: Any = _MISSING

    def get(self, field: str) -> Any:
        view = self.view
        if field == "_ctx.response.status":
            return view.status
        if field == "_ctx.elapsed":
            return int(view.elapsed_ms)
        if field == "_ctx.response.body":
            return view.body.decode("utf-8", "replace")
        if field == "_ctx.response.body_length":
            return len(view.body)
        if field.startswith("_ctx.response.header."):
            name = field[len("_ctx.response.header.") :].lower()
            for k, v in view.headers.items():
                if k.lower() == name:
                    return v
            return _MISSING
        if field.startswith("_ctx.response.body_json"):
            if self._json is _MISSING:
                try:
                    self._json = jsonutil.loads(view.body) if view.body else None
                except ValueError:
                    self._json = None
            value = self._json
            rest = field[len("_ctx.response.body_json") :].lstrip(".")
            for part in rest.split(".") if rest else ():
                if isinstance(value, Mapping) and part in value:
                    value = value[part]
                elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                    value = value[int(part)]
                else:
                    return _MISSING
            return value
        return _MISSING


def _equal(actual: object, expected: object) -> bool:
    if actual is _MISSING:
        return False
    if isinstance(expected, bool) or isinstance(actual, bool):
        return str(actual).lower() == str(expected).lower()
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return actual == expected
    return str(actual) == str(expected)


def _number(value: object) -> float | None:
    try:
        # Anything float() refuses is "not a number": the TypeError is the test, not an accident.
        return float(cast("str", value))
    except (TypeError, ValueError):
        return None


Check = Callable[[_Context], str | None]


def _field(field: object, where: str) -> str:
    name = str(field)
    if not name.startswith(_PREFIX):
        raise ConfigError(
            f"{where}: the field '{name}' is not one Loadgen exposes. Use _ctx.response.status, "
            f"_ctx.response.body, _ctx.response.body_json.<path>, _ctx.response.header.<name> or "
            f"_ctx.elapsed."
        )
    return name


def _flatten(mapping: Mapping[str, object], prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in mapping.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(_flatten(value, name + "."))
        else:
            out[name] = value
    return out


def _per_field(spec: object, where: str, kind: str, test: Callable[[Any, Any], bool], verb: str) -> Check:
    if not isinstance(spec, Mapping) or not spec:
        raise ConfigError(f"{where}: '{kind}' needs a mapping of field: value.")
    pairs = [(_field(k, where), v) for k, v in spec.items()]

    def check(ctx: _Context) -> str | None:
        for name, expected in pairs:
            actual = ctx.get(name)
            if actual is _MISSING or not test(actual, expected):
                shown = "missing" if actual is _MISSING else repr(actual)[:120]
                return f"{name} is {shown}, expected it to {verb} {expected!r}"
        return None

    return check


def _range(spec: object, where: str) -> Check:
    if not isinstance(spec, Mapping) or not spec:
        raise ConfigError(f"{where}: 'range' needs a mapping of field: {{gte/gt/lte/lt: number}}.")
    ops: dict[str, Callable[[float, float], bool]] = {
        "gt": operator.gt,
        "gte": operator.ge,
        "lt": operator.lt,
        "lte": operator.le,
    }
    rules = []
    for key, bounds in spec.items():
        name = _field(key, where)
        if not isinstance(bounds, Mapping) or not bounds or any(b not in ops for b in bounds):
            raise ConfigError(f"{where}: range of '{name}' takes gt, gte, lt and lte, got {bounds!r}.")
        rules.append((name, [(b, ops[b], float(v)) for b, v in bounds.items()]))

    def check(ctx: _Context) -> str | None:
        for name, bounds in rules:
            value = _number(ctx.get(name))
            for label, op, limit in bounds:
                if value is None or not op(value, limit):
                    return f"{name} is {value!r}, expected {label} {limit:g}"
        return None

    return check


def _all_exist(names: list[str]) -> Check:
    def check(ctx: _Context) -> str | None:
        return next((f"{n} does not exist" for n in names if ctx.get(n) is _MISSING), None)

    return check


def _all_of(parts: list[Check]) -> Check:
    def check(ctx: _Context) -> str | None:
        return next((m for p in parts if (m := p(ctx))), None)

    return check


def _any_of(parts: list[Check]) -> Check:
    def check(ctx: _Context) -> str | None:
        return None if any(p(ctx) is None for p in parts) else "none of the 'or' conditions holds"

    return check


def _negated(inner: Check) -> Check:
    def check(ctx: _Context) -> str | None:
        return "the 'not' condition holds" if inner(ctx) is None else None

    return check


def _compile(spec: object, where: str) -> Check:
    if not isinstance(spec, Mapping) or not spec:
        raise ConfigError(
            f"{where}: an assertion must be a mapping such as {{equals: {{_ctx.response.status: 200}}}}."
        )
    if all(str(k).startswith("_ctx") for k in spec):
        return _per_field(_flatten(spec), where, "equals", _equal, "equal")
    checks: list[Check] = []
    for kind, arg in spec.items():
        sub = f"{where}.{kind}"
        if kind == "equals":
            checks.append(_per_field(arg, sub, kind, _equal, "equal"))
        elif kind == "contains":
            checks.append(_per_field(arg, sub, kind, lambda a, e: str(e) in str(a), "contain"))
        elif kind == "prefix":
            checks.append(_per_field(arg, sub, kind, lambda a, e: str(a).startswith(str(e)), "start with"))
        elif kind == "suffix":
            checks.append(_per_field(arg, sub, kind, lambda a, e: str(a).endswith(str(e)), "end with"))
        elif kind == "regexp":
            compiled = (
                {k: re.compile(str(v)) for k, v in (arg or {}).items()} if isinstance(arg, Mapping) else None
            )
            checks.append(_per_field(compiled, sub, kind, lambda a, e: e.search(str(a)) is not None, "match"))
        elif kind == "in":
            checks.append(
                _per_field(arg, sub, kind, lambda a, e: any(_equal(a, x) for x in (e or [])), "be one of")
            )
        elif kind == "range":
            checks.append(_range(arg, sub))
        elif kind == "exists":
            names = [
                _field(f, sub) for f in ([arg] if isinstance(arg, str) else cast("list[object]", arg or []))
            ]
            checks.append(_all_exist(names))
        elif kind in ("and", "or"):
            if not isinstance(arg, list) or not arg:
                raise ConfigError(f"{sub}: '{kind}' needs a list of conditions.")
            parts = [_compile(c, f"{sub}[{i}]") for i, c in enumerate(arg)]
            checks.append(_all_of(parts) if kind == "and" else _any_of(parts))
        elif kind == "not":
            inner = _compile(arg, sub)
            checks.append(_negated(inner))
        else:
            raise ConfigError(
                f"{where}: the condition '{kind}' is not supported. Supported: equals, contains, prefix, "
                f"suffix, regexp, range, in, exists, and, or, not."
            )
    if len(checks) == 1:
        return checks[0]
    return lambda ctx: next((m for c in checks if (m := c(ctx))), None)


class Assertion:
    """A compiled assertion: ``check(view)`` returns None, or why it failed (one line)."""

    __slots__ = ("_check", "spec")

    def __init__(self, check: Check, spec: object) -> None:
        self._check = check
        self.spec = spec

    def check(self, view: ResponseView) -> str | None:
        return self._check(_Context(view))


def compile_assertion(spec: object, *, where: str) -> Assertion | None:
    """The assertion of ``spec`` (None when ``spec`` is None).

    Raises:
        ConfigError: an unsupported condition, a field outside ``_ctx``, a malformed argument.
    """
    if spec is None:
        return None
    return Assertion(_compile(spec, where), spec)
