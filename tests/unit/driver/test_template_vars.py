"""Every Loadgen variable type produces what Loadgen produces (domain.go buildVariableValue)."""

from __future__ import annotations

import base64
import collections
import datetime as dt
import random
import re
import time
from pathlib import Path

import pytest

from esbench.driver.worker.params.template_gen import make_generator
from esbench.driver.worker.params.template_golayout import compile_layout, go_time_string
from esbench.driver.worker.params.template_vars import apply_replace, parse_variable
from esbench.exceptions import ConfigError


def gen(raw, tmp_path=Path("."), *, index=0, clients=1, others=(), env=None):
    specs = {}
    for r in (*others, raw):
        s = parse_variable(r, where="test", base_dir=tmp_path, env=env or {})
        specs[s.name] = s
    spec = specs[raw["name"]]
    return make_generator(spec, specs, index=index, clients=clients, rng=random.Random(7))


def test_file_draws_every_line_uniformly(tmp_path):
    (tmp_path / "d.txt").write_text("a\r\nb\n\nc\n")
    g = gen({"name": "f", "type": "file", "path": "d.txt", "data": [" d ", ""]}, tmp_path)
    counts = collections.Counter(g.column(40000))
    # lines end at \n or \r\n; an empty inner line is a value; data is appended (trimmed, non-empty)
    assert set(counts) == {"a", "b", "", "c", "d"}
    assert all(abs(c - 8000) < 600 for c in counts.values()), counts


def test_file_missing_or_empty_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        gen({"name": "f", "type": "file", "path": "nope.txt"}, tmp_path)
    (tmp_path / "e.txt").write_text("")
    with pytest.raises(ConfigError, match="is empty"):
        gen({"name": "f", "type": "file", "path": "e.txt"}, tmp_path)


def test_list_and_replace():
    g = gen({"name": "l", "type": "list", "data": ['say "hi"'], "replace": {'"': '\\"'}})
    assert g.column(2) == ['say \\"hi\\"', 'say \\"hi\\"']
    assert apply_replace((("a", "b"), ("b", "a")), "ab") == "ba"  # one pass, no re-replacement


def test_sequence_starts_after_from_and_wraps_to_zero():
    g = gen({"name": "s", "type": "sequence", "from": 10, "to": 13})
    assert g.column(7) == ["11", "12", "13", "0", "1", "2", "3"]
    assert gen({"name": "s", "type": "sequence"}).column(3) == ["1", "2", "3"]
    assert gen({"name": "s", "type": "sequence64", "from": 2**40}).one() == str(2**40 + 1)


def test_sequence_is_shared_out_among_clients():
    a = gen({"name": "s", "type": "sequence"}, index=0, clients=2).column(3)
    b = gen({"name": "s", "type": "sequence"}, index=1, clients=2).column(3)
    assert sorted(map(int, a + b)) == [1, 2, 3, 4, 5, 6]


def test_range_is_inclusive_and_validated():
    values = collections.Counter(gen({"name": "r", "type": "range", "from": 10, "to": 13}).column(8000))
    assert set(values) == {"10", "11", "12", "13"}
    big = gen({"name": "r", "type": "range", "from": 0, "to": 10**9}).column(100)
    assert all(0 <= int(v) <= 10**9 for v in big)
    with pytest.raises(ConfigError, match="below 'from'"):
        gen({"name": "r", "type": "range", "from": 5, "to": 1})


def test_uuid_is_an_xid():
    ids = gen({"name": "u", "type": "uuid"}).column(5000)
    assert len(set(ids)) == 5000
    assert all(re.fullmatch(r"[0-9a-v]{20}", i) for i in ids)
    raw = base64.b32hexdecode(ids[0].upper() + "====")[:12]
    assert abs(int.from_bytes(raw[:4], "big") - time.time()) < 5  # seconds timestamp first
    counters = [int.from_bytes(base64.b32hexdecode(i.upper() + "====")[9:12], "big") for i in ids[:3]]
    assert counters[1] == (counters[0] + 1) % 2**24 and counters[2] == (counters[1] + 1) % 2**24


