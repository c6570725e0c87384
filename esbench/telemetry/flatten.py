"""Flattening of Elasticsearch stats documents into dotted metric names with units.

Rule (esrally ``telemetry.flatten_stats_fields``): nested objects are walked, numbers (not booleans)
become metrics, lists and strings are skipped. esbench joins the path with ``.`` (the Elasticsearch
response path, e.g. ``thread_pool.write.rejected``) where Rally joins it with ``_``
(``thread_pool_write_rejected``); replace one separator by the other to map names. Fields called
``timestamp`` are sample times, not metrics, and are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

# Suffix of an Elasticsearch field name -> unit (ES: ``*_in_bytes``, ``*_in_millis``... naming).
_UNIT_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("_in_bytes", "bytes"),
    ("_bytes", "bytes"),
    ("_in_millis", "ms"),
    ("_millis", "ms"),
    ("_in_nanos", "ns"),
    ("_nanos", "ns"),
    ("_micros", "µs"),
    ("_kilobytes", "KiB"),
    ("_percent", "%"),
    ("percent", "%"),
)


def unit_of(metric: str) -> str:
    """The unit implied by the last name segment (``heap_used_in_bytes`` -> ``bytes``; ``""`` if none)."""
    leaf = metric.rsplit(".", 1)[-1]
    return next((unit for suffix, unit in _UNIT_SUFFIXES if leaf.endswith(suffix)), "")


def flatten(stats: object, prefix: str = "") -> Iterator[tuple[str, float]]:
    """``(dotted name, value)`` for every number in ``stats`` (rule: module docstring).

    Example: ``flatten({"jvm": {"mem": {"heap_used_percent": 41}}})`` yields
    ``("jvm.mem.heap_used_percent", 41.0)``.
    """
    if not isinstance(stats, Mapping):
        return
    for key, value in stats.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            yield from flatten(value, name)
        elif isinstance(value, int | float) and not isinstance(value, bool) and key != "timestamp":
            yield name, float(value)
