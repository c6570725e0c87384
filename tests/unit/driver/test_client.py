from __future__ import annotations

import base64
import json
import logging
import pickle

import certifi
import pytest

from esbench.driver.transport.client import (
    ClientOptions,
    ConnectionSettings,
    create_client,
    host_urls,
    parse_client_options,
    resolve_credentials,
)
from esbench.driver.transport.http import NodeHttpTransport, TimedAiohttpNode
from esbench.driver.transport.rawhttp import RawHttpTransport
from esbench.exceptions import ConfigError

SECRET = "s3cr3t-Pa55"
KEY = "key-id:key-S3CRET"


def test_defaults():
    assert parse_client_options("") == ClientOptions()
    assert parse_client_options(None).timeout == 60.0
    assert ClientOptions().verify_certs is True


def test_rally_key_value_syntax():
    # ca_certs must name a CA bundle that loads: certifi's, which elastic-transport depends on.
    ca = certifi.where()
    options = parse_client_options(
        f"timeout:120,use_ssl:true,verify_certs:false,ca_certs:'{ca}',basic_auth_user:'elastic',"
        "basic_auth_password:'" + SECRET + "',http_compress:true,max_connections:8"
    )
    assert options.timeout == 120.0 and options.use_ssl and not options.verify_certs
    assert options.ca_certs == ca and options.basic_auth_user == "elastic"
    assert options.basic_auth_password == SECRET and options.http_compress and options.max_connections == 8


def test_json_inline_file_and_multi_cluster_default(tmp_path):
    assert parse_client_options('{"timeout": 5}').timeout == 5.0
    assert parse_client_options('{"default": {"timeout": 7}, "remote": {"timeout": 1}}').timeout == 7.0
    path = tmp_path / "client.json"
    path.write_text(json.dumps({"use_ssl": True, "compressed": True}))
    options = parse_client_options(str(path))
    assert options.use_ssl and options.http_compress


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("timeout:abc", "'timeout' must be a number"),
        ("use_ssl:maybe", "'use_ssl' must be true or false"),
        ("colour:blue", "Unknown --client-options colour"),
        ("noseparator", "expected 'key:value' pairs"),
        ("{not json", "not valid JSON"),
        ("/does/not/exist.json", "Cannot read the --client-options file"),
    ],
)
def test_errors_name_the_option(text, message):
    with pytest.raises(ConfigError, match=message):
        parse_client_options(text)


def test_ignored_rally_options_are_accepted():
    assert parse_client_options("enable_cleanup_closed:true,max_retries:3") == ClientOptions()


def test_credentials_never_show_in_repr_str_or_describe():
    options = parse_client_options(f"basic_auth_user:'u',basic_auth_password:'{SECRET}',api_key:'{KEY}'")
    for text in (repr(options), str(options), json.dumps(options.describe())):
        assert SECRET not in text and "S3CRET" not in text
    assert options.describe()["basic_auth_password"] == "*****"
    settings = ConnectionSettings.create(["127.0.0.1:9200"], options)
    assert SECRET not in repr(settings) and "S3CRET" not in repr(settings.credentials)
    # but they travel to the worker processes intact
    assert pickle.loads(pickle.dumps(settings)).credentials.password == SECRET


def test_credentials_from_environment():
    env = {"ESBENCH_USERNAME": "env-user", "ESBENCH_PASSWORD": SECRET}
    creds = resolve_credentials(ClientOptions(), env)
    assert creds.username == "env-user" and creds.password == SECRET
    header = creds.headers()["authorization"]
    assert header == "Basic " + base64.b64encode(f"env-user:{SECRET}".encode()).decode()
    # options win over the environment; an API key wins over basic auth
    assert resolve_credentials(ClientOptions(basic_auth_user="opt"), env).username == "opt"
    api = resolve_credentials(ClientOptions(), {"ESBENCH_API_KEY": KEY, **env})
    assert api.headers()["authorization"] == "ApiKey " + base64.b64encode(KEY.encode()).decode()
    assert resolve_credentials(ClientOptions(), {}).headers() == {}


def test_host_urls():
    assert host_urls(["127.0.0.1:9200", "https://h:9243/"], use_ssl=False) == (
        "http://127.0.0.1:9200",
        "https://h:9243",
    )
    assert host_urls(["[::1]:9200"], use_ssl=True) == ("https://[::1]:9200",)
    with pytest.raises(ConfigError, match="no port"):
        host_urls(["localhost"], use_ssl=False)
    with pytest.raises(ConfigError, match="No target hosts"):
        host_urls([], use_ssl=False)


