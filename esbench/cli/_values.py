"""Rally 2.13's value forms of the command line: lists, key:value maps and the JSON forms of both.

Rally reads these option values with ``esrally/utils/opts.py``:

- ``csv_to_list``: a list option (``--telemetry``, ``--include-tasks``, ``--car``...) is a comma-
  separated list (items stripped), a JSON array of strings (text that matches
  ``^(\\s*\\[\\s*\\])|(\\s*\\[\\s*".*)``: ``[]`` or ``["...``), or the name of a ``.json`` file holding
  such an array; an empty value is the empty list.
- ``to_dict``: a map option (``--user-tags``) is the name of a ``.json`` file (parsed), else JSON
  text (parsed), else ``kv_to_map`` of the comma-separated list: each item ``key:value``, the key a
  stripped string, the value stripped and converted: ``'text'`` (single quotes: the text between
  them), else an int, else a float, else ``true``/``false`` (any case), else ``none`` (any case:
  None), else the text itself.
- ``io.normalize_path``: a file name has ``~`` expanded (``os.path.expanduser``).

The functions here give the same values; where Rally crashes on a value (a list item that is not a
string, a ``key:value`` item without ``:``) they raise :class:`UserError` with what to write instead.
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

from esbench.exceptions import UserError

#: Rally's ``opts.RE_JSON_ARRAY_START``: text Rally reads as a JSON array (``[]`` or ``["...``).
JSON_ARRAY_START = re.compile(r'^(\s*\[\s*\])|(\s*\[\s*".*)')
_AS_CSV = "write the list as a,b"


def expand_home(text: str) -> str:
    """``text`` with a leading ``~`` or ``~user`` expanded (``os.path.expanduser``), as Rally's
    ``io.normalize_path`` does for the file names it opens; any other text unchanged."""
    return os.path.expanduser(text) if text.startswith("~") else text


def names_json_file(text: str) -> bool:
    """Whether ``text`` names a ``.json`` file (Rally's ``io.has_extension(text, ".json")``)."""
    return os.path.splitext(text)[1] == ".json"


def _read_json_file(text: str, option: str, shape: str) -> Any:
    path = expand_home(text)
    try:
        with open(path, encoding="utf-8") as f:
            content = f.read()
    except OSError as e:
        raise UserError(
            f"{option} names the file '{path}' but it cannot be read ({e.strerror}). Give an existing .json "
            f"file holding {shape}, or write the value on the command line."
        ) from e
    return content


def _loads(text: str, option: str, where: str, otherwise: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as e:
        raise UserError(f"{option}: {where} is not valid JSON ({e}). Fix the JSON, or {otherwise}.") from e


def csv_items(text: str, *, option: str) -> list[str]:
    """The items of a Rally list option: ``"a, b"`` -> ``["a", "b"]``; ``'["a","b"]'`` and a ``.json``
    file holding that array -> ``["a", "b"]``; ``""`` -> ``[]`` (Rally's ``opts.csv_to_list``).

    Raises:
        UserError: an unreadable ``.json`` file, a file that does not hold a JSON array of strings
            (Rally: "csv args only support arrays in json"), invalid JSON, or an item that is not a
            string (Rally passes it on and fails later).
    """
    if names_json_file(text):
        content = _read_json_file(text, option, 'a JSON array such as ["a", "b"]')
        if not JSON_ARRAY_START.match(content):
            raise UserError(
                f"{option}: the file '{expand_home(text)}' does not hold a JSON array of strings (a file "
                'given to a list option must, e.g. ["a", "b"]); write the list as a,b instead.'
            )
        items = _loads(content, option, f"the file '{expand_home(text)}'", _AS_CSV)
    elif JSON_ARRAY_START.match(text):
        items = _loads(text, option, "the value", _AS_CSV)
    elif not text.strip():
        return []
    else:
        return [item.strip() for item in text.split(",")]
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise UserError(
            f"{option}: the JSON array {json.dumps(items)} holds items that are not strings; write each "
            'item in double quotes, e.g. ["a", "b"].'
        )
    return items


def rally_scalar(text: str) -> Any:
    """A ``key:value`` value as Rally's ``opts.kv_to_map`` converts it: ``'x'`` -> ``"x"`` (the text
    between the quotes; Rally drops the first and the last character), ``"3"`` -> 3, ``"0.5"`` -> 0.5,
    ``"TRUE"`` -> True, ``"None"`` -> None, anything else the text itself. ``text`` is stripped."""
    if text.startswith("'"):
        return text[1:-1]
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    return text


def kv_pairs(text: str, *, option: str, example: str) -> list[tuple[str, Any]]:
    """The ``key:value`` items of ``text`` in order (a key may come twice), values converted by
    :func:`rally_scalar`; empty items are skipped. A value may itself contain ``:`` (Rally fails
    on it: "too many values to unpack"), the first ``:`` separates.

    Raises:
        UserError: an item without ``:`` or with an empty key; a value that is not a finite number
            but reads as one (``nan``, ``inf``: JSON cannot store it; quote it).
    """
    pairs: list[tuple[str, Any]] = []
    for raw in text.split(","):
        item = raw.strip()
        if not item:
            continue
        key, sep, value = item.partition(":")
        if not sep or not key.strip():
            raise UserError(
                f"Invalid {option} value {item!r}: write KEY:VALUE (several separated by commas), "
                f"e.g. {option}={example}, or a JSON object."
            )
        converted = rally_scalar(value.strip())
        if isinstance(converted, float) and not math.isfinite(converted):
            raise UserError(
                f"{option}: the value of {key.strip()!r} reads as the number {value.strip()}, which cannot "
                f"be stored; quote it to keep it as text ({key.strip()}:'{value.strip()}')."
            )
        pairs.append((key.strip(), converted))
    return pairs


def dict_pairs(text: str, *, option: str, example: str) -> list[tuple[str, Any]]:
    """The key/value pairs of a Rally map option (``opts.to_dict``): a ``.json`` file holding an
    object, a JSON object, else :func:`kv_pairs`. ``text`` is stripped; empty gives none.

    Raises:
        UserError: an unreadable file, invalid JSON in a file, JSON that is not an object (Rally
            takes it and fails later), or a bad ``key:value`` item (:func:`kv_pairs`).
    """
    text = text.strip()
    value: Any
    if names_json_file(text):
        content = _read_json_file(text, option, 'a JSON object such as {"key": "value"}')
        value = _loads(
            content, option, f"the file '{expand_home(text)}'", f"write key:value pairs ({example})"
        )
    else:
        try:
            value = json.loads(text)
        except ValueError:
            return kv_pairs(text, option=option, example=example)
    if not isinstance(value, dict):
        raise UserError(
            f"{option}: {json.dumps(value)} is JSON but not an object; write a JSON object such as "
            f'{{"key": "value"}}, or key:value pairs such as {example}.'
        )
    return [(str(k), v) for k, v in value.items()]
