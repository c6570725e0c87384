"""Rally 2.13's list values and file names on the command line (``esrally/utils/opts.py``,
``esrally/utils/io.py``); its ``key:value`` maps (``to_dict``) are :func:`esbench.track.params.param_pairs`.

- ``csv_to_list``: a list option (``--telemetry``, ``--include-tasks``, ``--car``...) is a comma-
  separated list (items stripped), a JSON array of strings (text that starts like ``[]`` or
  ``["``, :data:`esbench.track.params.JSON_ARRAY_START`), or the name of a ``.json`` file holding
  such an array; an empty value is the empty list.
- ``io.normalize_path``: a file name has ``~`` expanded (``os.path.expanduser``).

Where Rally crashes on a value (a list item that is not a string) :func:`csv_items` raises
:class:`UserError` with what to write instead.
"""

from __future__ import annotations

import json
import os
from typing import Any

from esbench.exceptions import UserError
from esbench.track.params import JSON_ARRAY_START

__all__ = ["JSON_ARRAY_START", "csv_items", "expand_home", "names_json_file", "normalized"]

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


def normalized(value: str, *, option: str, json_file: bool, csv: bool) -> str:
    """An option value as its command reads it: with ``json_file``, a ``.json`` file name with
    ``~`` expanded; with ``csv`` (a Rally list option), a JSON array of strings or a ``.json`` file
    holding one as the comma-separated text of its items (stripped), which the command splits at
    commas as it splits the plain form. Any other value unchanged.

    Raises:
        UserError: a JSON list Rally would not read (:func:`csv_items`), or an item holding a comma
            (the comma-separated form cannot carry it).
    """
    stripped = value.strip()
    json_form = json_file and names_json_file(stripped)
    if csv and (json_form or JSON_ARRAY_START.match(value)):
        items = [item.strip() for item in csv_items(stripped, option=option)]
        with_comma = [item for item in items if "," in item]
        if with_comma:
            raise UserError(
                f"{option}: the item {with_comma[0]!r} holds a comma, which no name this option takes has; "
                "give each name as its own item."
            )
        return ",".join(items)
    return expand_home(stripped) if json_form else value