async def test_client_uses_timed_nodes_and_sends_auth_on_the_fast_path(caplog, monkeypatch):
    monkeypatch.setenv("ESBENCH_PASSWORD", SECRET)
    caplog.set_level(logging.DEBUG)
    options = parse_client_options("basic_auth_user:'bench',timeout:5")
    client = create_client(ConnectionSettings.create(["127.0.0.1:9", "127.0.0.1:10"], options))
    try:
        nodes = client.transport.node_pool.all()
        assert len(nodes) == 2 and all(isinstance(n, TimedAiohttpNode) for n in nodes)
        assert isinstance(client.http, RawHttpTransport)
        assert client.http._base_headers["authorization"].startswith("Basic ")
        assert client.http._base_headers["content-type"] == "application/json"
        other = create_client(
            ConnectionSettings.create(["127.0.0.1:9"], options), fast_path="elasticsearch-py"
        )
        assert isinstance(other.http, NodeHttpTransport)
        assert other.http._headers["authorization"] == client.http._base_headers["authorization"]
        await other.close()
    finally:
        await client.close()
    assert SECRET not in caplog.text


def test_tls_verification_on_by_default():
    client = create_client(ConnectionSettings.create(["127.0.0.1:9200"], ClientOptions(use_ssl=True)))
    node = client.transport.node_pool.all()[0]
    assert node.config.scheme == "https" and node.config.verify_certs is True


@pytest.mark.parametrize(
    "text",
    [
        f"timeout:5,basic_auth_password='{SECRET}'",  # '=' instead of ':'
        f"basic_auth_password={SECRET}",
        f"basic_auth_user:'u',basic_auth_password:{SECRET[:4]},{SECRET[5:]}",  # unquoted comma
        f"api_key {KEY}",
    ],
)
def test_malformed_entries_never_show_secrets(text):
    with pytest.raises(ConfigError) as error:
        parse_client_options(text)
    message = str(error.value)
    assert "--client-options" in message
    for secret in (SECRET, SECRET[:4], SECRET[5:], KEY, "S3CRET"):
        assert secret not in message


def test_quoted_values_may_contain_commas():
    options = parse_client_options("basic_auth_user:'u',basic_auth_password:'a,b',timeout:5")
    assert options.basic_auth_password == "a,b" and options.timeout == 5.0


def test_credentials_in_host_urls_become_basic_auth_and_leave_the_urls():
    settings = ConnectionSettings.create(
        ["https://elastic:p%40ss-S3CRET@127.0.0.1:9200", "https://elastic:p%40ss-S3CRET@127.0.0.1:9201"],
        ClientOptions(),
    )
    assert settings.urls == ("https://127.0.0.1:9200", "https://127.0.0.1:9201")
    assert (settings.credentials.username, settings.credentials.password) == ("elastic", "p@ss-S3CRET")
    assert "S3CRET" not in repr(settings)
    client = create_client(settings)
    expected = "Basic " + base64.b64encode(b"elastic:p@ss-S3CRET").decode()
    assert client.http._base_headers["authorization"] == expected


def test_conflicting_credentials_in_host_urls_are_errors_without_the_secrets():
    with pytest.raises(ConfigError, match="different credentials") as different:
        ConnectionSettings.create(
            ["http://a:S3CRET1@127.0.0.1:9200", "http://b:S3CRET2@127.0.0.1:9201"], ClientOptions()
        )
    with pytest.raises(ConfigError, match="in one place only") as twice:
        ConnectionSettings.create(["http://a:S3CRET1@127.0.0.1:9200"], ClientOptions(basic_auth_user="a"))
    with pytest.raises(ConfigError, match="has no port") as no_port:
        host_urls(["elastic:S3CRET1@localhost"], use_ssl=False)
    for error in (different, twice, no_port):
        assert "S3CRET" not in str(error.value)


def test_clients_of_a_worker_share_one_tls_context():
    settings = ConnectionSettings.create(["127.0.0.1:9200"], ClientOptions(use_ssl=True))
    first, second = create_client(settings), create_client(settings)
    assert first.http._ssl is not None and first.http._ssl is second.http._ssl


def test_hosts_for_display_have_no_userinfo():
    from esbench.driver.transport.client import host_for_display

    assert host_for_display("https://elastic:S3CRET@h:9243") == "https://h:9243"
    assert host_for_display("elastic:S3CRET@127.0.0.1:9200") == "127.0.0.1:9200"
    assert host_for_display("127.0.0.1:9200") == "127.0.0.1:9200"
