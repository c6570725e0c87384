"""Bad input to ``esbench query`` and ``esbench load``: one-paragraph errors, non-zero exit, before
any cluster is contacted (the target host below does not exist)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from esbench.cli import main

NOWHERE = "http://127.0.0.1:9/idx/_search"


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def assert_error(result, *fragments: str) -> None:
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output
    text = result.output.replace("\n", " ")
    for fragment in fragments:
        assert fragment in text, text


def test_missing_and_empty_dictionary(tmp_path: Path):
    assert_error(
        run("query", "-d", str(tmp_path / "none.txt"), "--body", "[$RDICT]", NOWHERE), "does not exist"
    )
    (tmp_path / "empty.txt").write_text("")
    assert_error(run("query", "-d", str(tmp_path / "empty.txt"), "--body", "[$RDICT]", NOWHERE), "is empty")


def test_unknown_variable_in_body(tmp_path: Path):
    assert_error(run("query", "--body", '{"q": "$[[nope]]"}', NOWHERE), "unknown variable $[[nope]]")


def test_rdict_without_dictionary():
    assert_error(run("query", NOWHERE, stdin='{"q": "$RDICT"}'), "no dictionary")


@pytest.mark.parametrize("rate", ["0", "-5"])
def test_rate_not_positive(rate: str, tmp_path: Path):
    assert_error(run("query", "-r", rate, "--body", "{}", NOWHERE), "--rate must be positive")
    cfg = tmp_path / "l.yml"
    cfg.write_text("requests:\n  - request: {method: GET, url: 'http://127.0.0.1:9/'}\n")
    assert_error(run("load", "--config", str(cfg), "-r", rate), "-r (rate) must be positive")


@pytest.mark.parametrize("url", ["ftp://127.0.0.1:9/x", "127.0.0.1:9200/_search", "file:///etc/passwd"])
def test_url_not_http(url: str):
    assert_error(run("query", "--body", "{}", url), "is not an http(s) URL")


def test_yaml_that_is_not_loadgen(tmp_path: Path):
    cfg = tmp_path / "compose.yml"
    cfg.write_text("services:\n  web:\n    image: nginx\n")
    assert_error(run("load", "--config", str(cfg)), "is not an INFINI Loadgen configuration")
    cfg.write_text("requests: [unclosed\n")
    assert_error(run("load", "--config", str(cfg)), "is not valid YAML")


def test_unsupported_key_named_with_its_line(tmp_path: Path):
    cfg = tmp_path / "l.yml"
    cfg.write_text(
        "requests:\n"
        "  - request:\n"
        "      method: GET\n"
        "      url: http://127.0.0.1:9/\n"
        "      execute_repeat_times: 3\n"
    )
    assert_error(run("load", "--config", str(cfg)), "line 5", "'execute_repeat_times'")
    cfg.write_text("tests:\n  - path: x\nrequests:\n  - request: {url: 'http://127.0.0.1:9/'}\n")
    assert_error(run("load", "--config", str(cfg)), "line 1", "'tests'")
    cfg.write_text(
        "variables:\n  - {name: x, type: int_array_bitmap}\nrequests:\n  - request: {url: 'http://127.0.0.1:9/'}\n"
    )
    assert_error(run("load", "--config", str(cfg)), "line 2", "unknown type 'int_array_bitmap'")
    cfg.write_text(
        "requests:\n  - request: {url: 'http://127.0.0.1:9/'}\n    assert:\n      queue_has_lag: [q]\n"
    )
    assert_error(run("load", "--config", str(cfg)), "line 4", "'queue_has_lag' is not supported")


def test_bulk_without_actions(tmp_path: Path):
    cfg = tmp_path / "l.yml"
    cfg.write_text('requests:\n  - request: {method: POST, url: "http://127.0.0.1:9/_bulk", body: "{}\\n"}\n')
    assert_error(run("load", "--config", str(cfg)), "no action line")


def test_shares_the_race_options():
    names = {p.name for p in main.commands["query"].params} & {p.name for p in main.commands["load"].params}
    race = {p.name for p in main.commands["race"].params}
    assert {"target_hosts", "user_tag", "report_format", "client_options", "car", "pipeline"} <= names & race


def test_credentials_go_to_the_client_or_into_headers(tmp_path: Path):
    from esbench.adhoc.loadgen import load_config, with_credentials
    from esbench.driver.params.template_source import basic_auth_header

    cfg = tmp_path / "l.yml"
    cfg.write_text(
        "env: {PW: secret}\n"
        "runner:\n  default_basic_auth: {username: a, password: '$[[env.PW]]'}\n"
        "requests:\n"
        "  - request: {url: 'http://127.0.0.1:9/x'}\n"
        "  - request: {url: 'http://127.0.0.1:9/y', basic_auth: {username: b, password: c}}\n"
    )
    parsed = load_config(cfg)
    streams, shared = with_credentials(parsed, client_has_credentials=False)
    assert shared == ("a", "secret")
    assert "headers" not in streams[0].params
    assert streams[1].params["headers"]["Authorization"] == basic_auth_header("b", "c")
    streams, shared = with_credentials(parsed, client_has_credentials=True)
    assert shared is None
    assert streams[0].params["headers"]["Authorization"] == basic_auth_header("a", "secret")
