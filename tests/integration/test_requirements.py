"""The requirement check against a real integ-test node (modules: transport-netty4, x-pack-core,
x-pack-security, apm): the probe, the catalog's server components, the race and ``esbench info``."""

from __future__ import annotations

from pathlib import Path

import pytest
from elasticsearch import ApiError, Elasticsearch
from harness import esbench

from esbench.requirements.catalog import SERVER_COMPONENTS, SERVER_NAME_ONLY, Kind
from esbench.requirements.probe import probe_cluster
from esbench.results.store import ResultsStore

TRACKS = Path(__file__).resolve().parent.parent / "resources" / "requirements"
NEEDS_MODULES = TRACKS / "needs-modules"
NEEDS_NOTHING = TRACKS / "needs-nothing"

#: What the fixture track needs, each with its task or index, as the paragraph names it.
EXPECTED_USES = (
    "analysis-common (token filter 'asciifolding' in index 'req-docs'; "
    "analyzer 'english' in index 'req-docs')",
    "ingest-common (ingest processor 'set' in task 'put-log-pipeline'; "
    "ingest processor 'grok' in task 'put-log-pipeline')",
    "lang-painless (painless script in task 'scripted-search')",
)


@pytest.fixture
def integ_test_node(es_hosts: list[str]) -> list[str]:
    caps = probe_cluster(es_hosts)
    if "ingest-common" in caps.modules:
        pytest.fail(
            "These tests need the Maven integ-test distribution (no ingest-common); "
            f"ESBENCH_TEST_HOSTS points at a node with modules {sorted(caps.modules)}."
        )
    return es_hosts


def test_probe_reports_the_integ_test_modules_and_processors(integ_test_node: list[str]) -> None:
    caps = probe_cluster(integ_test_node)
    assert {"transport-netty4", "x-pack-core", "x-pack-security"} <= caps.modules
    assert not {"analysis-common", "lang-painless", "ingest-common", "data-streams"} & caps.modules
    assert "set" not in caps.processors and "grok" not in caps.processors
    assert "set_security_user" in caps.processors  # x-pack-security's processor
    assert caps.nodes >= 1 and caps.version


def test_server_components_of_the_catalog_exist_on_a_node_without_analysis_common(
    integ_test_node: list[str], es: Elasticsearch
) -> None:
    # Everything the catalog calls "server" must work by name on a node without analysis-common
    # (hunspell needs a dictionary and custom is a definition, not a name).
    def analyze(**what: object) -> None:
        es.indices.analyze(text="Quick Foxes", **what)

    for name in SERVER_COMPONENTS[Kind.ANALYZER] - {"custom"} | SERVER_NAME_ONLY[Kind.ANALYZER]:
        analyze(analyzer=name)
    for name in SERVER_COMPONENTS[Kind.TOKENIZER]:
        analyze(tokenizer=name)
    for name in SERVER_COMPONENTS[Kind.FILTER] - {"hunspell"} | SERVER_NAME_ONLY[Kind.FILTER]:
        analyze(tokenizer="standard", filter=[name])
    # ... and the catalog's analysis-common components really are missing there.
    for what in ({"analyzer": "english"}, {"tokenizer": "whitespace"}, {"filter": ["asciifolding"]}):
        with pytest.raises(ApiError):
            analyze(**({"tokenizer": "standard"} | what))


def test_on_error_abort_stops_before_the_first_task_naming_each_module_and_its_task_or_index(
    integ_test_node: list[str], es: Elasticsearch
) -> None:
    es.options(ignore_status=404).indices.delete(index="req-docs")
    hosts = f"--target-hosts={','.join(integ_test_node)}"
    proc = esbench("race", f"--track-path={NEEDS_MODULES}", hosts, "--on-error=abort")
    assert proc.returncode == 64, proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("[ERROR] ")]
    assert len(errors) == 1 and "Traceback" not in proc.stderr
    for uses in EXPECTED_USES:
        assert uses in errors[0]
    assert "drop --on-error=abort" in errors[0]
    # Nothing ran: the index was not created and no race was stored.
    assert not es.indices.exists(index="req-docs")
    assert ResultsStore.open().find(track="needs-modules") == []


@pytest.mark.parametrize("on_error", [(), ("--on-error=continue",)], ids=["default", "continue"])
def test_on_error_continue_warns_names_the_failing_tasks_and_races(
    integ_test_node: list[str], on_error: tuple[str, ...]
) -> None:
    # continue is --on-error's default (as in Rally): the check follows it, given or not.
    tag = f"req-continue-{len(on_error)}"
    proc = esbench(
        "race",
        f"--track-path={NEEDS_MODULES}",
        f"--target-hosts={','.join(integ_test_node)}",
        *on_error,
        f"--user-tag=case:{tag}",
    )
    assert proc.returncode == 0, proc.stderr
    warnings = [ln for ln in proc.stderr.splitlines() if "lacks modules the track needs" in ln]
    assert len(warnings) == 1 and warnings[0].startswith("[WARNING] ")
    for uses in EXPECTED_USES:
        assert uses in warnings[0]
    failing = "'create-index', 'put-log-pipeline', 'scripted-search'"
    assert f"Tasks whose requests will fail: {failing}." in warnings[0]
    race = ResultsStore.open().find(user_tags={"case": tag})[0]
    assert race.status == "completed"
    # The race ran, and the tasks that need the missing modules failed as the warning said.
    for task in ("create-index", "put-log-pipeline", "scripted-search"):
        result = race.task(task)
        assert result is not None and result.error_count == result.sample_count > 0


def test_track_that_needs_nothing_missing_races_without_warning(integ_test_node: list[str]) -> None:
    proc = esbench("race", f"--track-path={NEEDS_NOTHING}", f"--target-hosts={','.join(integ_test_node)}")
    assert proc.returncode == 0, proc.stderr
    assert "[WARNING]" not in proc.stderr and "lacks modules" not in proc.stderr
    race = ResultsStore.open().find(track="needs-nothing")[0]
    assert all(t.error_count == 0 for t in race.tasks)


def test_info_checks_a_cluster(integ_test_node: list[str]) -> None:
    hosts = f"--target-hosts={','.join(integ_test_node)}"
    proc = esbench("info", f"--track-path={NEEDS_MODULES}", hosts)
    assert proc.returncode == 0, proc.stderr
    section = proc.stdout.split("Requirements:", 1)[1]
    assert section.count("MISSING") == 5
    for uses in EXPECTED_USES:
        assert uses in section
    fine = esbench("info", f"--track-path={NEEDS_NOTHING}", hosts)
    assert fine.returncode == 0, fine.stderr
    assert "needs no module" in fine.stdout and "MISSING" not in fine.stdout
