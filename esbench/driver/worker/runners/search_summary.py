"""What a search runner reads from a response body without parsing all of it: hits, totals, took,
timed_out, scroll and point-in-time ids, the last hit's sort values (byte patterns first, JSON only
when ``detailed-results`` asks for it)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from esbench.driver.transport import jsonutil

_HITS_ARRAY = b'"hits":['
_AGGREGATIONS = b'"aggregations":'
_TOOK = re.compile(rb'"took":(\d+)')
_TIMED_OUT = re.compile(rb'"timed_out":(true|false)')
_HITS_OBJECT = b'"hits":{'
_TOTAL_OBJECT = re.compile(rb'"total":\{"value":(\d+)(?:,"relation":"(\w+)")?\}')
_TOTAL_NUMBER = re.compile(rb'"total":(\d+)')
_PIT_ID = re.compile(rb'"pit_id":"([^"]+)"')
SCROLL_ID = re.compile(rb'"_scroll_id":"([^"]+)"')
EMPTY_HITS = b'"hits":[]'
_SORT = b'"sort":'
_DECODER = json.JSONDecoder()


@dataclass(frozen=True, slots=True)
class SearchSummary:
    """The values read from a search response (None when absent)."""

    took: int | None
    timed_out: bool | None
    hits: int | None
    hits_relation: str | None
    pit_id: str | None


def summarize(body: bytes) -> SearchSummary:
    """``took``, ``timed_out``, ``hits.total`` and ``pit_id`` of a search response.

    Only the part before the hits array is scanned (the hits' sources may contain anything); a
    response in another layout (e.g. ``?pretty``) is parsed completely instead. ``hits.total`` is
    read inside the outer ``hits`` object only (``_shards`` has a ``total`` too): an object
    ``{"value": n, "relation": r}``, a number (``rest_total_hits_as_int``), or absent
    (``track_total_hits: false``: None).
    """
    end = body.find(_HITS_ARRAY)
    head = body if end < 0 else body[:end]
    took = _TOOK.search(head)
    if took is None:
        return _summarize_parsed(body)
    timed_out = _TIMED_OUT.search(head)
    hits: int | None = None
    relation: str | None = None
    # The outer hits object is the last one that opens before the hits array.
    hits_at = head.rfind(_HITS_OBJECT)
    if hits_at >= 0:
        total = _TOTAL_OBJECT.search(head, hits_at)
        if total is not None:
            hits = int(total.group(1))
            relation = total.group(2).decode() if total.group(2) else "eq"
        else:
            number = _TOTAL_NUMBER.search(head, hits_at)
            if number is not None:
                hits, relation = int(number.group(1)), "eq"
    pit = _PIT_ID.search(head)
    return SearchSummary(
        took=int(took.group(1)),
        timed_out=(timed_out.group(1) == b"true") if timed_out else None,
        hits=hits,
        hits_relation=relation,
        pit_id=pit.group(1).decode() if pit else None,
    )


def _summarize_parsed(body: bytes) -> SearchSummary:
    try:
        data = jsonutil.loads(body)
    except ValueError:
        return SearchSummary(None, None, None, None, None)
    if not isinstance(data, dict):
        return SearchSummary(None, None, None, None, None)
    total = (data.get("hits") or {}).get("total")
    if isinstance(total, dict):
        hits, relation = total.get("value"), total.get("relation")
    else:
        hits, relation = total, ("eq" if total is not None else None)
    return SearchSummary(data.get("took"), data.get("timed_out"), hits, relation, data.get("pit_id"))


def last_sort_values(body: bytes) -> Any:
    """The ``sort`` values of the last hit (for ``search_after``), or None if there are none."""
    end = body.find(_AGGREGATIONS)
    if end < 0:
        end = len(body)
    idx = body.rfind(_SORT, 0, end)
    if idx < 0:
        return None
    text = body[idx + len(_SORT) : end].decode("utf-8", "replace").lstrip()
    try:
        value, _ = _DECODER.raw_decode(text)
    except ValueError:
        return None
    return value
