"""esbench's built-in cars give the node settings of their rally-teams namesakes.

A built-in car keeps the distribution's own ``jvm.options`` and adds the car's options; a rally-teams car
replaces the file with its template. So the node configurations are compared on what a car decides:

* ``elasticsearch.yml``: every setting (nested keys flattened to dotted ones) but the node's identity,
  addresses and paths (cluster and node name, ``network.host``, ports, discovery, ``path.*``), equal;
* the JVM options that take effect on Java 17 (a ``N-:`` or ``N-M:`` prefix is applied as Elasticsearch
  applies it; ``-XX:HeapDumpPath``/``-XX:ErrorFile`` compared without their paths), equal as sets
  once esbench's process marker and two lines of the 8.8.2 distribution's ``jvm.options`` that the
  vanilla template lacks are set aside: its GC log (``-Xlog:gc*...``) and
  ``-XX:+ExitOnOutOfMemoryError`` (which Rally passes in ``ES_JAVA_OPTS`` instead, as esbench now
  also does: tests/integration/test_teams_rally_oracle.py).

The rally-teams side is rendered by esbench's team reader, which Rally itself checks car by car in
tests/integration/test_teams_rally_oracle.py. Needs the rally-teams mirror (skipped without it).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from harness import dist_cache

from esbench.provision import ProvisionSettings
from esbench.provision.cars import list_cars, resolve_car
from esbench.provision.flavors import obtain
from esbench.provision.installation import NodeState
from esbench.provision.nodeconfig import write_node_config
from esbench.provision.teamconfig import team_record
from esbench.provision.teams import list_team_cars

RALLY_TEAMS = Path(os.environ.get("ESBENCH_TEST_RALLY_TEAMS", "/work/.mirror/elastic+rally-teams/repo"))
VERSION = "8.8.2"
JAVA = 17
_IDENTITY = re.compile(
    r"^(cluster\.name|node\.name|network\.host|http\.port|transport\.port|discovery\..*|cluster\.initial_master_nodes|path\..*)$"
)
_RANGE = re.compile(r"^(\d+)(-(\d*))?:(.*)$")
_DISTRIBUTION_ONLY = ("-Xlog:gc", "-XX:+ExitOnOutOfMemoryError", "-Desbench.node=")


def _effective(lines: list[str]) -> set[str]:
    out = set()
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _RANGE.match(line)
        if m:
            low, dash, high = int(m[1]), m[2], m[3]
            fits = low <= JAVA <= (int(high) if high else 10**6) if dash else low == JAVA
            if not fits:
                continue
            line = m[4]
        if line.startswith(_DISTRIBUTION_ONLY):
            continue
        out.add(line.split("=", 1)[0] if line.startswith(("-XX:HeapDumpPath=", "-XX:ErrorFile=")) else line)
    return out


def _flat(value: object, prefix: str = "") -> dict[str, object]:
    # Elasticsearch reads nested and dotted keys alike.
    if not isinstance(value, dict):
        return {prefix: value}
    out: dict[str, object] = {}
    for k, v in value.items():
        out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def _node(tmp: Path, name: str) -> NodeState:
    node = NodeState(name="node-0", dir=str(tmp / name / "node-0"), http_port=9200, transport_port=9300)
    for d in (node.data_dir, node.logs_dir, node.tmp_dir):
        d.mkdir(parents=True)
    return node


def _config(node: NodeState) -> tuple[dict[str, object], set[str]]:
    settings = yaml.safe_load((node.config_dir / "elasticsearch.yml").read_text()) or {}
    jvm = (node.config_dir / "jvm.options").read_text().splitlines()
    extra = node.config_dir / "jvm.options.d" / "esbench.options"
    if extra.is_file():
        jvm += extra.read_text().splitlines()
    return {k: v for k, v in _flat(settings).items() if not _IDENTITY.match(k)}, _effective(jvm)


@pytest.mark.skipif(not RALLY_TEAMS.exists(), reason=f"no rally-teams mirror at {RALLY_TEAMS}")
def test_builtin_cars_decide_what_their_rally_teams_namesakes_decide(
    tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    team = tmp_path / "rally-teams"
    subprocess.run(["git", "clone", "-q", "-b", "8", str(RALLY_TEAMS), str(team)], check=True, timeout=300)
    monkeypatch.setenv("ESBENCH_DIST_CACHE", dist_cache())
    dist = obtain(ProvisionSettings(distribution_version=VERSION, distribution_repository="maven"))
    theirs = {c.name: c for c in list_team_cars(team)}
    # x-pack-security: esbench's own TLS + basic auth (its certificates and user), not Rally's hook.
    names = sorted(c.name for c in list_cars() if c.name in theirs and c.name != "x-pack-security")
    assert len(names) == len(theirs) - 1, sorted(set(theirs) - set(names))
    for name in names:
        spec = name if theirs[name].type == "car" else f"defaults,{name}"
        ours = _node(tmp_path / "ours", name)
        car = resolve_car(spec)
        write_node_config(
            ours,
            dist_config=dist.home / "config",
            install_id="cmp",
            cluster_name="c",
            all_nodes=[ours],
            car_jvm_options=car.jvm_options,
            car_settings=car.settings,
            license_type=str(car.variables.get("license_type", "trial")),
        )
        rally = _node(tmp_path / "rally", name)
        record = team_record(ProvisionSettings(team_path=team, car=spec, distribution_version=VERSION))
        write_node_config(
            rally,
            dist_config=dist.home / "config",
            install_id="cmp",
            cluster_name="c",
            all_nodes=[rally],
            car_jvm_options=[],
            car_settings={},
            team=record["team"],  # type: ignore[arg-type]
        )
        our_settings, our_jvm = _config(ours)
        their_settings, their_jvm = _config(rally)
        assert our_settings == their_settings, spec
        assert our_jvm == their_jvm, spec
