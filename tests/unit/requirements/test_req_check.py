"""Comparing needs with a cluster's capabilities, and the paragraph that names what is missing."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from esbench.requirements.check import (
    RACE_HINT,
    check_requirements,
    failing_tasks,
    is_present,
    missing_paragraph,
)
from esbench.requirements.needs import UNKNOWN_MODULE, Need
from esbench.requirements.probe import ClusterCapabilities, capabilities_from_nodes_info
from esbench.requirements.text import requirements_text
from esbench.track.model import Challenge, Index, Operation, Task, Track

SET = Need(module="ingest-common", feature="ingest processor 'set'", where="task 'pipe'", processor="set")
GROK = Need(module="ingest-common", feature="ingest processor 'grok'", where="task 'pipe'", processor="grok")
PAINLESS = Need(module="lang-painless", feature="painless script", where="task 'scripted'")
ENGLISH = Need(module="analysis-common", feature="analyzer 'english'", where="index 'docs'")
ICU = Need(module="analysis-icu", feature="analyzer type 'icu_analyzer'", where="index 'docs'")


def node(modules: list[str], processors: list[str], plugins: Sequence[str] = ()) -> dict[str, Any]:
    return {
        "version": "8.19.0",
        "modules": [{"name": m} for m in modules],
        "plugins": [{"name": p} for p in plugins],
        "ingest": {"processors": [{"type": p} for p in processors]},
    }


def caps(
    modules: Iterable[str], processors: Iterable[str] = (), plugins: Iterable[str] = ()
) -> ClusterCapabilities:
    return ClusterCapabilities(
        modules=frozenset(modules),
        plugins=frozenset(plugins),
        processors=frozenset(processors),
        nodes=1,
        version="8.19.0",
    )


def test_capabilities_are_what_every_node_has() -> None:
    body = {
        "nodes": {
            "a": node(
                ["analysis-common", "lang-painless", "ingest-common"], ["set", "grok"], ["analysis-icu"]
            ),
            "b": node(["analysis-common", "ingest-common"], ["set"], ["analysis-icu"]),
        }
    }
    got = capabilities_from_nodes_info(body)
    assert got.modules == {"analysis-common", "ingest-common"}
    assert got.processors == {"set"}
    assert got.plugins == {"analysis-icu"}
    assert (got.nodes, got.version) == (2, "8.19.0")
    assert got.has_module("analysis-icu") and not got.has_module("lang-painless")


def test_processors_are_judged_by_the_clusters_processor_list() -> None:
    # The module list says nothing about processors of plugins; the processor list does.
    plugin_processor = Need(
        module=UNKNOWN_MODULE, feature="ingest processor 'x'", where="task 't'", processor="x"
    )
    cluster = caps({"x-pack-core"}, processors={"x"})
    assert is_present(plugin_processor, cluster)
    assert not is_present(SET, cluster)


def test_missing_needs_grouped_by_module_in_order_of_first_use() -> None:
    report = check_requirements([SET, ENGLISH, PAINLESS, GROK, ICU], caps({"lang-painless"}))
    assert not report.ok
    assert [(m.module, m.needs) for m in report.missing] == [
        ("ingest-common", (SET, GROK)),
        ("analysis-common", (ENGLISH,)),
        ("analysis-icu", (ICU,)),
    ]
    full = caps({"ingest-common", "analysis-common", "lang-painless"}, {"set", "grok"}, {"analysis-icu"})
    assert check_requirements([SET, ENGLISH, PAINLESS, GROK, ICU], full).ok


def test_paragraph_names_each_missing_module_and_what_uses_it_where() -> None:
    report = check_requirements([SET, GROK, PAINLESS, ENGLISH], caps(set()))
    text = missing_paragraph(report, hint=RACE_HINT)
    assert "\n" not in text
    assert text.startswith("The cluster (Elasticsearch 8.19.0, 1 node) lacks modules the track needs: ")
    assert (
        "ingest-common (ingest processor 'set' in task 'pipe'; ingest processor 'grok' in task 'pipe'); "
        "lang-painless (painless script in task 'scripted'); "
        "analysis-common (analyzer 'english' in index 'docs')."
    ) in text
    assert text.endswith(RACE_HINT)


def test_paragraph_caps_the_uses_listed_per_module() -> None:
    many = [
        Need(module="ingest-common", feature=f"ingest processor 'p{i}'", where="task 't'", processor=f"p{i}")
        for i in range(9)
    ]
    text = missing_paragraph(check_requirements(many, caps(set())), hint="")
    assert "p5" in text and "p6" not in text and "and 3 more" in text


def test_info_section_without_and_with_a_cluster() -> None:
    assert "needs no module" in requirements_text(())
    offline = requirements_text([SET, PAINLESS])
    assert "ingest-common" in offline and "task 'pipe'" in offline and "--target-hosts" in offline
    report = check_requirements([SET, PAINLESS], caps({"lang-painless"}))
    lines = requirements_text([SET, PAINLESS], report).splitlines()
    assert any("ingest processor 'set'" in ln and ln.rstrip().endswith("MISSING") for ln in lines)
    assert any("painless script" in ln and ln.rstrip().endswith("present") for ln in lines)
    assert any(ln.startswith("The cluster (Elasticsearch 8.19.0, 1 node) lacks") for ln in lines)


def test_failing_tasks_are_the_tasks_whose_own_needs_are_missing() -> None:
    def task(name: str, op_type: str, **params: Any) -> Task:
        return Task(name=name, operation=Operation(name=name, operation_type=op_type, params=params))

    tasks = (
        task("create-index", "create-index"),
        task("search", "search", body={"query": {"match_all": {}}}),
        task("esql", "esql", query="FROM docs"),
        task("pipe", "put-pipeline", id="p", body={"processors": [{"set": {"field": "a", "value": 1}}]}),
    )
    english = {"mappings": {"properties": {"text": {"type": "text", "analyzer": "english"}}}}
    track = Track(
        name="t",
        root=Path("."),
        indices=(Index(name="docs", body=english),),
        challenges=(Challenge(name="c", schedule=tasks, default=True),),
    )
    # The index's analyzer makes create-index fail; search needs nothing; esql and pipe need modules.
    assert failing_tasks(track, tasks, caps({"x-pack-core"})) == ("create-index", "esql", "pipe")
    full = caps({"analysis-common", "x-pack-esql", "ingest-common"}, processors={"set"})
    assert failing_tasks(track, tasks, full) == ()
