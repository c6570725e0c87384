"""Rally 2.13's value forms, with Rally's own functions as the oracle: what esbench's command line
makes of ``--user-tags``, the list options, ``~`` in paths and ``--client-options=timeout:None``
equals what ``esrally/utils/opts.py`` (``to_dict``, ``csv_to_list``, ``ClientOptions``) and
``esrally/utils/io.py`` (``normalize_path``) make of the same text, run in Rally's Python
(:func:`peer_options.rally_python_or_skip`).

esbench's side is the parsed settings: the ``RaceSettings`` a race would run with (the race itself
is replaced), the races ``list races`` finds in a store, the value a path option hands its command.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from peer_options import rally_python_or_skip

from esbench.cli import main
from esbench.cli._params import CheckedPath
from esbench.provision.cars import parse_car_names
from esbench.provision.plugins import parse_plugin_specs
from esbench.settings import RaceSettings

sys.path.append(str(Path(__file__).resolve().parents[1] / "results"))
from racefactory import make_race

TRACK = Path(__file__).resolve().parents[2] / "resources" / "tracks" / "planning-search"
RACE = [f"--track-path={TRACK}", "--target-hosts=127.0.0.1:9", "--pipeline=benchmark-only"]

# Runs in Rally's Python: each case (kind, text) through Rally's own parser, printed as JSON.
_ORACLE = r"""
import json, os, sys
from esrally.utils import io, opts
out = []
for kind, text in json.load(sys.stdin):
    try:
        if kind == "dict":
            value = opts.to_dict(text)
        elif kind == "list":
            value = opts.csv_to_list(text)
        elif kind == "client":
            value = opts.ClientOptions(text).default
        elif kind == "track-path":
            value = os.path.abspath(io.normalize_path(text))
        else:
            value = io.normalize_path(text, os.getcwd())
        out.append({"value": value})
    except Exception as e:
        out.append({"error": type(e).__name__})
