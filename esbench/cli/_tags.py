"""User tags on the command line: ``--user-tags`` in Rally 2.13's forms.

Rally reads ``--user-tags`` of ``race`` and of ``list races`` with ``opts.to_dict``
(``esrally/rally.py``, ``esrally/utils/opts.py``): ``key:value,...`` pairs whose values are typed
(``count:4`` is the int 4, ``ssd:true`` True, ``'4'`` the string), a JSON object
(``'{"disk":"SSD","data_node_count":4}'``), or the name of a ``.json`` file holding one (``~``
expanded), parsed by :func:`esbench.track.params.param_pairs` as ``--track-params`` is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from esbench.exceptions import UserError
from esbench.records import tag_text
from esbench.track.params import param_pairs

_EXAMPLE = "setup:3nodes,disk:ssd"


def tag_pairs(text: str, *, option: str) -> list[tuple[str, Any]]:
    """The ``(key, typed value)`` pairs of one ``--user-tags`` value, in order (a key as often as
    given): :func:`esbench.track.params.param_pairs`, Rally's ``opts.to_dict``.

    Raises:
        UserError: what ``param_pairs`` refuses (an item without ``:``, JSON that is not an object,
            an unreadable file), an empty key, or a number JSON cannot store (``nan``, ``inf``;
            Rally stores it and the metrics store refuses the document).
    """
    pairs = param_pairs(text, option=option, example=_EXAMPLE)
    for key, value in pairs:
        if not key:
            raise UserError(f"{option} has a value without a key; write KEY:VALUE, e.g. {option}={_EXAMPLE}.")
        if not _finite(value):
            raise UserError(
                f"{option}: the value of {key!r} is or holds a number that cannot be stored ({value}); quote "
                f"it to keep it as text ({key}:'{value}')."
            )
    return pairs


def _finite(value: object) -> bool:
    """No number JSON cannot store anywhere in ``value`` (a nested list or object included)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_finite(v) for v in value)
    return True


def parse_tag_filter(values: Sequence[str], *, option: str = "--user-tags") -> dict[str, tuple[str, ...]]:
    """A user tag filter: ``("setup:a", "setup:b,env:ci")`` -> ``{"setup": ("a", "b"), "env": ("ci",)}``;
    each value in any form of :func:`parse_user_tags`.

    A race matches when, for every key, its tag has one of the values (a race has one value per key,
    so a key given twice means either value; Rally keeps the last). The values are the
    :func:`esbench.records.tag_text` of the typed values (``count:4`` and ``{"count": 4}`` give
    ``"4"``), compared with the same text of a stored tag.

    Raises:
        UserError: a value :func:`tag_pairs` refuses.
    """
    wanted: dict[str, tuple[str, ...]] = {}
    for value in values:
        for key, typed in tag_pairs(value, option=option):
            text = tag_text(typed)
            if text not in wanted.get(key, ()):
                wanted[key] = (*wanted.get(key, ()), text)
    return wanted


def parse_user_tags(text: str, *, option: str = "--user-tags") -> dict[str, Any]:
    """The tags of a new race, typed as Rally stores them: ``"setup:3nodes,nodes:3"`` ->
    ``{"setup": "3nodes", "nodes": 3}``; ``'{"disk": "SSD", "n": 4}'`` -> ``{"disk": "SSD", "n": 4}``;
    ``"tags.json"`` -> the object in that file; ``""`` -> ``{}``.

    A race has one value per key, so a key given twice with different values is an error (Rally
    silently keeps the last).

    Raises:
        UserError: a value :func:`tag_pairs` refuses, or a key with two values.
    """
    tags: dict[str, Any] = {}
    twice: dict[str, list[str]] = {}
    for key, value in tag_pairs(text, option=option):
        if key in tags and tag_text(tags[key]) != tag_text(value):
            twice.setdefault(key, [tag_text(tags[key])]).append(tag_text(value))
        tags[key] = value
    if twice:
        raise UserError(
            f"{option} gives {', '.join(repr(k) for k in sorted(twice))} more than one value "
            f"({'; '.join(k + ': ' + ', '.join(twice[k]) for k in sorted(twice))}). A race has one value per "
            "tag key: keep one, or use another key."
        )
    return tags
