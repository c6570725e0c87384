"""Multi-cluster ``--target-hosts``/``--client-options`` (``esbench.driver.transport.clusters``, the
rules of Rally 2.13's ``esrally/utils/opts.py`` and ``rally.py``), the clients a ``multi_cluster``
runner gets, and how telemetry names the other clusters' rows."""

from __future__ import annotations

import json
import pickle

import pytest

from esbench.driver.settings import ClientOptions, ClusterTarget
from esbench.driver.transport.clusters import (
    cluster_targets,
    connection_settings,
    parse_cluster_options,
    parse_target_hosts,
)
from esbench.driver.transport.lazyclient import LazyClient
from esbench.driver.worker.runners.base import LegacyRunner
from esbench.exceptions import ConfigError
from esbench.records import ClusterMetric, TelemetrySeries
from esbench.telemetry.race import _labelled
from esbench.telemetry.session import TelemetryResult

TWO = '{"default": ["127.0.0.1:9200", "127.0.0.2:9200"], "remote": ["10.0.0.1:9200"]}'


def test_the_plain_form_is_the_default_cluster_alone():
    assert parse_target_hosts("127.0.0.1:9200, 127.0.0.2:9200") == {
        "default": ("127.0.0.1:9200", "127.0.0.2:9200")
    }
    assert parse_target_hosts(None) == {} and parse_target_hosts("  ") == {}


def test_json_inline_and_file_name_clusters(tmp_path):
    expected = {"default": ("127.0.0.1:9200", "127.0.0.2:9200"), "remote": ("10.0.0.1:9200",)}
    assert parse_target_hosts(TWO) == expected
    path = tmp_path / "hosts.json"
    path.write_text(TWO)
    assert parse_target_hosts(str(path)) == expected


def test_a_single_string_is_one_host_and_host_objects_are_accepted():
    # Rally's _normalize_hosts: a string is one host; {"host", "port"} objects pass through.
    parsed = parse_target_hosts(
        '{"default": "127.0.0.1:9200", "remote": [{"host": "10.0.0.1", "port": 9201}]}'
    )
    assert parsed == {"default": ("127.0.0.1:9200",), "remote": ("10.0.0.1:9201",)}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"remote": ["127.0.0.1:9200"]}', r"names the clusters remote but no 'default'"),
        ('{"default": []}', r"cluster 'default': give a list of HOST:PORT strings"),
        (
            '{"default": ["127.0.0.1:9200"], "remote": ["10.0.0.1"]}',
            r"cluster 'remote': Target host '10.0.0.1' has no port",
        ),
        ('{"default": [42]}', r"cluster 'default': 42 is not a host"),
        ("[1, 2]", r"must be an object of clusters and their hosts"),
        ('{"default": ', r"--target-hosts is not valid JSON"),
        ("/no/such/hosts.json", r"Cannot read the --target-hosts file"),
    ],
)
def test_bad_target_hosts_name_the_cluster_and_the_option(text, message):
    with pytest.raises(ConfigError, match=message):
        parse_target_hosts(text)


def test_without_client_options_every_cluster_gets_the_defaults():
    assert parse_cluster_options("", ["default", "remote"]) == {
        "default": ClientOptions(),
        "remote": ClientOptions(),
    }


def test_per_cluster_client_options():
    options = parse_cluster_options(
        '{"default": {"timeout": 60}, "remote": {"timeout": 5, "use_ssl": true}}', ["default", "remote"]
    )
    assert options["default"].timeout == 60 and not options["default"].use_ssl
    assert options["remote"].timeout == 5 and options["remote"].use_ssl


@pytest.mark.parametrize(
    ("text", "clusters", "message"),
    [
        ('{"default": {}}', ["default", "remote"], r"must define the same keys.*lacks remote"),
        ('{"default": {}, "remote": {}, "third": {}}', ["default", "remote"], r"also names third"),
        ("timeout:60", ["default", "remote"], r"must give the options of each as JSON"),
        ('{"default": {}, "remote": {"colour": "blue"}}', ["default", "remote"], r"colour.*cluster 'remote'"),
        (
            '{"default": {}, "remote": 5}',
            ["default", "remote"],
            r"cluster 'remote': give an object of options",
        ),
    ],
)
def test_bad_client_options_name_the_cluster(text, clusters, message):
    with pytest.raises(ConfigError, match=message):
        parse_cluster_options(text, clusters)