print(json.dumps(out))
"""


def rally(cases: list[tuple[str, str]], home: Path, cwd: Path) -> list[dict[str, Any]]:
    """Rally's answer for each ``(kind, text)``: ``{"value": ...}`` or ``{"error": "ValueError"}``."""
    done = subprocess.run(
        [str(rally_python_or_skip()), "-c", _ORACLE],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        cwd=cwd,
        env={**os.environ, "HOME": str(home)},
    )
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME for ``~`` (esbench's and Rally's), holding the .json files the cases name, and the
    current directory (a relative file name is read from there)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "tags.json").write_text('{"disk": "SSD", "data_node_count": 4, "nested": {"a": [1, "b"]}}')
    (home / "list.json").write_text('["node-stats", "recovery-stats"]')
    (home / "client.json").write_text('{"default": {"timeout": null}}')
    (home / "track").symlink_to(TRACK, target_is_directory=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    return home


def race_settings(captured: list[RaceSettings], *args: str) -> RaceSettings:
    result = CliRunner().invoke(main, ["race", *RACE, *args])
    assert result.exit_code == 64 and "captured" in result.output, result.output
    return captured.pop()


# ------------------------------------------------------------------------------------ --user-tags

#: ``--user-tags`` values Rally 2.13 takes, each stored by esbench exactly as Rally stores it.
USER_TAGS = [
    '{"disk":"SSD","data_node_count":4}',
    '{"intention":"github-issue-1234-baseline"}',
    ' { "a" : {"b": [1, 2.5, null]}, "t": true, "s": "x, y: z" } ',
    "intention:baseline-ticket-12345",
    "count:4,ratio:0.5,ssd:true,off:FALSE,x:None,quoted:'4',big:1_000,exp:1e3,neg:-2",
    " disk : SSD , n : 3 ",
    "name:'a b'",
    "half:'x",
    "empty:",
    "list:[1],obj:{}",
    "",
    "   ",
    "tags.json",
    "~/tags.json",
]


def test_user_tags_are_stored_as_rally_stores_them(home: Path, captured: list[RaceSettings]) -> None:
    expected = rally([("dict", text) for text in USER_TAGS], home, home)
    ours = [dict(race_settings(captured, f"--user-tags={text}").user_tags) for text in USER_TAGS]
    assert [{"value": tags} for tags in ours] == expected
    assert ours[0] == {"disk": "SSD", "data_node_count": 4}  # the audit's case, not "{"disk"="SSD"


#: Values Rally fails on (a crash later, or its own error): esbench refuses each, saying why.
USER_TAGS_REFUSED = {
    "no-colon": "entry 'no-colon' has no ':'",
    "3": "must be a JSON object",
    '["a", "b"]': "must be a JSON object",
    ":v": "a value without a key",
    "missing.json": "cannot be read",
    "n:nan": "quote it to keep it as text (n:'nan')",
    '{"a": [NaN]}': "is or holds a number that cannot be stored",
    '{"a": {"b": Infinity}}': "is or holds a number that cannot be stored",
}


@pytest.mark.parametrize(("text", "reason"), USER_TAGS_REFUSED.items())
def test_user_tags_rally_cannot_store_are_refused(text: str, reason: str, home: Path) -> None:
    result = CliRunner().invoke(main, ["race", *RACE, f"--user-tags={text}"])
    assert result.exit_code == 64 and reason in result.output, result.output
    assert "Traceback" not in result.output


def test_a_key_given_twice_is_refused_where_rally_keeps_the_last(home: Path) -> None:
    assert rally([("dict", "a:1,a:2")], home, home) == [{"value": {"a": 2}}]
    result = CliRunner().invoke(main, ["race", *RACE, "--user-tags=a:1,a:2"])
    assert result.exit_code == 64 and "gives 'a' more than one value (a: 1, 2)" in result.output


def test_list_races_finds_races_by_every_form_of_user_tags(isolated_home: Path, home: Path) -> None:
    from esbench.results.store import ResultsStore

    typed = make_race(seed=1, tags={"intention": "github-issue-1234-baseline", "n": 4, "ssd": True})
    legacy = dataclasses.replace(make_race(seed=2, timestamp="2026-01-02T00:00:00Z"), user_tags={"n": "4"})
    with ResultsStore.open() as store:
        store.save(typed)
        store.save(legacy)
        # The typed tags come back typed; a race stored with text tags keeps them.
        assert store.find(user_tags={"ssd": "true"})[0].user_tags == typed.user_tags
        assert store.find(user_tags={"n": "4"})[1].user_tags == {"n": "4"}
        # tag:KEY:VALUE (compare, report) means what --user-tags=KEY:VALUE stores.
        assert [r.race_id for r in store.resolve("tag:ssd:True")] == [typed.race_id]
        assert [r.race_id for r in store.resolve("tag:n:4")] == [typed.race_id, legacy.race_id]
    forms = {
        '{"intention":"github-issue-1234-baseline"}': [typed.race_id],
        "intention:github-issue-1234-baseline": [typed.race_id],
        "ssd:true": [typed.race_id],
        '{"ssd": true, "n": 4}': [typed.race_id],
        "n:4": [typed.race_id, legacy.race_id],  # the int 4, and a text "4" stored before tags were typed
        "ssd:false": [],
        "~/tags.json": [],
    }
    for text, ids in forms.items():
        result = CliRunner().invoke(main, ["list", "races", f"--user-tags={text}", "--format=json"])
        assert result.exit_code == 0, result.output
        races = json.loads(result.stdout)["races"]
        assert [r["race-id"] for r in races] == ids, text
    shown = CliRunner().invoke(main, ["list", "races", "--user-tags=n:4", "--format=json"]).stdout
    assert json.loads(shown)["races"][0]["user-tags"] == typed.user_tags  # typed, as Rally's race document
    text = CliRunner().invoke(main, ["list", "races", "--user-tags=ssd:true"]).stdout
    assert "intention=github-issue-1234-baseline, n=4, ssd=True" in text  # Rally's format_dict


# ------------------------------------------------------------------------------------ list options

#: List values Rally 2.13 reads with ``opts.csv_to_list``, with the devices that exist.
LISTS = [
    "node-stats,recovery-stats",
    " node-stats , recovery-stats ",
    '["node-stats","recovery-stats"]',
    ' [ "node-stats" , "recovery-stats" ] ',
    '["node-stats"]',
    "list.json",
    "~/list.json",
]


def _race_lists(settings: RaceSettings) -> dict[str, list[str]]:
    plugins = parse_plugin_specs(settings.provision.elasticsearch_plugins)
    return {
        "--telemetry": list(settings.telemetry.devices),
        "--include-tasks": list(settings.driver.include_tasks),
        "--exclude-tasks": list(settings.driver.exclude_tasks),
        "--car": parse_car_names(settings.provision.car),
        "--elasticsearch-plugins": [name for name, _ in plugins],
        "--load-driver-hosts": list(settings.driver.load_driver_hosts),
    }


def test_every_list_option_of_a_race_takes_rallys_forms(home: Path, captured: list[RaceSettings]) -> None:
    expected = rally([("list", text) for text in LISTS], home, home)
    for text, rallys in zip(LISTS, expected, strict=True):
        options = list(_race_lists(RaceSettings()))
        settings = race_settings(captured, *(f"{o}={text}" for o in options))
        assert _race_lists(settings) == dict.fromkeys(options, rallys["value"]), text


def test_an_empty_list_is_no_item_as_in_rally(home: Path, captured: list[RaceSettings]) -> None:
    assert rally([("list", "[]"), ("list", "")], home, home) == [{"value": []}, {"value": []}]
    for text in ("[]", " [ ] "):
        settings = race_settings(captured, f"--telemetry={text}", f"--include-tasks={text}")
        assert settings.telemetry.devices == () and settings.driver.include_tasks == ()


@pytest.mark.parametrize("option", ["--indices", "--data-streams"])
def test_create_track_lists_take_rallys_forms(option: str, home: Path) -> None:
    command = main.commands["create-track"]
    param = next(p for p in command.params if option in getattr(p, "opts", ()))
    cases = ['["logs-*","metrics"]', "logs-*, metrics", "list.json"]
    for text, rallys in zip(cases, rally([("list", t) for t in cases], home, home), strict=True):
        converted = param.type.convert(text, param, None)
        assert [s.strip() for s in converted.split(",")] == rallys["value"]


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ('["node-stats", 3]', "holds items that are not strings"),
        ('["a,b"]', "the item 'a,b' holds a comma"),
        ('["unclosed"', "is not valid JSON"),
        ("tags.json", "does not hold a JSON array of strings"),
    ],
)
def test_json_lists_esbench_cannot_take_are_refused(value: str, reason: str, home: Path) -> None:
    result = CliRunner().invoke(main, ["race", *RACE, f"--include-tasks={value}"])
    assert result.exit_code == 64 and reason in result.output and "Traceback" not in result.output


