"""Helpers for the track tests: small track documents; esbench's model vs. Rally's golden files.

``dump_track`` turns an esbench :class:`~esbench.track.model.Track` into the same JSON shape that
``tests/resources/tracks/regenerate_golden.py`` writes for Rally's track objects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from esbench.track.model import Parallel, Task, Track

TRACKS_DIR = Path(__file__).resolve().parents[2] / "resources" / "tracks"
GOLDEN_DIR = TRACKS_DIR / "golden"
FIXED_NOW = 1700000000.0


def cases() -> list[tuple[str, dict[str, Any]]]:
    """All (track name, case) pairs of ``cases.json``."""
    data = json.loads((TRACKS_DIR / "cases.json").read_text(encoding="utf-8"))
    return [(track, case) for track, track_cases in data.items() for case in track_cases]


def golden(track: str, case: str, kind: str) -> Any:
    """The golden JSON ``golden/<track>/<case>.<kind>.json``."""
    return json.loads((GOLDEN_DIR / track / f"{case}.{kind}.json").read_text(encoding="utf-8"))


def _task(t: Task) -> dict[str, Any]:
    return {
        "name": t.name,
        "operation": {
            "name": t.operation.name,
            "type": t.operation.operation_type,
            "params": dict(t.operation.params),
            "param_source": t.operation.param_source,
            "include_in_reporting": t.operation.include_in_reporting,
            "meta": dict(t.operation.meta),
        },
        "clients": t.clients,
        "warmup_iterations": t.warmup_iterations,
        "iterations": t.iterations,
        "warmup_time_period": t.warmup_time_period,
        "time_period": t.time_period,
        "ramp_up_time_period": t.ramp_up_time_period,
        "schedule": t.schedule,
        "target_throughput": None
        if t.target_throughput is None
        else [t.target_throughput.value, t.target_throughput.unit],
        "completes_parent": t.completes_parent,
        "any_completes_parent": t.any_completes_parent,
        "tags": list(t.tags),
        "params": {k: v for k, v in t.params.items() if k != "operation"},
        "meta": dict(t.meta),
    }


def dump_track(t: Track) -> dict[str, Any]:
    """``t`` in the shape of Rally's golden model files."""

    def schedule(items: Any) -> list[Any]:
        return [
            {"parallel": {"clients": i.clients, "tasks": [_task(x) for x in i.tasks]}}
            if isinstance(i, Parallel)
            else _task(i)
            for i in items
        ]

    out = {
        "name": t.name,
        "description": t.description,
        "meta": dict(t.meta),
        "dependencies": list(t.dependencies),
        # Rally stores a missing index body as {}, esbench as None.
        "indices": [{"name": i.name, "body": i.body if i.body is not None else {}} for i in t.indices],
        "data_streams": [d.name for d in t.data_streams],
        "templates": [
            {
                "name": x.name,
                "pattern": x.pattern,
                "content": x.content,
                "delete_matching_indices": x.delete_matching_indices,
            }
            for x in t.templates
        ],
        "composable_templates": [
            {
                "name": x.name,
                "pattern": x.pattern,
                "content": x.content,
                "delete_matching_indices": x.delete_matching_indices,
            }
            for x in t.composable_templates
        ],
        "component_templates": [{"name": x.name, "content": x.content} for x in t.component_templates],
        "corpora": [
            {
                "name": c.name,
                "meta": dict(c.meta),
                "documents": [
                    {
                        "source_file": d.source_file,
                        "document_count": d.document_count,
                        "base_url": d.base_url,
                        "compressed_bytes": d.compressed_bytes,
                        "uncompressed_bytes": d.uncompressed_bytes,
                        "includes_action_and_meta_data": d.includes_action_and_meta_data,
                        "target_index": d.target_index,
                        "target_data_stream": d.target_data_stream,
                        "target_type": d.target_type,
                        "meta": dict(d.meta),
                    }
                    for d in c.documents
                ],
            }
            for c in t.corpora
        ],
        "challenges": [
            {
                "name": c.name,
                "description": c.description,
                "user_info": c.user_info,
                "default": c.default,
                "parameters": dict(c.parameters),
                "meta": dict(c.meta),
                "schedule": schedule(c.schedule),
            }
            for c in t.challenges
        ],
    }
    # Round-trip through JSON so tuples/lists and int/float compare like the golden files.
    return json.loads(json.dumps(out, sort_keys=True))


def simple_track(**overrides: Any) -> dict[str, Any]:
    """A minimal valid track document; keys in ``overrides`` replace/extend it (None deletes)."""
    spec: dict[str, Any] = {
        "version": 2,
        "indices": [{"name": "idx"}],
        "corpora": [{"name": "c", "documents": [{"source-file": "docs.json", "document-count": 10}]}],
        "schedule": [{"operation": {"operation-type": "bulk", "bulk-size": 5}}],
    }
    for key, value in overrides.items():
        if value is None:
            spec.pop(key, None)
        else:
            spec[key] = value
    return spec
