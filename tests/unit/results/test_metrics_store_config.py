"""Where the metrics store is: ``--metrics-store`` / ``$ESBENCH_METRICS_STORE``, else the ``[reporting]``
section of ``<esbench home>/esbench.ini`` with rally.ini's keys (esrally/metrics.py ``EsClientFactory``),
and the documents' ``environment`` from ``[system] env.name``. Passwords never reach a message."""

from __future__ import annotations

from pathlib import Path

import pytest

from esbench.exceptions import ConfigError
from esbench.results.metrics_store import resolve_metrics_store

_RALLY_SECTION = """\
[system]
env.name = nightly

[reporting]
datastore.type = elasticsearch
datastore.host = metrics.example
datastore.port = 9243
datastore.secure = True
datastore.user = rally
datastore.password = s3cr%t
"""


@pytest.fixture(autouse=True)
def _no_store_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "ESBENCH_METRICS_STORE",
        "ESBENCH_METRICS_STORE_USER",
        "ESBENCH_METRICS_STORE_PASSWORD",
        "ESBENCH_METRICS_STORE_API_KEY",
        "RALLY_REPORTING_DATASTORE_USER",
        "RALLY_REPORTING_DATASTORE_PASSWORD",
        "RALLY_REPORTING_DATASTORE_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)


def _ini(home: Path, text: str) -> Path:
    path = home / "esbench.ini"
    path.write_text(text, encoding="utf-8")
    return path


def test_nothing_configured_is_no_store(tmp_path: Path) -> None:
    assert resolve_metrics_store(ini=tmp_path / "missing.ini") is None
    assert resolve_metrics_store(ini=_ini(tmp_path, "[reporting]\ndatastore.type = in-memory\n")) is None


def test_a_rally_reporting_section_copied_across(tmp_path: Path) -> None:
    store = resolve_metrics_store(ini=_ini(tmp_path, _RALLY_SECTION))
    assert store is not None
    assert store.hosts == ("https://metrics.example:9243",)
    assert (store.username, store.password) == ("rally", "s3cr%t")
    assert store.verify_certs and store.environment == "nightly" and store.probe_cluster_version
    assert "s3cr" not in repr(store) and "s3cr" not in store.display_url


def test_the_default_esbench_ini_is_read_from_the_esbench_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ESBENCH_HOME", str(tmp_path))
    _ini(tmp_path, _RALLY_SECTION)
    store = resolve_metrics_store()
    assert store is not None and store.hosts == ("https://metrics.example:9243",)


def test_the_option_wins_and_keeps_the_environment(tmp_path: Path) -> None:
    store = resolve_metrics_store("http://other:9200", ini=_ini(tmp_path, _RALLY_SECTION))
    assert store is not None and store.hosts == ("http://other:9200",)
    assert store.username is None and store.environment == "nightly"


def test_the_environment_variable_comes_before_the_ini(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ESBENCH_METRICS_STORE", "http://env-host:9200")
    store = resolve_metrics_store(ini=_ini(tmp_path, _RALLY_SECTION))
    assert store is not None and store.hosts == ("http://env-host:9200",)


def test_verification_mode_none_and_rallys_password_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RALLY_REPORTING_DATASTORE_PASSWORD", "from-env")
    text = _RALLY_SECTION.replace("datastore.password = s3cr%t", "datastore.ssl.verification_mode = none")
    text += "datastore.probe.cluster_version = false\n"
    store = resolve_metrics_store(ini=_ini(tmp_path, text))
    assert store is not None
    assert store.password == "from-env" and not store.verify_certs and not store.probe_cluster_version


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("datastore.type = elasticsearch", "datastore.type = mongodb"), "datastore.type = 'mongodb'"),
        (("datastore.port = 9243", "datastore.port = many"), "numeric datastore.port"),
        (("datastore.secure = True", "datastore.secure = maybe"), "datastore.secure = 'maybe'"),
        (("datastore.password = s3cr%t", "datastore.password ="), "no datastore.password"),
        (("datastore.user = rally", "datastore.user = rally\ndatastore.api_key = k"), "datastore.api_key"),
        (
            ("datastore.secure = True", "datastore.secure = True\ndatastore.ssl.verification_mode = half"),
            "datastore.ssl.verification_mode = 'half'",
        ),
        (
            (
                "datastore.secure = True",
                "datastore.secure = True\ndatastore.ssl.certificate_authorities = /no/ca.pem",
            ),
            "no such file",
        ),
    ],
)
def test_a_bad_section_names_the_file_and_key(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    path = _ini(tmp_path, _RALLY_SECTION.replace(*change))
    with pytest.raises(ConfigError) as info:
        resolve_metrics_store(ini=path)
    assert message in str(info.value) and str(path) in str(info.value)
    assert "s3cr" not in str(info.value)
