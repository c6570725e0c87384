"""Loadgen's DSL read into its YAML structure, and parse errors that name the file, the line and
what was expected. The fixtures follow the layout of Loadgen's documented examples (requests as
``METHOD /path`` with body lines, ``#`` blocks for options and assertions)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from esbench.adhoc.loadgen import load_config
from esbench.adhoc.loadgen_dsl import parse_dsl
from esbench.cli import main
from esbench.exceptions import ConfigError

DSL = """\
# // a comment line; the next block holds top-level options
# runner: {
#   total_rounds: 2,     // rounds per client
#   no_warm: true,
#   assert_invalid: true,
#   default_endpoint: "http://127.0.0.1:9",
# },
# variables: [{name: "n", type: "sequence"}, {name: 'w', type: 'list', data: ['a', "b",],},],
# env: {IDX: "books"}

PUT /$[[env.IDX]]
# 200
# {"acknowledged": true, "index": "books"}

post /$[[env.IDX]]/_doc
{"n": $[[n]],
 "w": "$[[w]]"}
# request: {
#   execute_repeat_times: 3,
#   headers: [{"X-Run": "dsl"}],
# },
# sleep: {sleep_in_milli_seconds: 0}

GET /$[[env.IDX]]/_search
# {"hits": {"total": {"value": gte(6)}, "hits": [{"_index": "books"}]}, "timed_out": false}
"""


def write(tmp_path: Path, text: str, name: str = "t.dsl") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_requests_bodies_options_and_assertions(tmp_path: Path):
    doc = parse_dsl(write(tmp_path, DSL))
    data = doc.data
    assert data["runner"] == {
        "total_rounds": 2,
        "no_warm": True,
        "assert_invalid": True,
        "default_endpoint": "http://127.0.0.1:9",
    }
    assert data["variables"] == [
        {"name": "n", "type": "sequence"},
        {"name": "w", "type": "list", "data": ["a", "b"]},
    ]
    assert data["env"] == {"IDX": "books"}
    put, post, search = data["requests"]
    assert doc.request_lines == (11, 15, 24)
    assert put["request"] == {"method": "PUT", "url": "/$[[env.IDX]]", "body": ""}
    assert put["assert"] == {
        "and": [
            {"equals": {"_ctx.response.status": 200}},
            {"equals": {"_ctx.response.body_json.acknowledged": True}},
            {"equals": {"_ctx.response.body_json.index": "books"}},
        ]
    }
    assert post["request"]["method"] == "POST"
    assert post["request"]["body"] == '{"n": $[[n]],\n "w": "$[[w]]"}\n'
    assert post["request"]["execute_repeat_times"] == 3
    assert post["request"]["headers"] == [{"X-Run": "dsl"}]
    assert post["sleep"] == {"sleep_in_milli_seconds": 0}
    assert search["assert"]["and"] == [
        {"range": {"_ctx.response.body_json.hits.total.value": {"gte": 6}}},
        {"equals": {"_ctx.response.body_json.hits.hits.0._index": "books"}},
        {"equals": {"_ctx.response.body_json.timed_out": False}},
    ]


def test_assert_option_takes_event_fields(tmp_path: Path):
    """`# assert: {...}` holds fields of the response event (nested or dotted), each leaf compared
    like a body subset's: what Loadgen's compiler makes of it, not INFINI's condition syntax."""
    text = 'GET /\n# assert: {_ctx: {response: {status: 201}}, "_ctx.elapsed": lt(5)}\n'
    assert parse_dsl(write(tmp_path, text)).data["requests"][0]["assert"] == {
        "and": [{"equals": {"_ctx.response.status": 201}}, {"range": {"_ctx.elapsed": {"lt": 5}}}]
    }
    with pytest.raises(ConfigError, match="line 3: 'assert' takes an object of fields"):
        parse_dsl(write(tmp_path, "GET /\n# sleep: {sleep_in_milli_seconds: 1},\n#  assert: 200\n"))


