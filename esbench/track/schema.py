"""Validation of a rendered track against the track schema (``track-schema.json`` beside this file).

The schema is esbench's own, written after the constraints of Rally's track format version 2
(``esrally/resources/track-schema.json``): the same required keys, types and minimums, plus a few
checks Rally makes later in its reader (``document-count`` required, inline operations need an
``operation-type``). Errors name the file and a JSON path such as
``$.challenges[0].schedule[2].clients``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

from esbench.exceptions import TrackValidationError

SCHEMA_PATH = Path(__file__).with_name("track-schema.json")
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_@.-]*$")


@cache
def _validator() -> jsonschema.Draft7Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft7Validator(schema)


def json_path(path: Iterable[object]) -> str:
    """A JSONPath-like string for a path of keys/indices, e.g. ``$.challenges[0].schedule[2].clients``."""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.match(str(part)) and "." not in str(part):
            out += f".{part}"
        else:
            out += "[" + json.dumps(str(part)) + "]"
    return out


def _names_along(spec: Any, path: Iterable[object]) -> list[str]:
    names: list[str] = []
    node = spec
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, Mapping) and isinstance(node.get("name"), str):
            names.append(node["name"])
    return names


def _describe(error: ValidationError, spec: object) -> str:
    path = list(error.absolute_path)
    names = _names_along(spec, path)
    context = f" (in {' > '.join(repr(n) for n in names)})" if names else ""
    return f"at {json_path(path)}{context}: {error.message}"


def validate_track(spec: object, *, file: Path | str) -> None:
    """Validate a rendered track document.

    Args:
        spec: the parsed, rendered track JSON.
        file: the track file, for the message.

    Raises:
        TrackValidationError: the document violates the schema; the message names the file, the
            JSON path of the (most relevant) error and how to fix it.
    """
    errors = list(_validator().iter_errors(spec))
    if not errors:
        return
    error = best_match(errors)
    assert error is not None
    others = len(errors) - 1
    more = (
        f" ({others} more problem{'s' if others != 1 else ''} may follow once this one is fixed)"
        if others
        else ""
    )
    raise TrackValidationError(
        f"Track file '{file}' is invalid {_describe(error, spec)}{more}. Fix that element of the track "
        f"(the path is in the rendered track; `esbench render-track` shows it) and see docs/tracks.md for "
        f"the track format."
    )
