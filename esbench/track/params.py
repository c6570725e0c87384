"""``--track-params`` (and ``--car-params``, ``--client-options``, ``--user-tag``) parsing, and the
checks Rally applies to track params.

Parsing rules (Rally: ``esrally/utils/opts.py``, ``to_dict`` and ``kv_to_map``):

1. a value ending in ``.json`` is a JSON file holding an object;
2. else the value is tried as inline JSON (an object);
3. else it is a comma-separated ``key:value`` list; each value is converted: starting with ``'``
   → the string between the quotes; else int; else float; else ``true``/``false`` (any case) →
   bool; else ``none`` (any case) → None; else the string as given.

Differences from Rally, all for inputs Rally rejects with a traceback: the key/value separator is
the *first* ``:`` (so ``url:http://host:9200`` works), empty list entries (a trailing comma) are
ignored, and a JSON value that is not an object is a clean error.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from esbench.exceptions import TrackParamError, UserError

#: Rally treats a value as a JSON array when it starts like one (``opts.RE_JSON_ARRAY_START``, read
#: by ``csv_to_list``): ``[]`` or ``["...``.
JSON_ARRAY_START = re.compile(r'^(\s*\[\s*\])|(\s*\[\s*".*)')
_EXAMPLE = "number_of_replicas:1,bulk_size:5000"

# Names Jinja itself provides; they show up as "undeclared" but are not parameters of the track.
_JINJA_BUILTINS = frozenset(
    {"range", "dict", "lipsum", "cycler", "joiner", "namespace", "loop", "self", "varargs", "kwargs"}
)


def convert_value(value: str) -> str | int | float | bool | None:
    """A ``key:value`` value as Rally's ``opts.kv_to_map`` converts it (module docstring, rule 3):
    ``"'4'"`` -> ``"4"``, ``"4"`` -> 4, ``"0.5"`` -> 0.5, ``"TRUE"`` -> True, ``"None"`` -> None."""
    if value.startswith("'"):
        return value[1:-1]
    for convert in (int, float):
        try:
            return convert(value)
        except ValueError:
            pass
    lowered = value.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    if lowered == "none":
        return None
    return value


def parse_params(text: str, *, option: str = "--track-params") -> dict[str, object]:
    """Parse a ``key:value`` list, inline JSON object or ``.json`` file name (rules: module docstring;
    a key given twice keeps its last value, as in Rally; :func:`param_pairs` gives every pair).

    Args:
        text: the option value as given on the command line.
        option: the option name, for error messages.

    Returns:
        The params, e.g. ``parse_params("clients:8,name:'x',ratio:0.5,on:true")`` →
        ``{"clients": 8, "name": "x", "ratio": 0.5, "on": True}``.

    Raises:
        UserError: unreadable file, invalid JSON in a file, a JSON value that is not an object, or
            an entry without ``:``.
    """
    return dict(param_pairs(text, option=option))


def param_pairs(text: str, *, option: str, example: str = _EXAMPLE) -> list[tuple[str, object]]:
    """The key/value pairs of :func:`parse_params`'s forms in order, a key as often as given (a
    JSON object's keys once each); ``example`` is the ``key:value`` list messages suggest.

    Raises:
        UserError: as :func:`parse_params`.
    """
    text = text.strip()
    if text.endswith(".json"):
        path = Path(text).expanduser()
        try:
            content = path.read_text(encoding="utf-8")
        except OSError as e:
            raise UserError(
                f"{option} names the file '{path}' but it cannot be read ({e.strerror}). Give an existing "
                "JSON "
                f"file, inline JSON, or a list like key1:value1,key2:value2.",
                e,
            ) from e
        try:
            value = json.loads(content)
        except json.JSONDecodeError as e:
            raise UserError(
                f"{option} file '{path}' is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}. "
                "Fix the file.",
                e,
            ) from e
        return list(_require_object(value, option, f"the file '{path}'").items())
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        if text.startswith("{"):
            # A key cannot start with '{': this is inline JSON with a mistake, not a k:v list.
            raise UserError(
                f"{option} starts like inline JSON but is not valid JSON: {e.msg} at column {e.colno}. "
                f'Fix the JSON (e.g. {{"number_of_replicas": 0}}), or write key:value pairs.',
                e,
            ) from e
    else:
        return list(_require_object(value, option, "the inline JSON").items())
    if JSON_ARRAY_START.match(text):
        raise UserError(f"{option} must be key:value pairs or a JSON object, not a JSON array: {text}")
    result: list[tuple[str, object]] = []
    for entry in text.split(","):
        entry = entry.strip()
        if not entry:
            continue
        key, sep, raw = entry.partition(":")
        if not sep:
            raise UserError(
                f"{option} entry '{entry}' has no ':'. Write key:value pairs separated by commas "
                f"(e.g. {option}={example}), inline JSON, or a .json file name."
            )
        result.append((key.strip(), convert_value(raw.strip())))
    return result


def _require_object(value: object, option: str, what: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise UserError(
            f'{option}: {what} must be a JSON object like {{"key": value}}, '
            f"but it is a {type(value).__name__}."
        )
    return value


def parse_track_params(text: str) -> dict[str, object]:
    """Parse ``--track-params`` (see :func:`parse_params`).

    Raises:
        TrackParamError: the value cannot be parsed.
    """
    try:
        return parse_params(text, option="--track-params")
    except TrackParamError:
        raise
    except UserError as e:
        raise TrackParamError(e.message, e.cause) from e


def exposed_params(referenced: Iterable[str]) -> list[str]:
    """The names a track reads that a user can set, sorted (internal and Jinja built-in names removed)."""
    from esbench.track.render import RESERVED_NAMES  # Jinja: imported only when a track is rendered

    return sorted(set(referenced) - RESERVED_NAMES - _JINJA_BUILTINS)


def check_track_params(params: Mapping[str, object], referenced: Iterable[str], *, track_name: str) -> None:
    """Reject reserved and unused track params (Rally: ``TrackFileReader.read``).

    Args:
        params: the user's track params.
        referenced: every name the track's templates read (see
            :func:`esbench.track.render.referenced_variables`).
        track_name: for messages.

    Raises:
        TrackParamError: a param uses a reserved name (``now``, ``glob``, ``build_flavor``,
            ``serverless_operator``), or a param is not used anywhere in the track; the message lists
            close matches and the params the track exposes.
    """
    from esbench.track.render import RESERVED_NAMES

    reserved = sorted(set(params) & RESERVED_NAMES)
    if reserved:
        names = ", ".join(f"'{n}'" for n in reserved)
        raise TrackParamError(
            f"Track param(s) {names} are defined by esbench itself and cannot be set with --track-params. "
            f"Remove them from --track-params."
        )
    referenced = set(referenced)
    unused = sorted(set(params) - referenced)
    if not unused:
        return
    exposed = exposed_params(referenced)
    hints = []
    for name in unused:
        close = difflib.get_close_matches(name, exposed, n=1)
        if close:
            hints.append(f"'{name}' → '{close[0]}'")
    hint = f" Did you mean: {', '.join(hints)}?" if hints else ""
    listing = ", ".join(exposed) if exposed else "(none)"
    raise TrackParamError(
        f"Track param(s) {', '.join(repr(n) for n in unused)} are not used by track '{track_name}'.{hint} "
        f"The params this track reads are: {listing}. Fix or remove the unused names in --track-params."
    )
