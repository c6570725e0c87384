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
    assert_error(run("query", "--rate", rate, "--body", "{}", NOWHERE), "'--rate'", "x>0")
    assert_error(run("query", "-r", rate, "--body", "{}", NOWHERE), "'--recurrence' / '-r'", "x>=1")
    cfg = tmp_path / "l.yml"
    cfg.write_text("requests:\n  - request: {method: GET, url: 'http://127.0.0.1:9/'}\n")
    assert_error(run("load", "--config", str(cfg), "-r", rate), "'-r'", "x>0")


def test_esperf_short_flags_mean_what_esperf_means():
    """-r recurrence, -t threads, -o/-w omitted seconds, -u user:password (esperf's Options.cpp)."""
    from esbench.cli.adhoc import query

    flags = {opt: p.name for p in query.params for opt in p.opts}
    assert flags["-r"] == "recurrence" and flags["-t"] == "clients" and flags["-c"] == "clients"
    assert flags["-o"] == flags["-w"] == "warmup" and flags["-u"] == "user" and flags["-X"] == "method"
    assert "--rate" in flags and "--duration" in flags and "-d" in flags
    assert_error(run("query", "-u", ":pw", "--body", "{}", NOWHERE), "-u/--user takes USER:PASSWORD")
    assert_error(run("query", "-H", "no-colon", "--body", "{}", NOWHERE), "-H/--header takes 'NAME: VALUE'")
    assert_error(run("query", "-n", "3", "-r", "5", "--body", "{}", NOWHERE), "-n/--iterations alone")
    assert_error(
        run("query", "-u", "a:b", "--client-options", "basic_auth_user:'c',basic_auth_password:'d'", NOWHERE),
        "-u/--user and the client options",
    )


def test_esperf_recurrence_is_shared_by_the_threads():
    """esperf -r 50 -t 4 sends 50 requests in all (one counter for all threads, Stats.cpp)."""
    from esbench.adhoc.query import query_track
    from esbench.settings import RaceSettings

    settings = query_track(
        RaceSettings(),
        urls=[NOWHERE],
        body="{}",
        method="GET",
        dictionary=None,
        variables=[],
        clients=4,
        rate=None,
        iterations=None,
        duration=None,
        warmup=2.0,
        recurrence=50,
        credentials=("elastic", "pw"),
    )
    task = settings.track.default_challenge.tasks()[0]
    assert task.clients == 4 and task.operation.params["request-limit"] == 50
    assert task.time_period is None and task.iterations is None and task.warmup_time_period == 2.0
    assert settings.client_options.basic_auth_user == "elastic"


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
    cfg.write_text("requests:\n  - request:\n      url: http://127.0.0.1:9/\n      execute_times: 3\n")
    assert_error(run("load", "--config", str(cfg)), "line 4", "'execute_times'")
    cfg.write_text("tests:\n  - path: x\nrequests:\n  - request: {url: 'http://127.0.0.1:9/'}\n")
    assert_error(run("load", "--config", str(cfg)), "line 1", "'tests'")
    cfg.write_text(
        "variables:\n  - {name: x, type: int_bitmap}\nrequests:\n  - request: {url: 'http://127.0.0.1:9/'}\n"
    )
    assert_error(run("load", "--config", str(cfg)), "line 2", "unknown type 'int_bitmap'")
    cfg.write_text(
        "requests:\n  - request: {url: 'http://127.0.0.1:9/'}\n    assert:\n      queue_has_lag: [q]\n"
    )
    assert_error(run("load", "--config", str(cfg)), "line 4", "'queue_has_lag' is not supported")
    cfg.write_text("runner: {log_request: true}\nrequests:\n  - request: {url: 'http://127.0.0.1:9/'}\n")
    assert_error(run("load", "--config", str(cfg)), "line 1", "'log_request'")
    # register (values from one response into later requests) is Loadgen's but not run by esbench
    cfg.write_text("requests:\n  - request: {url: 'http://127.0.0.1:9/'}\n    register: [{id: _ctx.x}]\n")
    assert_error(run("load", "--config", str(cfg)), "line 3", "'register'")
    cfg.write_text("requests:\n  - request: {url: 'http://127.0.0.1:9/'}\n    sleep: {seconds: 1}\n")
    assert_error(run("load", "--config", str(cfg)), "'sleep' takes {sleep_in_milli_seconds: N}")
    dsl = tmp_path / "t.dsl"
    dsl.write_text(
        "GET http://127.0.0.1:9/\n# sleep: {sleep_in_milli_seconds: 1},\n# register: [{id: '_ctx.x'}]\n"
    )
    assert_error(run("load", "-run", str(dsl)), "line 3", "'register'")


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
    from esbench.driver.worker.params.template_source import basic_auth_header

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


