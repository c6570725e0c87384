"""What the metrics-store oracle tests compare: the fields of two documents (one a peer tool wrote,
one esbench wrote) and the rows of a compare table. Shared by the Rally oracle
(tests/integration/test_rally_store.py) and the OSB oracle (tests/integration/test_osb_store.py).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from typing import Any


def json_type(value: Any) -> str:
    """The JSON type of ``value`` (``number`` for int and float)."""
    return type(value).__name__.replace("int", "number").replace("float", "number")


def fields(doc: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    """(dotted path, JSON type) of every leaf of ``doc``; lists and empty objects are leaves."""
    for key, value in doc.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            yield from fields(value, f"{path}.")
        else:
            yield path, json_type(value)


def compare_fields(
    kind: str,
    theirs_doc: dict[str, Any],
    ours: dict[str, Any],
    *,
    gaps: Collection[tuple[str, str]],
    skip: tuple[str, ...] = (),
    tool: str = "Rally",
) -> None:
    """Assert that esbench's document ``ours`` has the fields of the peer's ``theirs_doc`` (every
    leaf, with its JSON type; None where the peer has a value only for the ``(kind, path)`` in
    ``gaps``) and no others (its ``esbench`` object aside). ``skip``: path prefixes compared elsewhere."""
    theirs = dict(fields(theirs_doc))
    mine = dict(fields({k: v for k, v in ours.items() if k != "esbench"}))
    wanted = {p: t for p, t in theirs.items() if (kind, p) not in gaps and not p.startswith(skip)}
    missing_fields = sorted(p for p in wanted if p not in mine)
    assert not missing_fields, f"{kind}: fields {tool} writes that esbench does not: {missing_fields}"
    # None where the peer has a value is a gap (listed by the caller) only; another type is wrong.
    wrong = sorted(
        (p, t, mine[p]) for p, t in wanted.items() if mine[p] != t and "NoneType" not in (t, mine[p])
    )
    assert not wrong, f"{kind}: fields of another JSON type (path, {tool}, esbench): {wrong}"
    extra = sorted(p for p in mine if p not in theirs and not p.startswith(skip) and (kind, p) not in gaps)
    assert not extra, f"{kind}: fields esbench writes that {tool} does not: {extra}"


def table_rows(text: str, columns: int) -> list[list[str]]:
    """The cells of each data row of a markdown table of ``columns`` columns in ``text`` (ANSI colours
    removed; the header and the separator are left out)."""
    rows = []
    for line in re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == columns and cells[0] not in ("Metric", "") and not set(cells[0]) <= {"-", ":"}:
            rows.append(cells)
    return rows
