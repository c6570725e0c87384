"""The eventdata generator: determinism, valid JSON matching the track mapping, correlations, shapes."""

from __future__ import annotations

import ipaddress
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from esbench.corpus.generators import get_generator
from esbench.corpus.generators.eventdata import EventDataGenerator
from esbench.exceptions import TrackValidationError

MAPPING = json.loads(
    re.sub(
        r"\{\{[^}]*\}\}",
        "1",
        (Path(__file__).resolve().parents[3] / "tracks" / "eventdata" / "index.json").read_text(),
    )
)["mappings"]

GEN = EventDataGenerator()
N = 20_000
MESSAGE = re.compile(
    r'^(?P<ip>\S+) - - \[(?P<ts>[^\]]+)\] "(?P<verb>GET|HEAD) (?P<request>\S+) HTTP/1\.1" '
    r'(?P<response>\d+) (?P<bytes>\d+) "-" (?P<referrer>"[^"]*") (?P<agent>".*")$'
)
TS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


@pytest.fixture(scope="module")
def lines() -> list[bytes]:
    return GEN.render_chunk({"seed": 1}, 0, N).split(b"\n")[:-1]


@pytest.fixture(scope="module")
def docs(lines: list[bytes]) -> list[dict]:
    return [json.loads(line) for line in lines]


def test_registered_under_its_name() -> None:
    assert isinstance(get_generator("eventdata"), EventDataGenerator)


def test_same_seed_same_bytes_other_seed_other_bytes(lines: list[bytes]) -> None:
    again = GEN.render_chunk({"seed": 1}, 0, N).split(b"\n")[:-1]
    assert again == lines
    other = GEN.render_chunk({"seed": 2}, 0, 200).split(b"\n")[:-1]
    assert other != lines[:200]


def test_a_prefix_is_the_smaller_corpus(lines: list[bytes]) -> None:
    assert GEN.render_chunk({"seed": 1}, 0, 1000).split(b"\n")[:-1] == lines[:1000]


def _check_against_mapping(doc: dict, properties: dict, path: str = "") -> None:
    assert set(doc) <= set(properties), (
        f"fields outside the strict mapping at {path}: {set(doc) - set(properties)}"
    )
    for key, value in doc.items():
        spec = properties[key]
        where = f"{path}{key}"
        kind = spec.get("type", "object")
        if kind == "object":
            _check_against_mapping(value, spec["properties"], where + ".")
        elif kind in ("keyword", "text"):
            assert isinstance(value, str), where
            if kind == "keyword" and "ignore_above" in spec:
                assert len(value) <= spec["ignore_above"] or where == "agent", where
        elif kind in ("integer", "short"):
            assert isinstance(value, int) and value >= 0, where
            assert kind != "short" or value < 32768, where
        elif kind == "ip":
            ipaddress.IPv4Address(value)
        elif kind == "geo_point":
            lon, lat = value
            assert -180 <= lon <= 180 and -90 <= lat <= 90, where
        elif kind == "date":
            assert TS.match(value), where
        else:  # pragma: no cover - a new mapping type needs a check here
            raise AssertionError(f"unchecked mapping type {kind} at {where}")


def test_every_line_is_json_matching_the_track_mapping(docs: list[dict]) -> None:
    expected_fields = {
        "agent", "useragent", "geoip", "clientip", "referrer", "request", "bytes", "verb", "response",
        "httpversion", "@timestamp", "message",
    }  # fmt: skip
    for doc in docs:
        assert set(doc) == expected_fields
        _check_against_mapping(doc, MAPPING["properties"])
        assert doc["httpversion"] == "1.1"
        assert doc["agent"].startswith('"') and doc["agent"].endswith('"')
        assert doc["referrer"].startswith('"') and doc["request"].startswith("/")


def test_message_is_the_apache_line_of_the_other_fields(docs: list[dict]) -> None:
    for doc in docs:
        m = MESSAGE.match(doc["message"])
        assert m, doc["message"]
        assert m["ip"] == doc["clientip"] and m["ts"] == doc["@timestamp"] and m["verb"] == doc["verb"]
        assert m["request"] == doc["request"] and int(m["response"]) == doc["response"]
        assert (
            int(m["bytes"]) == doc["bytes"]
            and m["referrer"] == doc["referrer"]
            and m["agent"] == doc["agent"]
        )


