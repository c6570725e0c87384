"""The layout descriptor of the metrics store (esbench/results/store_layout.py): Rally 2.13's and
OSB 2.4.0's names, the templates and documents built from it, and which configuration selects which.

Where the peer's own files are at hand (Rally's and OSB's venvs, the oracles of the integration
tests), the templates are compared with the peer's template files; the documents are checked
against the keys of the peers' ``Race.as_dict`` / ``TestRun.as_dict`` as their source lists them.
The peers themselves read what esbench writes in tests/integration/test_rally_store.py and
test_osb_store.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import racefactory

from esbench.exceptions import ConfigError, UserError
from esbench.results import store_documents as docs
from esbench.results import store_metric_documents as metric_docs
from esbench.results.annotations import list_annotations
from esbench.results.metrics_store import MetricsStoreSettings, resolve_metrics_store
from esbench.results.race_listing import ListedRace
from esbench.results.store_layout import LAYOUTS, OSB, RALLY, LayoutName, StoreIndex
from esbench.results.store_races import race_from_rally_document
from esbench.results.store_templates import index_templates

#: (package, the variable naming the peer's venv python (.ci/run), the venv of this machine).
_PEERS = {
    LayoutName.RALLY: ("esrally", "ESBENCH_RALLY_PYTHON", Path("/work/venvs/rally")),
    LayoutName.OSB: ("osbenchmark", "ESBENCH_OSB_PYTHON", Path("/work/venvs/osb")),
}


def _peer_resources(layout: LayoutName) -> Path | None:
    """The peer's ``resources`` directory in its venv, None if no venv is at hand."""
    package, variable, default = _PEERS[layout]
    venvs = [Path(os.environ[variable]).parent.parent] if os.environ.get(variable) else []
    for venv in [*venvs, default]:
        found = sorted(venv.glob(f"lib/python3*/site-packages/{package}/resources"))
        if found:
            return found[0]
    return None


#: Template name -> the peer's file.
_TEMPLATE_FILES = {
    "rally-metrics": "metrics-template.json",
    "rally-races": "races-template.json",
    "rally-results": "results-template.json",
    "rally-annotations": "annotation-template.json",
    "benchmark-metrics": "metrics-template.json",
    "benchmark-test-runs": "test-runs-template.json",
    "benchmark-results": "results-template.json",
}


@pytest.fixture(autouse=True)
def _no_store_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "ESBENCH_METRICS_STORE",
        "ESBENCH_METRICS_STORE_LAYOUT",
        "ESBENCH_METRICS_STORE_PASSWORD",
        "RALLY_REPORTING_DATASTORE_PASSWORD",
        "OSB_DATASTORE_PASSWORD",
    ):
        monkeypatch.delenv(name, raising=False)


def test_index_and_template_names() -> None:
    march = datetime(2026, 3, 4, tzinfo=UTC)
    assert RALLY.monthly_index(StoreIndex.RACES, march) == "rally-races-2026-03"
    assert OSB.monthly_index(StoreIndex.RACES, march) == "benchmark-test-runs-2026-03"
    assert OSB.monthly_index(StoreIndex.RESULTS, march) == "benchmark-results-2026-03"
    assert OSB.index_pattern(StoreIndex.METRICS) == "benchmark-metrics-*"
    assert set(index_templates(RALLY, wildcard=True)) == {
        "rally-metrics",
        "rally-races",
        "rally-results",
        "rally-annotations",
    }
    assert set(index_templates(OSB, wildcard=True)) == {
        "benchmark-metrics",
        "benchmark-test-runs",
        "benchmark-results",
    }
    assert LAYOUTS == {LayoutName.RALLY: RALLY, LayoutName.OSB: OSB}


def _without_extra(template: dict[str, Any], composable: bool) -> dict[str, Any]:
    """``template`` without esbench's unindexed ``esbench`` object of race documents."""
    copied = json.loads(json.dumps(template))
    mappings = copied["template"]["mappings"] if composable else copied["mappings"]
    mappings.get("properties", {}).pop("esbench", None)
    return copied


