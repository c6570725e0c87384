"""What the ad-hoc command tests share (``esbench query``/``load`` in test_adhoc.py, esperf and
Loadgen in test_adhoc_loadgen.py): the newest stored race, a client of the test node, a count."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from elasticsearch import Elasticsearch


def last_race() -> dict:
    """The ``results.json`` of the newest race stored under ``$ESBENCH_HOME/races``."""
    races = sorted(
        (Path(os.environ["ESBENCH_HOME"]) / "races").glob("*/results.json"), key=lambda p: p.stat().st_mtime
    )
    return json.loads(races[-1].read_text())


@pytest.fixture(name="es")
def es_client(es_hosts: list[str]) -> Iterator[Elasticsearch]:
    """A client of the session's node (60 s request timeout: bulk loads and refreshes)."""
    client = Elasticsearch([f"http://{h}" for h in es_hosts], request_timeout=60)
    yield client
    client.close()


def count(es: Elasticsearch, index: str) -> int:
    """The documents of ``index`` after a refresh (so that what was just sent counts)."""
    es.indices.refresh(index=index)
    return int(es.count(index=index)["count"])
