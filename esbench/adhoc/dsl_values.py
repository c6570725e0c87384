"""The value notation inside the ``#`` comment blocks of an INFINI Loadgen ``.dsl`` file.

Loadgen's DSL writes its options (``# runner: {...}``, ``# request: {...}``) and body assertions
(``# {"count": 2}``) in a relaxed JSON: keys may be bare words (``total_rounds``,
``_ctx.response.status``), strings take single or double quotes, a trailing comma is allowed,
``//`` starts a comment to the end of the line, and a call such as ``gte(1)`` stands for a
comparison (see the files ``loadgen.dsl``, ``bulk-testing-example.dsl`` and
``api-testing-example.dsl`` at the root of github ``infinilabs/loadgen``; its compiler ships as
``plugins/loadgen_dsl.wasm``). This module tokenizes and reads that notation; the line structure
of the file is :mod:`esbench.adhoc.loadgen_dsl`.

Positions are offsets into the block's text; :class:`DslSyntaxError` carries the offset so that the
caller can name the file line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_TOKEN = re.compile(
    r"""
    (?P<space>\s+|//[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)
  | (?P<word>[A-Za-z_$][A-Za-z0-9_.$\-]*)
  | (?P<punct>[{}\[\]():,])
    """,
    re.VERBOSE,
)
_WORDS = {"true": True, "false": False, "null": None}
#: Comparison calls of the assertion notation and the range bound each stands for.
COMPARISONS = frozenset({"gt", "gte", "lt", "lte"})


class DslSyntaxError(ValueError):
    """A syntax error at ``offset`` of the parsed text: ``expected`` says what should be there."""

    def __init__(self, offset: int, expected: str, found: str) -> None:
        super().__init__(f"expected {expected}, found {found}")
        self.offset = offset
        self.expected = expected
        self.found = found


@dataclass(frozen=True, slots=True)
class Token:
    """One token: ``kind`` is ``string``, ``number``, ``word``, ``punct`` or ``end``."""

    kind: str
    text: str
    offset: int


@dataclass(frozen=True, slots=True)
class Comparison:
    """``gt(5)`` and friends in a body assertion: ``op`` in :data:`COMPARISONS`, ``value`` a number."""

    op: str
    value: float | int


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, ending with an ``end`` token.

    Raises:
        DslSyntaxError: a character no token starts with (an unclosed quote, say).
    """
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            shown = text[pos : pos + 12].split("\n", 1)[0]
            what = "a closing quote" if text[pos] in "'\"" else "a value, a key or punctuation"
            raise DslSyntaxError(pos, what, repr(shown))
        kind = match.lastgroup or "space"
        if kind != "space":
            tokens.append(Token(kind, match.group(), pos))
        pos = match.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


def _shown(token: Token) -> str:
    return "the end of the block" if token.kind == "end" else repr(token.text)


class Reader:
    """A cursor over tokens that reads values (:meth:`value`) and ``key: value`` lists."""

    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.pos = 0
        #: offset of every object key read, by its path of keys (list items by index)
        self.key_offsets: dict[tuple[str, ...], int] = {}

    @property
    def peek(self) -> Token:
        """The next token, not consumed."""
        return self.tokens[self.pos]

    def take(self) -> Token:
        """The next token, consumed (the ``end`` token stays)."""
        token = self.tokens[self.pos]
        if token.kind != "end":
            self.pos += 1
        return token

    def expect(self, text: str, what: str | None = None) -> Token:
        """Consume the punctuation ``text``.

        Raises:
            DslSyntaxError: another token; ``what`` says what was expected.
        """
        token = self.take()
        if token.text != text or token.kind not in ("punct",):
            raise DslSyntaxError(token.offset, what or f"'{text}'", _shown(token))
        return token

    def at(self, text: str) -> bool:
        """Whether the next token is the punctuation ``text``."""
        token = self.peek
        return token.kind == "punct" and token.text == text

    def key(self) -> str:
        """An object key: a bare word or a quoted string.

        Raises:
            DslSyntaxError: anything else.
        """
        token = self.take()
        if token.kind == "word":
            return token.text
        if token.kind == "string":
            return str(_string(token))
        raise DslSyntaxError(token.offset, "a key (a word or a quoted string)", _shown(token))

    def value(self, *, calls: bool = False, path: tuple[str, ...] = ()) -> Any:
        """One value: object, array, string, number, true/false/null, or (``calls``) ``gte(1)``.

        ``path`` is where the value sits (keys and list indexes); the offset of every key read
        goes to :attr:`key_offsets` under its path, for messages that name a line.

        Raises:
            DslSyntaxError: anything else, with what was expected.
        """
        token = self.take()
        if token.kind == "punct" and token.text == "{":
            result: dict[str, object] = {}
            while not self.at("}"):
                at = self.peek.offset
                name = self.key()
                self.key_offsets[(*path, name)] = at
                self.expect(":", "':' after the key")
                result[name] = self.value(calls=calls, path=(*path, name))
                if not self.at("}"):
                    self.expect(",", "',' or '}'")
            self.take()
            return result
        if token.kind == "punct" and token.text == "[":
            items: list[object] = []
            while not self.at("]"):
                items.append(self.value(calls=calls, path=(*path, str(len(items)))))
                if not self.at("]"):
                    self.expect(",", "',' or ']'")
            self.take()
            return items
        if token.kind == "string":
            return _string(token)
        if token.kind == "number":
            return json.loads(token.text) if token.text.lstrip("-")[:1] != "." else float(token.text)
        if token.kind == "word" and token.text in _WORDS:
            return _WORDS[token.text]
        if token.kind == "word" and calls and token.text in COMPARISONS and self.at("("):
            self.take()
            number = self.take()
            if number.kind != "number":
                raise DslSyntaxError(number.offset, f"a number in {token.text}(...)", _shown(number))
            self.expect(")", f"')' closing {token.text}(")
            return Comparison(token.text, json.loads(number.text))
        expected = "a value (object, array, string, number, true, false or null)"
        if calls:
            expected = expected[:-1] + ", or gt/gte/lt/lte(number))"
        raise DslSyntaxError(token.offset, expected, _shown(token))

    def end(self) -> None:
        """Check that the block is over.

        Raises:
            DslSyntaxError: a token is left.
        """
        token = self.peek
        if token.kind != "end":
            raise DslSyntaxError(token.offset, "the end of the block (or a ',' before it)", _shown(token))


def _string(token: Token) -> str:
    body = token.text[1:-1]
    if token.text[0] == "'":
        # Single quotes: only \' differs from a double-quoted JSON string.
        body = body.replace("\\'", "'").replace('"', '\\"')
    try:
        return str(json.loads(f'"{body}"'))
    except ValueError:
        raise DslSyntaxError(
            token.offset, 'a string with valid escapes (\\\\, \\", \\n, \\uXXXX)', token.text
        ) from None
