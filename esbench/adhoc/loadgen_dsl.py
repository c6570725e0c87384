"""INFINI Loadgen's DSL (``loadgen -run FILE.dsl``) read into the structure of its YAML.

The layout, as Loadgen's files show it (``loadgen.dsl``, ``bulk-testing-example.dsl`` and
``api-testing-example.dsl`` at the root of github ``infinilabs/loadgen``; Loadgen compiles the DSL
to its YAML with ``plugins/loadgen_dsl.wasm`` and runs that, ``main.go`` ``parseDSL``):

* a request is a line ``METHOD URL`` (``URL`` a path under ``runner.default_endpoint``, or a full
  URL); the lines under it, up to a blank line or a ``#`` line, are its body;
* ``#`` lines form blocks (blank lines between them do not end a block). A block before the
  first request holds top-level options, ``key: value`` separated by commas (``runner``,
  ``variables``, ``env``). A block after a request either holds options of that request
  (``request: {...}`` merged into it, ``sleep``, ``register``, ``assert_dsl``, and
  ``assert: {...}``: fields of the response event such as ``_ctx.response.status``, nested or
  dotted, each leaf compared like a body subset's) or is an assertion: an HTTP status
  (``# 200``) and/or a response body subset (``# {"count": 2}``, every leaf compared for
  equality; ``gt(n)``, ``gte(n)``, ``lt(n)``, ``lte(n)`` compare numbers, where Loadgen's
  compiler writes conditions ``gt``... that INFINI's condition set lacks, esbench a ``range``;
  array items by position);
* ``//`` starts a comment inside a block, so ``# // text`` is a comment line.

:func:`parse_dsl` returns Loadgen's YAML structure (what its compiler prints) and the line of
each request; :mod:`esbench.adhoc.loadgen` then treats it exactly like a YAML file. Errors name
the file, the line and what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from esbench.adhoc.dsl_values import Comparison, DslSyntaxError, Reader
from esbench.exceptions import ConfigError

#: Options a block before the first request may set (Loadgen's top-level YAML keys it merges).
TOP_BLOCK_KEYS = frozenset({"runner", "variables", "env"})
#: Options a block after a request may set (keys of Loadgen's ``RequestItem``).
REQUEST_BLOCK_KEYS = frozenset({"request", "assert", "sleep", "register", "assert_dsl"})
_FROM_REQUEST_LINE = ("method", "url", "body")
_METHOD = re.compile(r"[A-Za-z]+")
_BODY_JSON = "_ctx.response.body_json"


@dataclass(frozen=True, slots=True)
class DslDocument:
    """A parsed ``.dsl`` file.

    Attributes:
        data: Loadgen's YAML structure: ``{"runner"?, "variables"?, "env"?, "requests": [...]}``.
        request_lines: the line of each request's ``METHOD URL``.
        option_lines: for each request, the line of each option of the block after it, by
            dotted path (``request``, ``request.headers``...).
        top_lines: the same for the block before the first request (``runner.no_warm``...).
    """

    data: dict[str, Any]
    request_lines: tuple[int, ...]
    option_lines: tuple[dict[str, int], ...] = ()
    top_lines: dict[str, int] = field(default_factory=dict)


@dataclass
class _Block:
    lines: list[tuple[int, str]]

    def text(self) -> str:
        return "\n".join(t for _, t in self.lines)

    def line_at(self, offset: int) -> int:
        start = 0
        for number, text in self.lines:
            if offset <= start + len(text):
                return number
            start += len(text) + 1
        return self.lines[-1][0]


def _error(path: Path, line: int, message: str) -> ConfigError:
    return ConfigError(
        f"{path} line {line}: {message}. (Loadgen DSL: a request is 'METHOD /path' followed by its "
        f"body lines; '# 200' and '# {{...}}' after it assert the status and a body subset; "
        f"'# key: {{...}}' blocks carry options, separated by commas.)"
    )


def _syntax(path: Path, block: _Block, exc: DslSyntaxError) -> ConfigError:
    return _error(path, block.line_at(exc.offset), f"expected {exc.expected}, found {exc.found}")


def _options(
    path: Path,
    block: _Block,
    reader: Reader,
    allowed: frozenset[str],
    where: str,
    lines: dict[str, int] | None = None,
) -> dict[str, Any]:
    options: dict[str, Any] = {}
    while True:
        token = reader.peek
        try:
            key = reader.key()
            if key not in allowed:
                raise _error(
                    path,
                    block.line_at(token.offset),
                    f"'{key}' is not an option {where}; the options there are {', '.join(sorted(allowed))}",
                )
            reader.expect(":", "':' after the option name")
            options[key] = reader.value(calls=key == "assert", path=(key,))
            if lines is not None:
                lines[key] = block.line_at(token.offset)
                for keys, offset in reader.key_offsets.items():
                    lines.setdefault(".".join(keys), block.line_at(offset))
            if reader.at(","):
                reader.take()
            elif reader.peek.kind != "end":
                raise DslSyntaxError(
                    reader.peek.offset, "',' or the end of the block", repr(reader.peek.text)
                )
            if reader.peek.kind == "end":
                return options
        except DslSyntaxError as exc:
            raise _syntax(path, block, exc) from None


def _leaves(value: object, prefix: str) -> Iterator[tuple[str, object]]:
    dot = "." if prefix else ""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{prefix}{dot}{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, f"{prefix}{dot}{index}")
    else:
        yield prefix, value


def assertion_of(status: int | None, body: object, *, root: str = _BODY_JSON) -> dict[str, object] | None:
    """Loadgen's ``assert`` condition for ``# STATUS`` and ``# BODY``: ``equals`` on the status and
    on every leaf of the body subset (``range`` for ``gt``/``gte``/``lt``/``lte``), under ``and``;
    None when there is nothing to check. ``root`` is the path the leaves are under: the response
    body for ``# {...}``, the event itself (``""``) for the ``assert: {...}`` option, whose keys are
    fields such as ``_ctx.response.status`` (nested or dotted), as Loadgen's compiler reads it."""
    conditions: list[dict[str, object]] = []
    if status is not None:
        conditions.append({"equals": {"_ctx.response.status": status}})
    for name, leaf in _leaves(body, root) if body is not None else ():
        if isinstance(leaf, Comparison):
            conditions.append({"range": {name: {leaf.op: leaf.value}}})
        else:
            conditions.append({"equals": {name: leaf}})
    if not conditions:
        return None
    return conditions[0] if len(conditions) == 1 else {"and": conditions}


