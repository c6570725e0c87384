"""The rows of ``esbench list tracks``: Rally's columns and formatting.

Rally (esrally/track/loader.py ``list_tracks``) prints Name, Description, Documents, Compressed
Size, Uncompressed Size and, unless every listed track's default challenge was generated from a
top-level ``schedule``, Default Challenge and All Challenges; rows sorted by name. Numbers are
``f"{n:,}"`` and sizes binary with one decimal and no space (``1.2GB``, ``512B``)
(esrally/utils/pretty.py ``number``/``size``, esrally/utils/convert.py ``Size.__str__``); a size that
is unknown for any document file of the track is ``N/A`` (``Track.compressed_size_in_bytes``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from esbench.exceptions import EsbenchError
from esbench.track.model import Track

#: Rally's headers, in its order.
BASE_HEADERS: tuple[str, ...] = ("Name", "Description", "Documents", "Compressed Size", "Uncompressed Size")
CHALLENGE_HEADERS: tuple[str, ...] = ("Default Challenge", "All Challenges")

_UNITS: tuple[str, ...] = ("B", "KB", "MB", "GB", "TB")


def rally_number(n: int | None) -> str:
    """``1,234,567``; ``N/A`` for None (esrally/utils/pretty.py ``number``)."""
    return "N/A" if n is None else f"{n:,}"


def rally_size(n: int | None) -> str:
    """A byte count as Rally prints it: ``512B``, ``1.5KB``, ``2.3GB`` (1024-based, one decimal
    above bytes, at most TB); ``N/A`` for None (esrally/utils/convert.py ``Size.__str__``)."""
    if n is None:
        return "N/A"
    magnitude = abs(n)
    index = 0
    while index + 1 < len(_UNITS) and magnitude >= 1024 ** (index + 1):
        index += 1
    if index == 0:
        return f"{int(n)}B"
    return f"{n / 1024**index:.1f}{_UNITS[index]}"


def _total_size(track: Track, compressed: bool) -> int | None:
    total = 0
    for corpus in track.corpora:
        for docs in corpus.documents:
            size = docs.compressed_bytes if compressed else docs.uncompressed_bytes
            if docs.source_format != "bulk" or size is None:
                return None
            total += size
    return total


@dataclass(frozen=True, kw_only=True)
class TrackEntry:
    """One track to list: its name, and the loaded track or why it could not be loaded."""

    name: str
    track: Track | None = None
    error: EsbenchError | None = None


@dataclass(frozen=True, kw_only=True)
class TrackListing:
    """``headers`` and one row of strings per track (sorted by name), ready for a table, and the
    alignment of each column (``"left"``/``"right"``).

    Rally's tabulate (0.8.9) right-aligns a column only when all its values parse as numbers, which
    ``11,396,503`` does not: so Documents is right-aligned only when every count is below 1,000.
    """

    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: tuple[str, ...] = ()


def track_listing(entries: Iterable[TrackEntry]) -> TrackListing:
    """Rally's ``list tracks`` table of ``entries``.

    A track that could not be loaded keeps its row, with ``(cannot load: <first line of the
    error>)`` as its description and ``N/A`` elsewhere, so that one broken track does not hide the
    others (Rally stops at the first one).
    """
    entries = list(entries)
    loaded = [e.track for e in entries if e.track is not None]
    with_challenges = not loaded or not all(t.default_challenge.auto_generated for t in loaded)
    headers = BASE_HEADERS + (CHALLENGE_HEADERS if with_challenges else ())
    rows: list[tuple[str, ...]] = []
    for entry in entries:
        track = entry.track
        if track is None:
            problem = entry.error.message.splitlines()[0][:80] if entry.error else "unknown error"
            row = [entry.name, f"(cannot load: {problem})", "N/A", "N/A", "N/A"]
            rows.append(tuple(row + (["N/A", ""] if with_challenges else [])))
            continue
        docs = sum(d.document_count for c in track.corpora for d in c.documents if d.source_format == "bulk")
        row = [
            entry.name,
            track.description,
            rally_number(docs),
            rally_size(_total_size(track, compressed=True)),
            rally_size(_total_size(track, compressed=False)),
        ]
        if with_challenges:
            row.append(track.default_challenge.name)
            row.append(",".join(sorted(c.name for c in track.challenges)))
        rows.append(tuple(row))
    rows.sort(key=lambda r: r[0])
    numeric = bool(rows) and all(r[2].isdigit() for r in rows)
    align = tuple("right" if i == 2 and numeric else "left" for i in range(len(headers)))
    return TrackListing(headers=headers, rows=tuple(rows), align=align)


#: OSB's headers of ``list workloads`` (``osbenchmark/workload/loader.py`` ``list_workloads``).
OSB_TEST_PROCEDURE_HEADERS: tuple[str, ...] = ("Default TestProcedure", "All TestProcedures")


def osb_size(n: int | None) -> str:
    """A byte count as OSB prints it: ``N/A`` for None, else ``%.1f GB``/``MB``/``kB`` for the first
    unit it is above 1 of (1024-based), else ``%d bytes`` (``osbenchmark/utils/convert.py``
    ``bytes_to_human_string``)."""
    if n is None:
        return "N/A"
    for power, unit in ((3, "GB"), (2, "MB"), (1, "kB")):
        if n / 1024**power > 1.0:
            return f"{n / 1024**power:.1f} {unit}"
    return f"{int(n)} bytes"


def osb_track_listing(entries: Iterable[TrackEntry]) -> TrackListing:
    """OSB's ``list workloads`` table of ``entries``: Rally's rows (:func:`track_listing`) with OSB's
    headers (Default TestProcedure, All TestProcedures), OSB's sizes (:func:`osb_size`), the test
    procedures in the workload's order rather than sorted (OSB joins ``workload.test_procedures`` as
    declared) and OSB's alignment."""
    entries = list(entries)
    rally = track_listing(entries)
    by_name = {e.name: e.track for e in entries}
    with_procedures = len(rally.headers) > len(BASE_HEADERS)
    headers = BASE_HEADERS + (OSB_TEST_PROCEDURE_HEADERS if with_procedures else ())
    rows = []
    for row in rally.rows:
        track = by_name.get(row[0])
        if track is None:
            rows.append(row)
            continue
        cells = [
            *row[:3],
            osb_size(_total_size(track, compressed=True)),
            osb_size(_total_size(track, compressed=False)),
        ]
        if with_procedures:
            cells += [track.default_challenge.name, ",".join(c.name for c in track.challenges)]
        rows.append(tuple(cells))
    # OSB's tabulate (0.9) reads 1,234,567 as a number: Documents is right-aligned whenever every
    # count is one.
    numeric = bool(rows) and all(r[2].replace(",", "").isdigit() for r in rows)
    align = tuple("right" if i == 2 and numeric else "left" for i in range(len(headers)))
    return TrackListing(headers=headers, rows=tuple(rows), align=align)
