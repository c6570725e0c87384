"""A repository track raced against --target-hosts asks the cluster's version once: the track-branch
probe (GET / only) is reused by the race's connection."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from loopback_http import serving

from esbench.racecontrol.prepare import resolve_track_source
from esbench.racecontrol.target import connect
from esbench.settings import PIPELINE_BENCHMARK_ONLY, RaceSettings
from esbench.tracksource import source_of

_ROOT = {"name": "n", "cluster_name": "c", "version": {"number": "8.17.0", "build_flavor": "default"}}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[str]

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        self.seen.append(path)
        body = _ROOT if path == "/" else {"number_of_nodes": 1} if path == "/_cluster/health" else {}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-Elastic-Product", "Elasticsearch")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def stub() -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server answering like a one-node Elasticsearch 8.17.0; yields (host, paths)."""
    seen: list[str] = []
    handler = type("Handler", (_Handler,), {"seen": seen})
    with serving(handler) as host:
        yield host, seen


class _RepositorySource:
    """A track source that, like a track repository without --track-branch, asks for the version."""

    def __init__(self) -> None:
        self.versions: list[str | None] = []

    def resolve(
        self, name: str, *, offline: bool, distribution_version: Callable[[], str | None]
    ) -> tuple[Path, None]:
        self.versions.append(distribution_version())
        return Path("/tracks") / name, None


def test_the_race_reuses_the_track_branch_probe(stub: tuple[str, list[str]]) -> None:
    host, seen = stub
    source = _RepositorySource()
    settings = RaceSettings(track_name="tiny", target_hosts=(host,), track_source=source)  # type: ignore[arg-type]
    track_dir, _, target = resolve_track_source(source_of(settings), settings, PIPELINE_BENCHMARK_ONLY)
    assert source.versions == ["8.17.0"] and track_dir == Path("/tracks/tiny")
    assert seen == ["/"]  # the probe takes no stats snapshot and no health check
    info, _ = connect(settings.target_hosts, settings, target)
    assert info.version == "8.17.0" and info.nodes == 1 and info.flavor == "elasticsearch"
    assert seen.count("/") == 1 and seen.count("/_cluster/health") == 1


def test_without_a_probe_the_race_asks_for_the_version_itself(stub: tuple[str, list[str]]) -> None:
    host, seen = stub
    settings = RaceSettings(track_name="tiny", target_hosts=(host,))
    info, _ = connect(settings.target_hosts, settings)
    assert info.version == "8.17.0" and seen.count("/") == 1