def test_loadgen_exit_statuses(capsys):
    """Loadgen's main.go: exit 1 for failed assertions with assert_invalid, 2 for requests without a
    response with assert_error; an HTTP error status is not a Loadgen "error"."""
    from types import SimpleNamespace

    from esbench.cli.adhoc import _loadgen_exit

    reason = SimpleNamespace(
        error_type="assertion", reason="_ctx.response.status is 404, expected it to equal 200"
    )
    asserted = SimpleNamespace(
        task="GET /x", sample_count=4, errors_by_type={"assertion": 2}, error_descriptions=[reason]
    )
    refused = SimpleNamespace(task="GET /y", sample_count=3, errors_by_type={"connection": 3, "500": 1})
    race = SimpleNamespace(race_id="r1", tasks=[asserted, refused])
    with pytest.raises(SystemExit) as info:
        _loadgen_exit(race, assert_invalid=True, assert_error=True)
    assert info.value.code == 1
    assert "GET /x: 2 of 4 responses failed the assertion: " + reason.reason in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        _loadgen_exit(race, assert_invalid=False, assert_error=True)
    assert info.value.code == 2
    _loadgen_exit(SimpleNamespace(race_id="r2", tasks=[refused]), assert_invalid=True, assert_error=False)
    only_http = SimpleNamespace(task="GET /z", sample_count=1, errors_by_type={"500": 1})
    _loadgen_exit(SimpleNamespace(race_id="r3", tasks=[only_http]), assert_invalid=True, assert_error=True)


def test_warm_up_round_counts_against_the_request_limit(tmp_path: Path):
    """Loadgen's main.go subtracts the warm-up round's requests from -l."""
    from esbench.adhoc.load import load_track
    from esbench.settings import RaceSettings

    cfg = tmp_path / "l.yml"
    cfg.write_text(
        "requests:\n  - request: {url: 'http://127.0.0.1:9/a', execute_repeat_times: 2}\n"
        "  - request: {url: 'http://127.0.0.1:9/b'}\n"
    )
    assert_error(run("load", "--config", str(cfg), "-l", "3"), "-l 3 leaves no request", "no_warm: true")
    plan = load_track(
        RaceSettings(), config=cfg, clients=1, duration=5.0, rate=None, limit=7, compress=False, warmup=0.0
    )
    tasks = plan.settings.track.default_challenge.tasks()
    warm = [t for t in tasks if t.name.startswith("warm-up")]
    assert [t.warmup_iterations for t in warm] == [2, 1] and all(t.iterations == 0 for t in warm)
    measured = [t for t in tasks if not t.name.startswith("warm-up")]
    assert sum(t.operation.params["request-limit"] for t in measured) == 7 - 3


def test_request_limit_below_the_number_of_requests(tmp_path: Path):
    cfg = tmp_path / "l.yml"
    cfg.write_text(
        "runner: {no_warm: true, total_rounds: 1}\n"
        "requests:\n  - request: {url: 'http://127.0.0.1:9/a'}\n  - request: {url: 'http://127.0.0.1:9/b'}\n"
    )
    assert_error(
        run("load", "--config", str(cfg), "-l", "1"), "A request limit of 1 cannot cover the 2 requests"
    )


def test_simple_mode_sends_method_and_url_but_is_still_asserted(tmp_path: Path):
    from esbench.adhoc.loadgen import load_config

    cfg = tmp_path / "l.yml"
    cfg.write_text(
        "requests:\n  - request: {url: 'http://127.0.0.1:9/a', simple_mode: true, body: 'x',\n"
        "                headers: [{X-A: b}]}\n    assert: {equals: {_ctx.response.status: 200}}\n"
        "    sleep: {sleep_in_milli_seconds: 5}\n"
    )
    params = load_config(cfg).streams[0].params
    assert "body" not in params and "headers" not in params and params["method"] == "GET"
    assert params["assert"] == {"equals": {"_ctx.response.status": 200}} and params["sleep-after"] == 0.005
