"""Every option that names a host the command connects to, given a host where nothing listens,
fails within a bounded time with one paragraph that names the option, a non-zero exit and no
traceback.

The options are found from the click definitions (their type says ``connects``, see
:mod:`esbench.cli._params`); :data:`MINIMAL` holds what else each command needs to get as far
as connecting. A new command with such an option fails
:func:`test_every_connecting_option_is_swept` until it gets an entry. The host is a loopback port
that was just closed (nothing listens), so no test needs a node.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import click
import pytest
from harness import esbench
from test_option_sweep import commands, value_params

from esbench.cli._params import ValidatedText

#: Seconds within which a command must give up on a host where nothing listens (process start
#: included; the probes themselves give up after 3-5 s).
BOUND_S = 20.0

TRACK = {
    "version": 2,
    "indices": [{"name": "sweep"}],
    "schedule": [
        {
            "operation": {"name": "q", "operation-type": "search", "index": "sweep", "body": {}},
            "iterations": 1,
        }
    ],
}


def _bulk_track(tmp: Path) -> str:
    # `size --verify` races a bulk task at the indexing rate its corpus sizes give.
    root = tmp / "bulk-track"
    root.mkdir()
    docs = b'{"n": 1}\n{"n": 2}\n'
    (root / "docs.json").write_bytes(docs)
    corpus = {"source-file": "docs.json", "document-count": 2, "uncompressed-bytes": len(docs)}
    track = {
        "version": 2,
        "indices": [{"name": "sweep"}],
        "corpora": [{"name": "c", "documents": [corpus]}],
        "schedule": [{"operation": {"name": "b", "operation-type": "bulk", "bulk-size": 2}, "iterations": 1}],
    }
    (root / "track.json").write_text(json.dumps(track))
    return str(root)


def _loadgen(tmp: Path, closed: str) -> str:
    config = tmp / "loadgen.yml"
    config.write_text(f"requests:\n  - request:\n      method: GET\n      url: http://{closed}/_search\n")
    return str(config)


#: (command path, option) -> the other arguments it needs, with {track}, {closed}, {tmp},
#: {loadgen} (a Loadgen config) and {bulk} (a track with a bulk task and corpus) filled in.
MINIMAL: dict[tuple[tuple[str, ...], str], list[str]] = {
    (("create-track",), "target_hosts"): ["--track=x", "--indices=i", "--output-path={tmp}"],
    (("export",), "metrics_store"): ["some-race"],
    (("find-max",), "target_hosts"): ["--track-path={track}", "--task=q", "--slo=p99 latency < 1s"],
    (("info",), "target_hosts"): ["--track-path={track}"],
    (("load",), "target_hosts"): ["--config={loadgen}", "-d", "1"],
    (("load",), "metrics_store"): ["--config={loadgen}", "-d", "1"],
    (("optimize", "bulk-size"), "target_hosts"): ["--track-path={bulk}", "--task=b"],
    (("optimize", "clients"), "target_hosts"): ["--track-path={track}", "--task=q"],
    (("query",), "target_hosts"): ["http://{closed}/_search", "-n", "1"],
    (("query",), "metrics_store"): ["http://{closed}/_search", "-n", "1"],
    (("race",), "target_hosts"): ["--track-path={track}"],
    (("race",), "metrics_store"): ["--track-path={track}", "--target-hosts={closed}"],
    (("race",), "ray_address"): ["--track-path={track}", "--target-hosts={closed}", "--load-driver=ray"],
    (("size",), "target_hosts"): [
        "--track-path={bulk}",
        "--task=b",
        "--raw-gb-per-day=1",
        "--hot=7d",
        "--verify",
    ],
    (("sweep",), "target_hosts"): ["--track-path={track}", "--task=q", "--clients=1"],
    (("trend",), "metrics_store"): ["--source=metrics-store"],
    (("list", "races"), "metrics_store"): ["--source=metrics-store"],
    (("report",), "metrics_store"): ["some-race", "--source=metrics-store"],
    (("compare",), "metrics_store"): ["--baseline=a", "--contender=b", "--source=metrics-store"],
    (("add", "annotation"), "metrics_store"): ["--race-timestamp=20261128T000000Z", "--message=m"],
    (("list", "annotations"), "metrics_store"): [],
    (("delete", "annotation"), "metrics_store"): ["--id=x"],
}


def connecting_options() -> list[tuple[tuple[str, ...], click.Parameter]]:
    return [
        (path, p)
        for path, command in commands()
        for p in value_params(command)
        if isinstance(p.type, ValidatedText) and p.type.connects
    ]


def test_every_connecting_option_is_swept() -> None:
    found = {(path, p.name) for path, p in connecting_options()}
    assert found == set(MINIMAL)


@pytest.fixture(scope="module")
def closed_port() -> str:
    # A port that was free a moment ago: nothing listens on it.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize(
    ("path", "name"), sorted(MINIMAL), ids=lambda v: v if isinstance(v, str) else "-".join(v)
)
def test_unreachable_host_fails_fast_naming_the_option(
    path: tuple[str, ...], name: str, closed_port: str, tmp_path: Path
) -> None:
    track = tmp_path / "track"
    track.mkdir()
    (track / "track.json").write_text(json.dumps(TRACK))
    param = next(p for q, p in connecting_options() if q == path and p.name == name)
    option = max(param.opts, key=len)
    value = f"http://{closed_port}" if option == "--metrics-store" else closed_port
    places = {
        "track": track,
        "closed": closed_port,
        "tmp": tmp_path,
        "loadgen": _loadgen(tmp_path, closed_port),
        "bulk": _bulk_track(tmp_path),
    }
    args = [*path, *(a.format(**places) for a in MINIMAL[(path, name)]), f"{option}={value}"]
    started = time.monotonic()
    proc = esbench(*args, timeout=BOUND_S * 3, home=tmp_path / "home")
    took = time.monotonic() - started
    shown = f"esbench {args} -> {proc.returncode} in {took:.1f} s: {proc.stderr[-800:]!r}"
    assert proc.returncode != 0, shown
    assert took < BOUND_S, shown
    assert "Traceback" not in proc.stderr + proc.stdout, shown
    errors = [line for line in proc.stderr.splitlines() if line.startswith("[ERROR]")]
    assert len(errors) == 1 and option in errors[0], shown