@pytest.mark.parametrize("layout", [RALLY, OSB], ids=lambda layout: layout.name)
def test_templates_are_the_peers_own(layout: Any) -> None:
    resources = _peer_resources(layout.name)
    if resources is None:
        pytest.skip(f"{layout.tool} is not installed (its venv: {_PEERS[layout.name][1]})")
    for name, body in index_templates(layout, wildcard=True).items():
        theirs = json.loads((resources / _TEMPLATE_FILES[name]).read_text(encoding="utf-8"))
        assert _without_extra(body, layout.composable_templates) == theirs, name


def test_osb_race_document_has_test_run_as_dicts_keys() -> None:
    race = racefactory.make_race(seed=3, tags={"setup": "a"}, timestamp="2026-03-04T05:06:07Z")
    doc = docs.race_document(race, "nightly", OSB)
    # osbenchmark/metrics.py TestRun.as_dict, with results and the optional keys esbench has.
    assert list(doc) == [
        "benchmark-version",
        "benchmark-revision",
        "environment",
        "test-run-id",
        "test-run-timestamp",
        "pipeline",
        "user-tags",
        "workload",
        "cluster-config-instance",
        "cluster",
        "results",
        "test_procedure",
        "workload-params",
        "cluster-config-instance-params",
        "esbench",
    ]
    assert doc["benchmark-version"] == "2.4.0" and doc["test-run-timestamp"] == "20260304T050607Z"
    assert list(doc["cluster"]) == [
        "revision",
        "distribution-version",
        "distribution-flavor",
        "cluster-config-revision",
    ]
    results = doc["results"]
    assert list(results) == list(OSB.results_keys)
    assert "docs_count" in results and "zgc_cycles_gc_time" not in results and "dataset_size" not in results
    op = results["op_metrics"][0]
    assert list(op) == list(OSB.op_metrics_keys) and op["client_processing_time"] == {}
    assert [list(c) for c in results["correctness_metrics"]] == [
        ["task", "operation", "recall@k", "recall@1", "error_rate", "duration"]
    ] * len(results["op_metrics"])


def test_rally_race_document_is_unchanged_by_the_descriptor() -> None:
    race = racefactory.make_race(seed=3, tags={}, timestamp="2026-03-04T05:06:07Z")
    doc = docs.race_document(race, "local")
    assert doc["rally-version"] == "2.13.0" and doc["race-id"] == race.race_id
    assert (
        "correctness_metrics" not in doc["results"]
        and "client_processing_time" not in doc["results"]["op_metrics"][0]
    )
    assert list(doc["cluster"])[-1] == "team-revision"


def test_osb_results_documents_include_the_recalls_sorted_by_name() -> None:
    race = racefactory.make_race(seed=3, tags={}, timestamp="2026-03-04T05:06:07Z")
    found = docs.result_documents(race, "local", OSB)
    names = [d["name"] for d in found]
    assert names == sorted(names)
    task = race.tasks[0].task
    per_task = {d["name"] for d in found if d.get("task") == task}
    assert {"recall@k", "recall@1", "client_processing_time", "throughput", "error_rate"} <= per_task
    first = found[0]
    assert first["test-run-id"] == race.race_id and "race-id" not in first
    assert first["cluster-config-instance"] == "+".join(docs.car_names(race))


def test_osb_metrics_documents_use_relative_time_ms() -> None:
    race = racefactory.make_race(seed=3, tags={"a": "b"}, timestamp="2026-03-04T05:06:07Z")
    race = dataclasses.replace(race, tasks=(dataclasses.replace(race.tasks[0], start_epoch=2000.0),))
    ctx = docs.context(race, "local", OSB)
    doc = next(metric_docs.throughput_documents(ctx, race))
    assert "relative-time-ms" in doc and "relative-time" not in doc
    assert {
        "test-run-id",
        "test-run-timestamp",
        "workload",
        "test_procedure",
        "cluster-config-instance",
    } <= set(doc)
    assert doc["meta"] == {"tag_a": "b"}


def test_a_written_osb_race_reads_back_and_lists_with_osbs_keys() -> None:
    race = racefactory.make_race(seed=5, tags={"run": "1"}, timestamp="2026-03-04T05:06:07Z")
    doc = docs.race_document(race, "nightly", OSB)
    back = race_from_rally_document(doc, None, OSB)
    assert (back.race_id, back.track, back.challenge, back.timestamp) == (
        race.race_id,
        race.track,
        race.challenge,
        race.timestamp,
    )
    assert back.esbench_version == "OpenSearch Benchmark 2.4.0"
    assert [t.task for t in back.tasks] == [t.task for t in race.tasks if t.reported]
    listed = ListedRace.from_rally_document(doc, OSB).as_dict()
    # The document's keys with its results, as Rally's list races --format=json gives a race.
    assert listed == {k: v for k, v in doc.items() if k != "esbench"} and listed["results"]


