"""Real nodes from team cars: the sample team with a plugin (built here, installed from a local zip), and,
where the rally-teams mirror exists on this machine, one node per rally-teams car whose modules the
integ-test build has, started one after another and stopped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest
from clusters import ES_VERSION
from harness import RESOURCES, dist_cache, esbench, ok, provision

from esbench.provision import ProvisionSettings
from esbench.provision.distributions import Distribution
from esbench.provision.flavors import obtain
from esbench.provision.teams import list_team_cars, load_team_car

pytestmark = pytest.mark.slow

SAMPLE = RESOURCES / "teams" / "sample"
RALLY_TEAMS = Path(os.environ.get("ESBENCH_TEST_RALLY_TEAMS", "/work/.mirror/elastic+rally-teams/repo"))
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

_PLUGIN_SOURCE = """package org.esbench.demo;

/** Adds nothing: esbench's tests install it to prove that plugin installation works. */
public class DemoPlugin extends org.elasticsearch.plugins.Plugin {}
"""


def _get(host: str, path: str) -> dict:
    with _OPENER.open(f"http://{host}{path}", timeout=10) as resp:
        return json.loads(resp.read())


def _distribution(home: Path, version: str) -> Distribution:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ESBENCH_HOME", str(home))
        mp.setenv("ESBENCH_DIST_CACHE", dist_cache())
        return obtain(ProvisionSettings(distribution_version=version, distribution_repository="maven"))


def _build_plugin(es_home: Path, version: str, out: Path) -> Path:
    """A plugin zip (``esbench-demo``) compiled against the distribution's own jars."""
    src = out / "src" / "org" / "esbench" / "demo" / "DemoPlugin.java"
    src.parent.mkdir(parents=True)
    src.write_text(_PLUGIN_SOURCE)
    classes = out / "classes"
    subprocess.run(
        ["javac", "-d", str(classes), "-cp", f"{es_home / 'lib'}/*", str(src)], check=True, timeout=120
    )
    jar = out / "esbench-demo.jar"
    subprocess.run(["jar", "cf", str(jar), "-C", str(classes), "."], check=True, timeout=60)
    plugin = out / f"esbench-demo-{version}.zip"
    with zipfile.ZipFile(plugin, "w") as z:
        z.writestr(
            "plugin-descriptor.properties",
            "description=esbench test plugin\nversion=1.0\nname=esbench-demo\n"
            f"classname=org.esbench.demo.DemoPlugin\njava.version=17\nelasticsearch.version={version}\n",
        )
        z.write(jar, jar.name)
    return plugin


def test_sample_team_car_and_plugin_reach_the_node(tmp_path: Path) -> None:
    """``esbench start --team-path --car --elasticsearch-plugins --plugin-params --nodes=2``: the two
    nodes find each other through the team template's discovery settings, and each runs the car's heap
    and JVM options, the mixins' settings, the plugin (installed from a local zip named in esbench.ini)
    and the plugin configuration's setting with the --plugin-params value."""
    home = tmp_path / "home"
    home.mkdir()
    dist = _distribution(home, ES_VERSION)
    plugin = _build_plugin(dist.home, dist.version, tmp_path / "plugin")
    zip_url = plugin.as_uri().replace(dist.version, "{{VERSION}}")
    (home / "esbench.ini").write_text(f"[distributions]\nplugin.esbench-demo.release.url = {zip_url}\n")
    started = ok(
        esbench(
            "start",
            f"--distribution-version={ES_VERSION}",
            "--distribution-repository=maven",
            f"--team-path={SAMPLE}",
            "--car=small,asserts,lowdisk",
            "--elasticsearch-plugins=esbench-demo:wire",
            "--plugin-params=wire_setting:3mb",
            "--nodes=2",
            home=home,
            timeout=600,
        )
    )
    fields = dict(line.split(": ", 1) for line in started.stdout.splitlines() if ": " in line)
    host = fields["hosts"].split(",")[0]
    try:
        assert _get(host, "/_cluster/health")["number_of_nodes"] == 2
        info = _get(host, "/_nodes/jvm,settings,plugins")
        assert len(info["nodes"]) == 2
        for node in info["nodes"].values():
            args = node["jvm"]["input_arguments"]
            assert "-Xmx512m" in args and "-ea" in args and "-XX:+ExitOnOutOfMemoryError" in args
            assert [p["name"] for p in node["plugins"]] == ["esbench-demo"]
            settings = node["settings"]
            assert settings["http"]["max_content_length"] == "3mb"
            assert settings["plugin"]["mandatory"] in (["esbench-demo"], "esbench-demo")
            assert settings["cluster"]["routing"]["allocation"]["disk"]["watermark"]["low"] == "400mb"
    finally:
        ok(esbench("stop", f"--installation-id={fields['installation-id']}", home=home))


@pytest.mark.skipif(not RALLY_TEAMS.exists(), reason=f"no rally-teams mirror at {RALLY_TEAMS}")
@pytest.mark.timeout(900)  # 13 node starts one after another: about 2 min on a quiet machine
def test_every_rally_teams_car_the_integ_build_can_run_starts_a_node(tmp_path: Path) -> None:
    """Each car of rally-teams' 8 branch on 8.8.2, one node after another. Left out: cars needing a module
    the integ-test build lacks (ML, monitoring), x-pack-security (esbench refuses its hook), and the
    heap cars but 1gheap: with the same heap they render the same files (asserted here)."""
    team = tmp_path / "rally-teams"
    subprocess.run(["git", "clone", "-q", "-b", "8", str(RALLY_TEAMS), str(team)], check=True, timeout=300)
    home = tmp_path / "home"
    home.mkdir()
    dist = _distribution(home, "8.8.2")
    needs_module = {
        "x-pack-ml": "x-pack-ml",
        "x-pack-monitoring-http": "monitoring",
        "x-pack-monitoring-local": "monitoring",
    }
    heap_cars = [c.name for c in list_team_cars(team) if c.name.endswith("gheap")]
    variables = {name: dict(load_team_car(team, [name], {"heap_size": "1g"}).variables) for name in heap_cars}
    assert all(v == variables["1gheap"] for v in variables.values())
    started = []
    for info in list_team_cars(team):
        if info.name in needs_module:
            assert not (dist.home / "modules" / needs_module[info.name]).exists()
            continue
        if info.name == "x-pack-security" or (info.name in heap_cars and info.name != "1gheap"):
            continue
        car = info.name if info.type == "car" else f"defaults,{info.name}"
        began = time.monotonic()
        cluster = provision(
            home,
            ProvisionSettings(
                distribution_version="8.8.2",
                distribution_repository="maven",
                team_path=team,
                car=car,
                start_timeout=120,
            ),
        )
        try:
            health = _get(cluster.hosts[0], "/_cluster/health")
            assert health["status"] == "green", car
            started.append(f"{car} {time.monotonic() - began:.0f} s")
        finally:
            cluster.stop()
    shutil.rmtree(team)
    assert len(started) >= 12
    print(f"started: {started}")
