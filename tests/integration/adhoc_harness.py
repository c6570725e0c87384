"""What the ad-hoc command tests share (``esbench query``/``load`` in test_adhoc.py, esperf and
Loadgen in test_adhoc_loadgen.py): the newest stored race and a count."""

from __future__ import annotations

import json
import os
from pathlib import Path

from elasticsearch import Elasticsearch


def last_race() -> dict:
    """The ``results.json`` of the newest race stored under ``$ESBENCH_HOME/races``."""
    races = sorted(
        (Path(os.environ["ESBENCH_HOME"]) / "races").glob("*/results.json"), key=lambda p: p.stat().st_mtime
    )
    return json.loads(races[-1].read_text())


def count(es: Elasticsearch, index: str) -> int:
    """The documents of ``index`` after a refresh (so that what was just sent counts)."""
    es.indices.refresh(index=index)
    return int(es.count(index=index)["count"])