_OSB_SECTION = """\
[system]
env.name = nightly

[{section}]
datastore.type = {kind}
datastore.host = metrics.example
datastore.port = 9200
datastore.secure = False
datastore.user =
datastore.password =
"""


@pytest.mark.parametrize(
    ("section", "kind", "layout"),
    [
        ("reporting", "opensearch", OSB),
        ("results_publishing", "opensearch", OSB),
        ("reporting", "elasticsearch", RALLY),
    ],
)
def test_datastore_type_selects_the_layout(tmp_path: Path, section: str, kind: str, layout: Any) -> None:
    ini = tmp_path / "esbench.ini"
    ini.write_text(_OSB_SECTION.format(section=section, kind=kind), encoding="utf-8")
    store = resolve_metrics_store(ini=ini)
    assert store is not None and store.layout is layout
    assert store.hosts == ("http://metrics.example:9200",) and store.environment == "nightly"
    # The ini's type picks the layout of a URL given on the command line too; the option wins.
    assert resolve_metrics_store("http://other:9200", ini=ini).layout is layout  # type: ignore[union-attr]
    assert resolve_metrics_store(ini=ini).read_layouts == (RALLY, OSB)  # type: ignore[union-attr]
    other = RALLY if layout is OSB else OSB
    chosen = resolve_metrics_store(ini=ini, layout=other.name.value)
    # Chosen explicitly: written, and the only layout read.
    assert chosen is not None and chosen.layout is other and chosen.read_layouts == (other,)


def test_layout_from_the_environment_and_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = tmp_path / "none.ini"
    assert resolve_metrics_store("http://h:9200", ini=missing).layout is RALLY  # type: ignore[union-attr]
    monkeypatch.setenv("ESBENCH_METRICS_STORE_LAYOUT", "osb")
    assert resolve_metrics_store("http://h:9200", ini=missing).layout is OSB  # type: ignore[union-attr]
    monkeypatch.setenv("ESBENCH_METRICS_STORE_LAYOUT", "kibana")
    with pytest.raises(ConfigError, match=r"ESBENCH_METRICS_STORE_LAYOUT.*'rally'.*'osb'"):
        resolve_metrics_store("http://h:9200", ini=missing)


def test_osbs_password_variable_and_template_sizes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ini = tmp_path / "esbench.ini"
    text = _OSB_SECTION.format(section="reporting", kind="opensearch").replace(
        "datastore.user =",
        "datastore.user = osb\ndatastore.number_of_shards = 2\ndatastore.number_of_replicas = 0",
    )
    ini.write_text(text, encoding="utf-8")
    monkeypatch.setenv("OSB_DATASTORE_PASSWORD", "pa55")
    store = resolve_metrics_store(ini=ini)
    assert store is not None and (store.username, store.password) == ("osb", "pa55")
    assert (store.number_of_shards, store.number_of_replicas) == (2, 0)
    ini.write_text(text.replace("number_of_shards = 2", "number_of_shards = 0"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[reporting\] datastore.number_of_shards = '0'"):
        resolve_metrics_store(ini=ini)


def test_two_store_sections_or_an_unknown_type_are_refused(tmp_path: Path) -> None:
    ini = tmp_path / "esbench.ini"
    both = _OSB_SECTION.format(section="reporting", kind="elasticsearch") + _OSB_SECTION.format(
        section="results_publishing", kind="opensearch"
    ).replace("[system]\nenv.name = nightly\n", "")
    ini.write_text(both, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"both \[reporting\] and \[results_publishing\]"):
        resolve_metrics_store(ini=ini)
    ini.write_text(_OSB_SECTION.format(section="results_publishing", kind="solr"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[results_publishing\] datastore.type = 'solr'"):
        resolve_metrics_store(ini=ini)


def test_annotations_are_refused_in_osbs_layout() -> None:
    settings = MetricsStoreSettings.from_url("http://127.0.0.1:1", layout=OSB)
    with pytest.raises(UserError, match="--metrics-store-layout=rally"):
        list_annotations(settings, environment="local")