def test_random_array_number_and_string():
    others = ({"name": "n", "type": "range", "from": 1, "to": 3},)
    nums = gen({"name": "a", "type": "random_array", "variable_key": "n", "size": 4}, others=others).one()
    assert re.fullmatch(r"[1-3](,[1-3]){3}", nums)
    strs = gen(
        {
            "name": "a",
            "type": "random_array",
            "variable_key": "n",
            "size": 2,
            "variable_type": "string",
            "square_bracket": True,
            "replace": {'"': "'"},
        },
        others=others,
    ).one()
    assert re.fullmatch(r"\['[1-3]','[1-3]'\]", strs)
    with pytest.raises(ConfigError, match="not a defined variable"):
        gen({"name": "a", "type": "random_array", "variable_key": "zz", "size": 1})


def test_clock_types():
    local = gen({"name": "t", "type": "now_local"}).one()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,9})? [+-]\d{4} \S+", local)
    utc = gen({"name": "t", "type": "now_utc"}).one()
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{1,9})? \+0000 UTC", utc)
    lite = gen({"name": "t", "type": "now_utc_lite"}).one()
    assert (
        abs(
            dt.datetime.strptime(lite, "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=dt.UTC).timestamp()
            - time.time()
        )
        < 5
    )
    assert abs(int(gen({"name": "t", "type": "now_unix"}).one()) - time.time()) < 5
    fmt = gen({"name": "t", "type": "now_with_format", "format": "2006-01-02T15:04:05-0700"}).one()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}", fmt)
    with pytest.raises(ConfigError, match="needs 'format'"):
        gen({"name": "t", "type": "now_with_format"})


def test_go_layouts():
    t = dt.datetime(2022, 6, 14, 17, 39, 9, 420724, tzinfo=dt.timezone(dt.timedelta(hours=8), "CST"))
    assert compile_layout("2006-01-02T15:04:05.000Z07:00")(t) == "2022-06-14T17:39:09.420+08:00"
    assert compile_layout("Mon Jan _2 3:4:5 PM MST 06 .999")(t) == "Tue Jun 14 5:39:9 PM CST 22 .42"
    assert go_time_string(t, 420724895) == "2022-06-14 17:39:09.420724895 +0800 CST"
    assert go_time_string(t.replace(tzinfo=dt.UTC), 0) == "2022-06-14 17:39:09 +0000 UTC"


def test_env_variable(monkeypatch):
    monkeypatch.setenv("ESB_T", "from-env")
    assert gen({"name": "e", "type": "env", "default": "x"}, env={"e": "cfg"}).one() == "cfg"
    assert gen({"name": "ESB_T", "type": "env"}).one() == "from-env"
    with pytest.raises(ConfigError, match="not set and has no default"):
        gen({"name": "ESB_MISSING_XYZ", "type": "env"})


def test_int_array_bitmap_is_a_serialized_roaring_bitmap():
    """Loadgen: `size` draws of [from, to] into a roaring.Bitmap, WriteTo, standard base64. The bytes
    below are Roaring's portable format written out by hand (cookie 12346, one container of key 1
    holding 70000 - 65536 = 4464, its offset 16); pyroaring's serialize() gives the same bytes."""
    one = gen({"name": "b", "type": "int_array_bitmap", "from": 70000, "to": 70000, "size": 3}).one()
    expected = bytes.fromhex("3a3000000100000001000000100000007011")
    assert base64.b64decode(one) == expected
    empty = gen({"name": "b", "type": "int_array_bitmap", "from": 1, "to": 9, "size": 0}).one()
    assert base64.b64decode(empty) == bytes.fromhex("3a30000000000000")
    raw = base64.b64decode(
        gen({"name": "b", "type": "int_array_bitmap", "from": 1, "to": 3, "size": 50}).one()
    )
    count = int.from_bytes(raw[4:8], "little")
    cardinality = int.from_bytes(raw[10:12], "little") + 1
    values = [int.from_bytes(raw[16 + 2 * i : 18 + 2 * i], "little") for i in range(cardinality)]
    assert count == 1 and values == sorted(set(values)) and set(values) <= {1, 2, 3} and len(values) >= 2
    with pytest.raises(ConfigError, match="0 <= from <= to < 2\\^32"):
        gen({"name": "b", "type": "int_array_bitmap", "from": 5, "to": 1, "size": 1})


def test_unknown_type_and_key():
    with pytest.raises(ConfigError, match="unknown type 'int_bitmap'"):
        gen({"name": "x", "type": "int_bitmap"})
    with pytest.raises(ConfigError, match="unsupported key 'pathh'"):
        gen({"name": "x", "type": "file", "pathh": "a"})
