"""Rally's install/start/stop options on a real node: ``install --installation-id --cluster-name
--node-name --runtime-jdk`` give the node those names and that JDK (asked of the node itself), and
``start``/``stop --quiet`` print their results only."""

from __future__ import annotations

import json
import tempfile
import urllib.request
import uuid
from pathlib import Path

import pytest
from clusters import ES_VERSION
from harness import esbench, ok

pytestmark = pytest.mark.slow

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _get(host: str, path: str) -> dict:
    with _OPENER.open(f"http://{host}{path}", timeout=10) as resp:
        return json.loads(resp.read())


def test_install_names_the_cluster_the_node_and_the_installation_and_picks_the_jdk(tmp_path: Path) -> None:
    home = tmp_path / "home"
    inst_id = f"it-options-{uuid.uuid4().hex[:8]}"
    installed = ok(
        esbench("install", "--distribution-repository=maven", f"--distribution-version={ES_VERSION}",
                f"--installation-id={inst_id}", "--cluster-name=bench-options", "--node-name=rally-node-0",
                "--runtime-jdk=17", "--car-params=heap_size:512m", "--build-type=tar", "--quiet",
                home=home, timeout=280)
    )  # fmt: skip
    # Rally's output (esrally/mechanic/mechanic.py install), what its docs pipe through jq.
    assert json.loads(installed.stdout) == {"installation-id": inst_id} and installed.stderr.strip() == ""
    again = esbench("install", "--distribution-repository=maven", f"--distribution-version={ES_VERSION}",
                    f"--installation-id={inst_id}", home=home, timeout=120)  # fmt: skip
    assert again.returncode == 64 and "exists already" in again.stderr
    started = None
    try:
        started = ok(esbench("start", f"--installation-id={inst_id}", "--quiet", home=home, timeout=280))
        assert started.stderr.strip() == ""
        fields = dict(line.split(": ", 1) for line in started.stdout.strip().splitlines())
        host = fields["hosts"].split(",")[0]
        # The integ-test build has no GET / handler: the health and nodes APIs name the cluster and node.
        assert _get(host, "/_cluster/health")["cluster_name"] == "bench-options"
        nodes = _get(host, "/_nodes/_local/jvm?filter_path=nodes.*.name,nodes.*.jvm.version")
        (node,) = nodes["nodes"].values()
        assert node["name"] == "rally-node-0" and node["jvm"]["version"].split(".")[0] == "17"
    finally:
        stopped = esbench("stop", f"--installation-id={inst_id}", "--skip-telemetry", "--quiet", home=home)
        assert stopped.returncode == 0 and stopped.stdout.strip() == inst_id, stopped.stderr
        assert stopped.stderr.strip() == ""


def test_car_data_paths_hold_the_nodes_data_and_leave_with_the_installation(tmp_path: Path) -> None:
    # Rally's data_paths car variable (esrally/mechanic/provisioner.py): path.data, wiped at the end.
    # The node runs as esbench's own account: its data path must be reachable by it (the pytest
    # temp root is private to root).
    reachable = Path(tempfile.mkdtemp(prefix="esbench-it-data-"))
    reachable.chmod(0o777)
    home, data = tmp_path / "home", reachable / "esdata"
    started = ok(
        esbench("start", "--distribution-repository=maven", f"--distribution-version={ES_VERSION}",
                f"--car-params=heap_size:512m,data_paths:{data}", "--quiet", home=home, timeout=280)
    )  # fmt: skip
    fields = dict(line.split(": ", 1) for line in started.stdout.strip().splitlines())
    try:
        fs = _get(fields["hosts"].split(",")[0], "/_nodes/_local/stats/fs?filter_path=nodes.*.fs.data.path")
        (node,) = fs["nodes"].values()
        assert [Path(d["path"]) for d in node["fs"]["data"]] == [data], node
        assert any(data.iterdir())
    finally:
        stopped = esbench("stop", f"--installation-id={fields['installation-id']}", "--quiet", home=home)
    assert stopped.returncode == 0, stopped.stderr
    assert not data.exists()
    reachable.rmdir()