def test_status_alone_and_escapes(tmp_path: Path):
    data = parse_dsl(write(tmp_path, "GET /\n# 404\n# // done\n")).data
    assert data["requests"][0]["assert"] == {"equals": {"_ctx.response.status": 404}}
    text = (
        "# variables: [{name: 'q', type: 'list', data: ['it\\'s', \"a \\\"b\\\"\"], "
        "replace: {'\"': '\\\\\"'}}]\nGET /\n"
    )
    variable = parse_dsl(write(tmp_path, text)).data["variables"][0]
    assert variable["data"] == ["it's", 'a "b"'] and variable["replace"] == {'"': '\\"'}


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("GET\n", 1, "expected a URL after the method 'GET'"),
        ("GET /a\nbody\n\nstray\n", 4, "expected a URL after the method 'stray'"),
        ("{not a request}\n", 1, "expected a request line 'METHOD /path'"),
        ("GET /a\n# 200\n# 201\n", 3, "expected the end of the block"),
        ('GET /a\n# {"a": 1,\n#  "b" 2}\n', 3, "expected ':' after the key, found '2'"),
        ('GET /a\n# {"a": [1, 2}\n', 2, "expected ',' or ']', found '}'"),
        ('GET /a\n# {"a": "open}\n', 2, "expected a closing quote"),
        ('GET /a\n# {"a": foo}\n', 2, "expected a value"),
        ("GET /a\n# 2.5\n", 2, "expected an HTTP status, found 2.5"),
        ("# runner: {total_rounds: 1}\n# 200\nGET /a\n", 2, "expected ',' or the end of the block"),
        ("# 200\nGET /a\n", 1, "an assertion must follow a request"),
        ("# requests: []\nGET /a\n", 1, "'requests' is not an option before the first request"),
        ("GET /a\n# retries: 3\n", 2, "'retries' is not an option after a request"),
        ('GET /a\n# request: {url: "/b"}\n', 2, "'url' comes from the request line"),
    ],
)
def test_parse_errors_name_file_line_and_what_was_expected(
    tmp_path: Path, text: str, line: int, expected: str
):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        parse_dsl(path)
    message = str(info.value)
    assert f"{path} line {line}: " in message and expected in message, message


def test_no_request(tmp_path: Path):
    with pytest.raises(ConfigError, match="has no request"):
        parse_dsl(write(tmp_path, "# runner: {no_warm: true}\n"))


def test_dsl_keys_checked_like_the_yaml(tmp_path: Path):
    path = write(
        tmp_path, "# runner: {\n#   no_warm: true,\n#   log_every: true,\n# }\nGET http://127.0.0.1:9/\n"
    )
    with pytest.raises(ConfigError, match="line 3: 'log_every' in 'runner'"):
        load_config(path)
    path = write(
        tmp_path, "# variables: [\n#  {name: 'a', type: 'uuid'},\n#  {name: 'b', type: 'nope'}]\nGET /\n"
    )
    with pytest.raises(ConfigError, match=r"line 3: .*unknown type 'nope'"):
        load_config(path)
    path = write(
        tmp_path, "GET http://127.0.0.1:9/\n# request: {\n#   body_repeat_times: 2,\n#   retry: 1}\n"
    )
    with pytest.raises(ConfigError, match=r"line 4: 'retry' in 'request'"):
        load_config(path)


def test_dsl_starts_from_the_yaml_configuration(tmp_path: Path):
    """Loadgen runs a DSL file with loadgen.yml's env, runner and variables; the DSL's own win."""
    (tmp_path / "words.txt").write_text("x\ny\n")
    base = write(
        tmp_path,
        "env: {EP: 'http://127.0.0.1:9'}\n"
        "runner: {default_endpoint: '$[[env.EP]]', total_rounds: 5, assert_error: true}\n"
        "variables:\n  - {name: f, type: file, path: words.txt}\n  - {name: n, type: sequence}\n"
        "requests:\n  - request: {url: /ignored}\n",
        "loadgen.yml",
    )
    sub = tmp_path / "sub"
    sub.mkdir()
    dsl = write(
        sub, "# runner: {total_rounds: 1}, variables: [{name: 'n', type: 'range', from: 1, to: 2}]\nGET /a\n"
    )
    cfg = load_config(dsl, base=base)
    assert [s.name for s in cfg.streams] == ["GET /a"]
    assert cfg.endpoints[0].base == "http://127.0.0.1:9"
    assert cfg.runner.total_rounds == 1 and cfg.runner.assert_error
    variables = cfg.streams[0].params["variables"]
    assert variables[0]["path"] == str(tmp_path / "words.txt") and variables[1]["type"] == "range"
    # A loadgen.yml for DSL runs only (no requests) is fine as a base, not as a configuration.
    base.write_text("runner: {default_endpoint: 'http://127.0.0.1:9'}\n")
    assert load_config(dsl, base=base).endpoints[0].base == "http://127.0.0.1:9"
    with pytest.raises(ConfigError, match="is not an INFINI Loadgen configuration"):
        load_config(base)


def test_cli_reports_dsl_errors_without_traceback(tmp_path: Path):
    path = write(tmp_path, 'GET /a\n# {"a": }\n')
    result = CliRunner().invoke(main, ["load", "-run", str(path)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert f"{path} line 2: expected a value" in result.output.replace("\n", " ")
    result = CliRunner().invoke(main, ["load", "--config", str(path), "--format", "yaml"])
    assert result.exit_code != 0 and "is not an INFINI Loadgen configuration" in result.output.replace(
        "\n", " "
    )
