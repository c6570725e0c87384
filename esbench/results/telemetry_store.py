"""Telemetry series in the results store: one row per series, samples as compressed binary arrays.

A race with ``node-stats`` holds hundreds of series of up to a few thousand samples each; as JSON in
the race row they would be parsed by every ``esbench list races``. Here they live in their own table
(schema step 3 in :mod:`esbench.results.migrations`), read only when a whole race is loaded. Each of
``timestamps`` and ``values`` is an array of little-endian IEEE-754 doubles compressed with zstd
(:func:`encode_floats`), which round-trips every float exactly.
"""

from __future__ import annotations

import sqlite3
import sys
from array import array
from collections.abc import Iterable, Sequence

import zstandard

from esbench.records import TelemetrySeries

_LEVEL = 3


def encode_floats(values: Sequence[float]) -> bytes:
    """``values`` as zstd-compressed little-endian float64s."""
    packed = array("d", values)
    if sys.byteorder == "big":
        packed.byteswap()
    return zstandard.ZstdCompressor(level=_LEVEL).compress(packed.tobytes())


def decode_floats(blob: bytes) -> tuple[float, ...]:
    """Inverse of :func:`encode_floats`."""
    packed = array("d")
    packed.frombytes(zstandard.ZstdDecompressor().decompress(blob))
    if sys.byteorder == "big":
        packed.byteswap()
    return tuple(packed)


def create_table(conn: sqlite3.Connection) -> None:
    """Schema step 3: the ``telemetry_series`` table."""
    conn.execute(
        """CREATE TABLE telemetry_series (
            race_id TEXT NOT NULL REFERENCES races (race_id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            device TEXT NOT NULL,
            metric TEXT NOT NULL,
            unit TEXT NOT NULL,
            node TEXT NOT NULL,
            timestamps BLOB NOT NULL,
            samples BLOB NOT NULL,
            PRIMARY KEY (race_id, position)
        )"""
    )


def save_series(conn: sqlite3.Connection, race_id: str, series: Iterable[TelemetrySeries]) -> None:
    """Insert the series of ``race_id`` (inside the caller's transaction)."""
    conn.executemany(
        "INSERT INTO telemetry_series (race_id, position, device, metric, unit, node, timestamps, samples) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (
                race_id,
                i,
                s.device,
                s.metric,
                s.unit,
                s.node,
                encode_floats(s.timestamps),
                encode_floats(s.values),
            )
            for i, s in enumerate(series)
        ),
    )


def load_series(conn: sqlite3.Connection, race_id: str) -> list[dict[str, object]]:
    """The series of ``race_id`` in stored order, as ``TelemetrySeries.from_dict`` dicts."""
    return [
        {
            "device": device,
            "metric": metric,
            "unit": unit,
            "node": node,
            "timestamps": decode_floats(times),
            "values": decode_floats(samples),
        }
        for device, metric, unit, node, times, samples in conn.execute(
            "SELECT device, metric, unit, node, timestamps, samples FROM telemetry_series "
            "WHERE race_id = ? ORDER BY position",
            (race_id,),
        )
    ]