def test_single_cluster_forms_keep_working():
    assert parse_cluster_options("timeout:7", ["default"])["default"].timeout == 7
    assert parse_cluster_options('{"timeout": 8}', ["default"])["default"].timeout == 8
    assert parse_cluster_options('{"default": {"timeout": 9}}', ["default"])["default"].timeout == 9


def test_cluster_targets_split_the_target_from_the_others():
    targets = cluster_targets(TWO, '{"default": {"timeout": 60}, "remote": {"timeout": 5}}')
    assert targets.hosts == ("127.0.0.1:9200", "127.0.0.2:9200") and targets.options.timeout == 60
    assert targets.others == (
        ClusterTarget(name="remote", hosts=("10.0.0.1:9200",), options=ClientOptions(timeout=5)),
    )
    provisioned = cluster_targets(None, "timeout:30")
    assert provisioned.hosts == () and provisioned.options.timeout == 30 and provisioned.others == ()


def test_connection_settings_carry_the_other_clusters_and_pickle():
    others = (ClusterTarget(name="remote", hosts=("10.0.0.1:9200",), options=ClientOptions(timeout=5)),)
    connection = connection_settings(
        ["127.0.0.1:9200"], ClientOptions(distribution_flavor="opensearch"), others
    )
    ((name, remote),) = connection.others
    assert name == "remote" and remote.urls == ("http://10.0.0.1:9200",) and remote.options.timeout == 5
    # The other cluster's client speaks to the same product as the detected target's.
    assert remote.options.distribution_flavor == "opensearch"
    assert pickle.loads(pickle.dumps(connection)) == connection
    with pytest.raises(ConfigError, match=r"Cluster 'bad'"):
        connection_settings(
            ["127.0.0.1:9200"], ClientOptions(), (ClusterTarget(name="bad", hosts=("nope",)),)
        )


async def test_a_multi_cluster_runner_gets_a_client_per_cluster_and_others_the_default_one():
    others = (ClusterTarget(name="remote", hosts=("10.0.0.1:9200",)),)
    es = LazyClient(connection_settings(["127.0.0.1:9200"], ClientOptions(), others))
    seen: list[object] = []

    class Multi:
        multi_cluster = True

        async def __call__(self, clients, params):
            seen.append(clients)

    async def single(client, params):
        seen.append(client)

    await LegacyRunner(Multi(), name="multi")(es, {})
    await LegacyRunner(single, name="single")(es, {})
    clients, default = seen
    assert default is es
    assert isinstance(clients, dict) and set(clients) == {"default", "remote"} and clients["default"] is es
    assert clients["remote"].settings.urls == ("http://10.0.0.1:9200",)
    assert es.clusters() is clients  # built once per client, closed with it
    await es.close()


def test_the_other_clusters_telemetry_is_named_after_the_cluster():
    result = TelemetryResult(
        series=(
            TelemetrySeries(device="node-stats", metric="jvm.mem.heap_used_percent", unit="%", node="n0"),
        ),
        metrics=(
            ClusterMetric(name="Peak heap usage", value=40.0, unit="%", task="n0"),
            ClusterMetric(name="x", value=1, unit=""),
        ),
        warnings=("1 sample(s) failed",),
    )
    labelled = _labelled(result, "remote")
    assert [s.node for s in labelled.series] == ["remote/n0"]
    assert [m.task for m in labelled.metrics] == ["remote/n0", "remote"]
    assert labelled.warnings == ("Cluster 'remote': 1 sample(s) failed",)


def test_json_file_of_client_options(tmp_path):
    path = tmp_path / "options.json"
    path.write_text(json.dumps({"default": {"timeout": 11}, "remote": {"timeout": 12}}))
    assert parse_cluster_options(str(path), ["default", "remote"])["remote"].timeout == 12
