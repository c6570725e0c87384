"""The real Elasticsearch node of the ``node`` case, started with esbench's own provisioning.

Rally's benchmark-only pipeline calls ``GET /`` before a race and stops when it fails; the
integ-test-zip distributions from 8.9 on answer it with 405 (the root endpoint moved to a module
they lack; /work/shared/reference/elasticsearch-on-this-machine.md, checked with esrally 2.13.0:
``elasticsearch.ApiError: ApiError(405, ... allowed: [DELETE])`` from ``racecontrol.setup``).
So the case uses 8.8.2 for both tools by default, the newest integ-test-zip that answers ``GET /``.
"""

from __future__ import annotations

import contextlib
import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def real_node(*, version: str, car: str, race_dir: Path, hosts: str | None = None) -> Iterator[str]:
    """Yield ``"127.0.0.1:PORT"`` of a running single node; stop it on exit (also on Ctrl-C/errors).

    With ``hosts`` (an already running node), yield it and stop nothing.

    Raises:
        esbench.exceptions.EsbenchError: provisioning failed (see ``esbench.provision``).
    """
    if hosts:
        yield hosts
        return
    from esbench.provision import ProvisionSettings, provision_cluster

    settings = ProvisionSettings(distribution_version=version, car=car)
    race_dir.mkdir(parents=True, exist_ok=True)
    with provision_cluster(settings, race_dir=race_dir) as cluster:
        yield cluster.hosts[0]


def node_version(host: str) -> str:
    """The version a node reports (``GET _nodes/_local``, which every integ-test-zip answers)."""
    with urllib.request.urlopen(f"http://{host}/_nodes/_local", timeout=10) as r:
        nodes = json.load(r)["nodes"]
    return next(iter(nodes.values()))["version"]