def _assertion(path: Path, block: _Block, reader: Reader) -> dict[str, object] | None:
    try:
        status = None
        token = reader.peek
        if token.kind == "number":
            reader.take()
            if not token.text.isdigit():
                raise _error(
                    path, block.line_at(token.offset), f"expected an HTTP status, found {token.text}"
                )
            status = int(token.text)
        body = None
        if reader.at("{") or reader.at("["):
            body = reader.value(calls=True)
        elif status is None:
            raise DslSyntaxError(
                reader.peek.offset,
                "an HTTP status, a '{...}' body subset or 'key: value' options",
                repr(token.text),
            )
        reader.end()
    except DslSyntaxError as exc:
        raise _syntax(path, block, exc) from None
    return assertion_of(status, body)


def _is_options(reader: Reader) -> bool:
    first, second = reader.tokens[0], reader.tokens[1] if len(reader.tokens) > 1 else None
    return first.kind in ("word", "string") and second is not None and second.text == ":"


def _apply(
    path: Path, block: _Block, items: list[dict[str, Any]], top: dict[str, Any], lines: dict[str, int]
) -> None:
    try:
        reader = Reader(block.text())
    except DslSyntaxError as exc:
        raise _syntax(path, block, exc) from None
    if reader.peek.kind == "end":
        return  # only // comments
    if not items:
        if not _is_options(reader):
            raise _error(
                path,
                block.line_at(reader.peek.offset),
                "an assertion must follow a request ('METHOD /path' line)",
            )
        top.update(_options(path, block, reader, TOP_BLOCK_KEYS, "before the first request", lines))
        return
    item = items[-1]
    if not _is_options(reader):
        condition = _assertion(path, block, reader)
        if condition is not None:
            item["assert"] = condition
        return
    options = _options(path, block, reader, REQUEST_BLOCK_KEYS, "after a request", lines)
    extra = options.pop("request", None)
    if extra is not None:
        if not isinstance(extra, dict):
            raise _error(path, block.lines[0][0], "'request' takes an object of request options")
        clash = [k for k in _FROM_REQUEST_LINE if k in extra]
        if clash:
            raise _error(
                path,
                block.lines[0][0],
                f"'{clash[0]}' comes from the request line and the lines under it, "
                f"not from 'request: {{...}}'",
            )
        item["request"].update(extra)
    if "assert" in options:
        fields = options.pop("assert")
        if not isinstance(fields, dict):
            line = lines.get("assert", block.lines[0][0])
            raise _error(
                path, line, "'assert' takes an object of fields, e.g. {_ctx: {response: {status: 200}}}"
            )
        condition = assertion_of(None, fields, root="")
        if condition is not None:
            item["assert"] = condition
    item.update(options)


def parse_dsl(path: Path) -> DslDocument:
    """Read a Loadgen ``.dsl`` file (see module doc).

    Raises:
        ConfigError: unreadable file, a request line without a URL, a block that is neither
            options nor an assertion, an unknown option, a syntax error in a block (each with
            the file, the line and what was expected), or no request at all.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"Cannot read the Loadgen DSL file {path}: {exc}.") from None
    top: dict[str, Any] = {}
    items: list[dict[str, Any]] = []
    lines: list[int] = []
    option_lines: list[dict[str, int]] = []
    top_lines: dict[str, int] = {}
    block: _Block | None = None
    body: list[str] | None = None  # the body lines of the last request while they may continue

    def close_body() -> None:
        if body is not None and items:
            items[-1]["request"]["body"] = "\n".join(body) + "\n" if body else ""

    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped.startswith("#"):
            close_body()
            body = None
            if block is None:
                block = _Block([])
            block.lines.append((number, stripped[1:]))
            continue
        if not stripped:
            close_body()
            body = None
            continue
        if block is not None:
            _apply(path, block, items, top, option_lines[-1] if option_lines else top_lines)
            block = None
        if body is not None:
            body.append(raw)
            continue
        method, _, url = stripped.partition(" ")
        if not _METHOD.fullmatch(method):
            raise _error(path, number, f"expected a request line 'METHOD /path', found {stripped[:40]!r}")
        if not url.strip():
            raise _error(path, number, f"expected a URL after the method '{method}'")
        items.append({"request": {"method": method.upper(), "url": url.strip(), "body": ""}})
        lines.append(number)
        option_lines.append({})
        body = []
    close_body()
    if block is not None:
        _apply(path, block, items, top, option_lines[-1] if option_lines else top_lines)
    if not items:
        raise ConfigError(
            f"{path} has no request: a Loadgen DSL file needs at least one 'METHOD /path' line "
            f"(e.g. 'GET /_cluster/health')."
        )
    return DslDocument(
        data={**top, "requests": items},
        request_lines=tuple(lines),
        option_lines=tuple(option_lines),
        top_lines=top_lines,
    )
