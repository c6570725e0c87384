"""Who gets bulk bodies as views (issue 25): the built-in bulk runner only, never a plugin's runner.

The built-in runner sends ``params["body"]`` as it is, so the bulk param source hands it read-only
views of a looped slice's spool from the second pass on. A plugin runner registered for ``bulk``
may call ``bytes`` methods on the body (Rally hands it bytes or lines), so it keeps getting bytes.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from driver_helpers import BULK_OK, FakeClock, op, static_es, task, track

from esbench.corpus.model import CorpusSet, PreparedDocuments
from esbench.corpus.offsets import ensure_offset_index
from esbench.driver.plan import ClientAllocation, ClientPlan
from esbench.driver.worker.context import RaceContext
from esbench.driver.worker.executor import ClientExecutor, StepControl
from esbench.driver.worker.registry import default_registry
from esbench.driver.worker.runners.bulk import ndjson_body
from esbench.driver.worker.taskrun import TaskRun
from esbench.track.model import Documents

START = 1000.0
DOCS, BULK_SIZE, ITERATIONS = 20, 4, 13  # 5 bodies a pass: 13 requests reach the third pass


@pytest.fixture(autouse=True)
def _room_for_spools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spools are written whatever the test machine's disk holds (tests/unit/corpus tests the rule)."""
    from esbench.corpus import spool

    monkeypatch.setattr(spool, "has_room", lambda directory, size: True)


def _corpora(tmp_path) -> CorpusSet:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "docs.json"
    path.write_text("".join(f'{{"n":{i},"pad":"{"x" * i}"}}\n' for i in range(DOCS)))
    offsets = tmp_path / "docs.json.offset"
    ensure_offset_index(path, offsets)
    documents = Documents(source_file=path.name, document_count=DOCS, target_index="idx")
    files = (
        PreparedDocuments(
            corpus="c",
            documents=documents,
            path=path,
            offsets_path=offsets,
            document_count=DOCS,
            target_index="idx",
        ),
    )
    return CorpusSet(by_corpus={"c": files})


def _run(tmp_path, registry) -> list[Any]:
    t = task(op("bulk", bulk_size=BULK_SIZE, looped=True), iterations=ITERATIONS)
    run = TaskRun(
        task=t,
        runner=registry.runner("bulk"),
        source=registry.param_source(t, track(), corpora=_corpora(tmp_path)),
        schedulers=registry.schedulers,
    )
    run.start(START)
    clock = FakeClock(START)
    bodies: list[Any] = []

    def responder(method: str, target: str, body: Any) -> tuple[int, bytes]:
        bodies.append(body)
        return 200, BULK_OK

    executor = ClientExecutor(
        plan=ClientPlan(
            client_id=0,
            allocations=(
                ClientAllocation(task=t, client_index_in_task=0, global_client_index=0, total_clients=1),
            ),
        ),
        es=static_es(responder, clock),
        runs={t.name: run},
        control=StepControl(START),
        context=RaceContext(),
        clock=clock,
    )
    asyncio.run(executor.run())
    assert run.recorder.count == ITERATIONS
    return bodies


def test_the_built_in_runner_sends_views_from_the_second_pass_with_the_same_bytes(tmp_path) -> None:
    sent = _run(tmp_path, default_registry())
    assert len(sent) == ITERATIONS
    assert [type(b) for b in sent] == [bytes] * 5 + [memoryview] * 8
    first_pass = [bytes(b) for b in sent[:5]]
    assert [bytes(b) for b in sent[5:]] == (first_pass * 2)[:8]


def test_a_plugin_runner_for_bulk_gets_bytes(tmp_path) -> None:
    registry = default_registry()
    seen: list[Any] = []

    async def plugin_bulk(es: Any, params: dict[str, Any]) -> dict[str, Any]:
        seen.append(params["body"])
        params["body"].decode("utf-8")  # what a plugin may do with bytes
        return {"weight": params["bulk-size"], "unit": "docs"}

    registry.register_runner("bulk", plugin_bulk, async_runner=True)
    _run(tmp_path / "plugin", registry)
    assert len(seen) == ITERATIONS and all(type(b) is bytes for b in seen)


def test_ndjson_body_passes_a_view_on_and_completes_one_without_newline() -> None:
    view = memoryview(b'{"index":{}}\n{"a":1}\n')
    assert ndjson_body(view) is view
    assert ndjson_body(memoryview(b'{"index":{}}\n{"a":1}')) == b'{"index":{}}\n{"a":1}\n'
    assert ndjson_body(memoryview(b"")) == b"\n"


def test_successful_bulks_of_one_size_share_one_result() -> None:
    from esbench.driver.worker.runners.bulk import Bulk

    runner = Bulk()
    first, again, other = (
        runner._success(1000, "docs"),
        runner._success(1000, "docs"),
        runner._success(7, "docs"),
    )
    assert first is again and (first.weight, first.unit) == (1000, "docs")
    assert other is not first and other.weight == 7
