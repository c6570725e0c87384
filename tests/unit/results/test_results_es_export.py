"""Metrics store settings (credentials never shown) and the exported document shapes."""

from __future__ import annotations

import json

import pytest
from racefactory import make_race

from esbench.exceptions import ConfigError
from esbench.results import es_export, metrics_store
from esbench.results.metrics_store import MetricsStoreSettings


def test_url_userinfo_becomes_credentials_and_is_stripped() -> None:
    s = MetricsStoreSettings.from_url("https://bench%40corp:p%3Ass@es.example:9243/prefix/")
    assert s.hosts == ("https://es.example:9243/prefix",)
    assert (s.username, s.password) == ("bench@corp", "p:ss")
    assert "p:ss" not in repr(s) and "p:ss" not in s.display_url and "bench" not in s.display_url
    assert s.verify_certs is True


def test_options_win_over_userinfo_and_several_hosts() -> None:
    s = MetricsStoreSettings.from_url("http://a:b@h1:9200, h2:9201", username="u", password="p")
    assert s.hosts == ("http://h1:9200", "http://h2:9201")
    assert (s.username, s.password) == ("u", "p")


def test_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    assert MetricsStoreSettings.from_env() is None
    monkeypatch.setenv("ESBENCH_METRICS_STORE", "127.0.0.1:9299")
    monkeypatch.setenv("ESBENCH_METRICS_STORE_USER", "u")
    monkeypatch.setenv("ESBENCH_METRICS_STORE_PASSWORD", "secret")
    s = MetricsStoreSettings.from_env()
    assert s is not None and s.hosts == ("http://127.0.0.1:9299",) and s.password == "secret"
    assert MetricsStoreSettings.from_env("http://other:1").hosts == ("http://other:1",)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("", "empty"),
        ("ftp://u:hidden@h", "use http:// or https://"),
        ("http://u:hidden@h:notaport", "Invalid"),
    ],
)
def test_bad_urls_do_not_leak_the_password(url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        MetricsStoreSettings.from_url(url)
    assert "hidden" not in str(info.value)


def test_redact_url() -> None:
    assert metrics_store.redact_url("https://u:p@h:1") == "https://***@h:1"
    assert metrics_store.redact_url("h:1") == "h:1"


def test_documents_shape() -> None:
    race = make_race(seed=1, tags={"setup": "3nodes"}, timestamp="2026-05-06T07:08:09Z")
    doc = es_export.race_document(race)
    assert doc["@timestamp"] == doc["race-timestamp"] == "2026-05-06T07:08:09Z"
    assert doc["user-tags"] == {"setup": "3nodes"} and doc["tasks"] == ["index-append", "term-query"]
    assert es_export.index_name("esbench", "races", race) == "esbench-races-2026-05"
    results = dict(es_export.result_documents(race))
    task_doc = results[f"{race.race_id}-task-1"]
    t = race.tasks[1]
    assert (
        task_doc["throughput"]["median"] == t.throughput_median and task_doc["throughput"]["unit"] == "ops/s"
    )
    assert task_doc["latency"]["p99"] == t.latency_ms["99"] and "p100" in task_doc["service-time"]
    assert all("." not in k for k in task_doc["latency"])
    cluster = results[f"{race.race_id}-cluster-1"]
    assert (cluster["kind"], cluster["metric"], cluster["unit"]) == ("cluster", "Store size", "GB")
    metrics = list(es_export.metric_documents(race))
    assert len(metrics) == sum(len(t.throughput_windows) for t in race.tasks)
    first_id, first = metrics[0]
    assert first_id == f"{race.race_id}-0-0" and first["value"] == race.tasks[0].throughput_windows[0]
    json.dumps([doc, results, metrics])  # JSON-serialisable


def test_templates_map_every_document_field() -> None:
    race = make_race(seed=2)
    templates = es_export.index_templates("p")
    assert set(templates) == {"p-races", "p-results", "p-metrics"}
    for kind, docs in (
        ("races", [es_export.race_document(race)]),
        ("results", [d for _, d in es_export.result_documents(race)]),
        ("metrics", [d for _, d in es_export.metric_documents(race)]),
    ):
        props = templates[f"p-{kind}"]["template"]["mappings"]["properties"]
        assert templates[f"p-{kind}"]["index_patterns"] == [f"p-{kind}-*"]
        for doc in docs:
            assert set(doc) <= set(props), set(doc) - set(props)
        assert props["race-timestamp"]["type"] == "date"


def test_export_accepts_a_url_and_never_shows_its_password(monkeypatch: pytest.MonkeyPatch) -> None:
    # Port 1 on loopback refuses at once: the error path, without any Elasticsearch.
    from esbench.exceptions import StoreError

    monkeypatch.delenv("ESBENCH_METRICS_STORE_USER", raising=False)
    with pytest.raises(StoreError, match=r"Cannot reach the metrics store http://127\.0\.0\.1:1\b") as info:
        es_export.export_race(make_race(seed=4), "http://bench:hunter2@127.0.0.1:1")
    assert "hunter2" not in str(info.value) and "bench" not in str(info.value)