# ------------------------------------------------------------------------------------------ paths


def test_track_path_and_report_file_expand_the_home_as_rally_does(
    home: Path, captured: list[RaceSettings]
) -> None:
    track, report = rally([("track-path", "~/track"), ("report-file", "~/bench/result.csv")], home, home)
    result = CliRunner().invoke(
        main,
        [
            "race",
            "--track-path=~/track",
            "--target-hosts=127.0.0.1:9",
            "--report-file=~/bench/result.csv",
        ],
    )
    assert result.exit_code == 64 and "captured" in result.output, result.output
    settings = captured.pop()
    assert str(settings.report.file) == report["value"] == str(home / "bench" / "result.csv")
    assert str(settings.track_path) == track["value"] == str(home / "track")


def _path_params() -> list[tuple[str, click.Parameter]]:
    found: list[tuple[str, click.Parameter]] = []

    def walk(group: click.Group, path: str) -> None:
        for name, command in sorted(group.commands.items()):
            if isinstance(command, click.Group):
                walk(command, f"{path} {name}".strip())
            else:
                found.extend(
                    (f"{path} {name}".strip(), p) for p in command.params if isinstance(p.type, CheckedPath)
                )

    walk(main, "")
    return found


@pytest.mark.parametrize(("command", "param"), _path_params(), ids=lambda v: getattr(v, "name", v))
def test_every_path_option_expands_the_home(command: str, param: click.Parameter, home: Path) -> None:
    assert isinstance(param.type, CheckedPath)
    (home / "file.json").write_text("{}")
    (home / "dir").mkdir()
    name = "dir" if param.type.dir_okay and not param.type.file_okay else "file.json"
    converted = param.type.convert(f"~/{name}", param, None)
    assert str(converted) == str(home / name), f"{command} {param.name}"


def test_json_files_of_value_options_expand_the_home(home: Path, captured: list[RaceSettings]) -> None:
    (home / "params.json").write_text('{"search_clients": 3}')
    (home / "hosts.json").write_text('{"default": ["127.0.0.1:9"]}')
    settings = race_settings(captured, "--track-params=~/params.json", "--client-options=~/client.json")
    assert settings.track_params == {"search_clients": 3} and settings.client_options.timeout is None
    settings = race_settings(captured, "--target-hosts=~/hosts.json")
    assert settings.target_hosts == ("127.0.0.1:9",)


# ---------------------------------------------------------------------------------- client options


def test_client_timeout_none_means_no_timeout_as_in_rally(home: Path, captured: list[RaceSettings]) -> None:
    cases = ["timeout:None", "timeout:none", "timeout:60", "timeout:2.5", "client.json"]
    expected = rally([("client", c) for c in cases], home, home)
    assert [e["value"]["timeout"] for e in expected] == [None, None, 60, 2.5, None]
    for text, rallys in zip(cases, expected, strict=True):
        settings = race_settings(captured, f"--client-options={text}")
        assert settings.client_options.timeout == rallys["value"]["timeout"], text


async def test_a_client_without_timeout_sets_none_on_either_path() -> None:
    from esbench.driver.transport.client import ConnectionSettings, create_client, parse_client_options

    options = parse_client_options("timeout:None")
    client = create_client(ConnectionSettings.create(["127.0.0.1:9"], options))
    try:
        # elasticsearch-py's request timeout (Rally's client gets the same: timeout=None) and the
        # fast path's: None is no limit (esbench.driver.transport.rawhttp).
        assert client._request_timeout is None
        assert client.http._timeout is None
    finally:
        await client.close()
