"""The per-request sample documents encoded straight into bulk bodies are the documents of the
dict form (the specification), one for one, in order."""

from __future__ import annotations

import dataclasses
import json
import random
from array import array

from esbench.records.samples import FAILED, WARMUP, RequestSamples
from esbench.results import store_documents as docs
from esbench.results.sample_bulk import sample_bulk_bodies
from esbench.results.store_layout import LAYOUTS
from esbench.results.store_metric_documents import sample_documents


def _samples(n: int, *, task_start: float | None) -> RequestSamples:
    rng = random.Random(11)
    flags = array("B", (rng.choice([0, 0, 0, WARMUP, FAILED, FAILED | WARMUP]) for _ in range(n)))
    errors = {
        i: rng.choice(["transport", "http 503", "timeout"]) for i in range(n) if flags[i] & FAILED and i % 5
    }
    return RequestSamples(
        task="search-1",
        operation="term query",
        operation_type="search",
        task_start_epoch=task_start,
        start_epoch=array("d", (1_764_000_000.0 + i * 0.000731 + rng.random() * 1e-4 for i in range(n))),
        latency_ms=array("d", (rng.expovariate(0.1) for _ in range(n))),
        service_time_ms=array("d", (rng.expovariate(0.2) for _ in range(n))),
        processing_time_ms=array("d", (rng.expovariate(0.15) for _ in range(n))),
        flags=flags,
        error_types=errors,
    )


CONTEXT = docs.RaceContext(
    layout=LAYOUTS[next(iter(LAYOUTS))],
    race_id="4c4f7b5e-0d7c-4d3e-9f1b-0d2c7a1e5b11",
    race_timestamp="20261128T120000Z",
    environment="nightly",
    track="geonames",
    challenge="append-no-conflicts",
    car="4gheap+trial-license",
    track_params={"bulk_size": 500, "ingest_percentage": 10},
    user_tags={"branch": "main", "intention": "naïve ✓"},
)


def _decoded(bodies: list[tuple[bytes, int]], index: str) -> list[dict[str, object]]:
    documents = []
    for body, count in bodies:
        lines = body.decode().splitlines()
        assert len(lines) == 2 * count
        for action, source in zip(lines[0::2], lines[1::2], strict=True):
            assert json.loads(action) == {"index": {"_index": index}}
            documents.append(json.loads(source))
    return documents


def test_every_document_equals_the_dict_form_field_by_field() -> None:
    for layout in LAYOUTS.values():
        ctx = dataclasses.replace(CONTEXT, layout=layout)
        for task_start in (1_764_000_000.0 - 2.5, None):
            samples = _samples(2_000, task_start=task_start)
            expected = list(sample_documents(ctx, samples))
            bodies = list(
                sample_bulk_bodies(
                    ctx.common(), ctx.meta(), samples, "metrics", relative_field=layout.fields.relative_time
                )
            )
            got = _decoded(bodies, "metrics")
            assert len(got) == len(expected) == 3 * len(samples)
            assert got == expected, layout
            # Every outcome occurs: warmup and normal, success and each failure kind.
            outcomes = {(d["sample-type"], d["meta"].get("error-type")) for d in got}  # type: ignore[union-attr]
            assert outcomes >= {
                ("normal", None),
                ("warmup", None),
                ("normal", "unknown"),
                ("warmup", "transport"),
            }


def test_bodies_stop_growing_at_the_size_limit_and_lose_nothing() -> None:
    samples = _samples(1_000, task_start=None)
    bodies = list(sample_bulk_bodies(CONTEXT.common(), CONTEXT.meta(), samples, "i", max_body_bytes=20_000))
    assert len(bodies) > 10
    # A body ends with the request that took it to the limit (counted in characters).
    for body, _ in bodies[:-1]:
        text = body.decode()
        without_last_request = text[: len(text) - len("".join(text.splitlines(keepends=True)[-6:]))]
        assert len(without_last_request) < 20_000 <= len(text)
    assert sum(count for _, count in bodies) == 3_000
    assert _decoded(bodies, "i") == list(sample_documents(CONTEXT, samples))


def test_no_requests_no_body() -> None:
    assert list(sample_bulk_bodies(CONTEXT.common(), CONTEXT.meta(), _samples(0, task_start=None), "i")) == []
