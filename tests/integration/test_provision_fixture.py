"""The ``es_hosts`` fixture gives a reachable, green node (provisioned by esbench or from the env)."""

from __future__ import annotations

import json
import urllib.request

import pytest


def test_es_hosts_answers_cluster_health(es_hosts: list[str]) -> None:
    assert es_hosts and all(h.count(":") == 1 for h in es_hosts)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"http://{es_hosts[0]}/_cluster/health", timeout=10) as resp:
        health = json.loads(resp.read())
    assert health["status"] in ("green", "yellow")
    assert health["number_of_nodes"] >= 1


def test_everything_here_is_marked_integration(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("integration") is not None