def test_timestamps_never_decrease_across_chunks(docs: list[dict]) -> None:
    stamps = [d["@timestamp"] for d in docs]
    assert stamps == sorted(stamps)
    next_chunk = json.loads(GEN.render_chunk({"seed": 1}, 1, 1))
    assert next_chunk["@timestamp"] >= stamps[-1]
    # About 5 documents per millisecond by default: many share a millisecond.
    assert len(set(stamps)) < len(stamps) * 0.5


def test_correlations_are_consistent(docs: list[dict]) -> None:
    by_agent: dict[str, set] = defaultdict(set)
    by_ip_net: dict[str, set] = defaultdict(set)
    for d in docs:
        ua = d["useragent"]
        by_agent[d["agent"]].add((ua["name"], ua["os"], ua["os_name"]))
        net = d["clientip"].rsplit(".", 2)[0]
        by_ip_net[net].add(d["geoip"]["country_name"])
        if d["response"] == 304:
            assert d["bytes"] == 0
        assert ua["os"].startswith(ua["os_name"]) or ua["os_name"] == "Other"
        if ua["name"] == "Firefox":
            assert "Firefox/" in d["agent"]
        if ua["name"] == "Chrome":
            assert "Chrome/" in d["agent"] or "Chromium/" in d["agent"]
        if ua["os_name"] == "Mac OS X":
            assert "Mac OS X" in d["agent"]
    assert all(len(v) == 1 for v in by_agent.values())
    assert all(len(v) == 1 for v in by_ip_net.values())


def _share(values: list, value: object) -> float:
    return 100.0 * values.count(value) / len(values)


def test_distributions_are_shaped_like_the_original(docs: list[dict]) -> None:
    names = [d["useragent"]["name"] for d in docs]
    assert 50 <= _share(names, "Chrome") <= 60 and 23 <= _share(names, "Firefox") <= 31
    oses = [d["useragent"]["os_name"] for d in docs]
    assert 27 <= _share(oses, "Mac OS X") <= 35 and 22 <= _share(oses, "Windows 7") <= 30
    countries = [d["geoip"]["country_name"] for d in docs]
    assert 25 <= _share(countries, "United States") <= 33 and 5.5 <= _share(countries, "China") <= 9.5
    responses = [d["response"] for d in docs]
    assert 71 <= _share(responses, 200) <= 79 and 18 <= _share(responses, 304) <= 26
    verbs = [d["verb"] for d in docs]
    assert _share(verbs, "GET") > 99.5
    requests = Counter(d["request"] for d in docs)
    assert requests.most_common(1)[0][0] == "/favicon.ico" and 8 <= 100 * requests["/favicon.ico"] / N <= 12
    referrers = [d["referrer"] for d in docs]
    assert 24 <= _share(referrers, '"-"') <= 30
    sizes = sorted(len(json.dumps(d)) + 1 for d in docs)
    mean = sum(sizes) / len(sizes)
    assert 790 <= mean <= 850, mean
    agents = Counter(d["agent"] for d in docs)
    top10 = sum(c for _, c in agents.most_common(10)) / N
    assert 0.18 <= top10 <= 0.32


def test_time_range_covers_the_generated_stamps(docs: list[dict]) -> None:
    first, last = GEN.time_range_ms({"seed": 1}, N)
    import datetime

    def ms(ts: str) -> int:
        moment = datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.UTC)
        return int(moment.timestamp() * 1000)

    assert first == ms(docs[0]["@timestamp"]) and ms(docs[-1]["@timestamp"]) == last
    assert 3900 <= last - first <= 4100  # 20,000 documents at 5,000 per second
    assert GEN.time_range_ms({"seed": 1}, 1) == (first, first)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"seed": "1"}, "'seed' must be an integer, got '1'"),
        ({"seed": True}, "'seed' must be an integer, got True"),
        ({"docs_per_second": 0}, "'docs_per_second' must be positive, got 0"),
        ({"start": "yesterday"}, "'start' must be an ISO-8601 timestamp"),
        ({"doc_count": -1}, "'doc_count' must be a non-negative integer, got -1"),
        ({"x": 1}, r"unknown generator-params \['x'\]; allowed are"),
    ],
)
def test_bad_params_are_rejected(params: dict, message: str) -> None:
    with pytest.raises(TrackValidationError, match=message):
        GEN.normalize_params(params)


def test_params_get_defaults() -> None:
    assert GEN.normalize_params({"doc_count": 5}) == {
        "seed": 1,
        "start": "2017-07-03T00:00:00Z",
        "docs_per_second": 5000.0,
        "doc_count": 5,
    }
